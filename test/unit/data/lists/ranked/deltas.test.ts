import { OFFER_LIST } from '../../../../../lambdas/data/offers/list.js';
import { deltasOf } from '../../../../../lambdas/data/lists/ranked/deltas.js';
import { placeOf } from '../../../../../lambdas/data/lists/ranked/ranked-list.js';
import { REPRICER_LIST } from '../../../../../lambdas/data/repricers/list.js';
import { competitorsKey, idKey, priceKey, timeKey } from '../../../../../lambdas/data/table/sort-keys.js';
import { storedOffer, storedRepricer } from '../../fixtures.js';

const LATER = '2026-02-03T04:05:06.789Z';
const OFFER = storedOffer({ total_competitors: 5, offer_price: 450, competitiveness: 'winning' }, { id: 42 });
const before = placeOf(OFFER_LIST, OFFER);

/** The deltas as `order: [±cell@key/g]` strings, for readable expectations. */
const summary = (deltas: ReturnType<typeof deltasOf>) =>
  Object.fromEntries(
    [...deltas].map(([order, moves]) => [order, moves.map((m) => `${m.d > 0 ? '+' : '-'}${m.cell}@${m.key}${m.g === undefined ? '' : `/${m.g}`}`)]),
  );

describe('placeOf', () => {
  it('places an offer in its cell with its key in every order and its competitor count', () => {
    expect(before).toEqual({
      id: 42,
      cell: 'own|winning',
      g: 5,
      keys: {
        id: idKey(42),
        total_competitors: competitorsKey(5, 42),
        offer_price: priceKey(450, 42),
        updated_at: timeKey(OFFER.updated_at, 42),
      },
    });
  });

  it('places a repricer by enabled flag, without a histogram value', () => {
    expect(placeOf(REPRICER_LIST, storedRepricer({ id: 7, enabled: false }))).toEqual({
      id: 7,
      cell: 'off',
      keys: { id: idKey(7), updated_at: timeKey(storedRepricer().record.updated_at, 7), created_at: timeKey(storedRepricer().record.created_at, 7) },
    });
  });
});

describe('deltasOf', () => {
  it('counts a new item into every order', () => {
    expect(summary(deltasOf(OFFER_LIST, undefined, before))).toEqual({
      id: [`+own|winning@${idKey(42)}/5`],
      total_competitors: [`+own|winning@${competitorsKey(5, 42)}/5`],
      offer_price: [`+own|winning@${priceKey(450, 42)}/5`],
      updated_at: [`+own|winning@${timeKey(OFFER.updated_at, 42)}/5`],
    });
  });

  it('counts a removed item out of every order', () => {
    const deltas = deltasOf(OFFER_LIST, before, undefined);
    expect([...deltas.keys()]).toEqual(['id', 'total_competitors', 'offer_price', 'updated_at']);
    expect([...deltas.values()].flat().every((move) => move.d === -1 && move.cell === 'own|winning' && move.g === 5)).toBe(true);
  });

  it('changes nothing for an item that stays in place', () => {
    expect(deltasOf(OFFER_LIST, before, placeOf(OFFER_LIST, { ...OFFER, fields: { ...OFFER.fields, seller_name: 'Renamed' } })).size).toBe(0);
  });

  it('moves only the orders whose key changed when the price changes', () => {
    // Prepare
    const after = placeOf(OFFER_LIST, { ...OFFER, fields: { ...OFFER.fields, offer_price: 399.99 }, updated_at: LATER });

    // Act
    const deltas = summary(deltasOf(OFFER_LIST, before, after));

    // Assess
    expect(deltas).toEqual({
      offer_price: [`-own|winning@${priceKey(450, 42)}/5`, `+own|winning@${priceKey(399.99, 42)}/5`],
      updated_at: [`-own|winning@${timeKey(OFFER.updated_at, 42)}/5`, `+own|winning@${timeKey(LATER, 42)}/5`],
    });
  });

  it('moves every order when the competitor count changes, since every node counts it in its histogram', () => {
    // Prepare
    const after = placeOf(OFFER_LIST, { ...OFFER, fields: { ...OFFER.fields, total_competitors: 9 } });

    // Act
    const deltas = summary(deltasOf(OFFER_LIST, before, after));

    // Assess
    expect(deltas).toEqual({
      id: [`-own|winning@${idKey(42)}/5`, `+own|winning@${idKey(42)}/9`],
      total_competitors: [`-own|winning@${competitorsKey(5, 42)}/5`, `+own|winning@${competitorsKey(9, 42)}/9`],
      offer_price: [`-own|winning@${priceKey(450, 42)}/5`, `+own|winning@${priceKey(450, 42)}/9`],
      updated_at: [`-own|winning@${timeKey(OFFER.updated_at, 42)}/5`, `+own|winning@${timeKey(OFFER.updated_at, 42)}/9`],
    });
  });

  it('moves every order from the old cell to the new one when the competitiveness or seller changes', () => {
    // Prepare
    const after = placeOf(OFFER_LIST, { ...OFFER, scope: 'other', fields: { ...OFFER.fields, competitiveness: 'losing' } });

    // Act
    const deltas = deltasOf(OFFER_LIST, before, after);

    // Assess
    expect(deltas.size).toBe(4);
    for (const [order, moves] of deltas) {
      expect(moves).toEqual([
        { key: before.keys[order], cell: 'own|winning', g: 5, d: -1 },
        { key: before.keys[order], cell: 'other|losing', g: 5, d: 1 },
      ]);
    }
  });

  it('moves a repricer from on to off in every order when it is disabled', () => {
    // Prepare
    const current = storedRepricer({ id: 7 });
    const disabled = { ...current, record: { ...current.record, enabled: false } };

    // Act
    const deltas = summary(deltasOf(REPRICER_LIST, placeOf(REPRICER_LIST, current), placeOf(REPRICER_LIST, disabled)));

    // Assess
    expect(Object.keys(deltas)).toEqual(['id', 'updated_at', 'created_at']);
    expect(deltas.id).toEqual([`-on@${idKey(7)}`, `+off@${idKey(7)}`]);
  });
});
