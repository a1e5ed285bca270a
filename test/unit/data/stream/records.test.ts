import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from 'aws-lambda';
import { streamChangeOf } from '../../../../lambdas/data/stream/records.js';
import { nodePartition, rebuildKey } from '../../../../lambdas/data/table/keys.js';
import { listingKey } from '../../../../lambdas/data/lists/ranked/listings.js';
import { OFFER_LIST } from '../../../../lambdas/data/offers/list.js';
import { clientItem } from '../../../support/fixtures.js';
import { offerItem, productItem, repricerItem, storedOffer, product } from '../fixtures.js';

type Image = Record<string, AttributeValue>;
const image = (item: Record<string, unknown>): Image => marshall(item, { removeUndefinedValues: true }) as Image;
const keysOf = (item: { pk: unknown; sk: unknown }): Image => image({ pk: item.pk, sk: item.sk });

const OFFER = offerItem(storedOffer({ offer_id: 'MKT 1/#2' }, { id: 9 }));
const MOVED = offerItem(storedOffer({ offer_id: 'MKT 1/#2', competitiveness: 'losing' }, { id: 9, scope: 'other' }));

const REMOVED_AT = '2026-02-01T00:00:00.000Z';
/** The state recorded for OFFER (stats), as it is (present) or once it left its product. */
const ownState = (present: boolean, price = OFFER.fields.offer_price, at = OFFER.updated_at) => ({
  offerState: {
    productCode: 'SKU-1',
    offerId: 'MKT 1/#2',
    connector: 'takealot',
    at,
    present,
    winning: present && OFFER.fields.winning,
    winningDelivery: present && OFFER.fields.winning_delivery,
    price,
  },
});

describe('streamChangeOf', () => {
  it.each<[string, Image | undefined, Image | undefined, string[], object]>([
    ['created', undefined, image(OFFER), ['own|winning'], ownState(true)],
    ['deleted', image(OFFER), undefined, ['own|winning'], ownState(false, OFFER.fields.offer_price, REMOVED_AT)],
    ['changed within its cell', image(OFFER), image({ ...OFFER, fields: { ...OFFER.fields, offer_price: 1 } }), ['own|winning'], ownState(true, 1)],
    ['moved to another cell', image(OFFER), image(MOVED), ['own|winning', 'other|losing'], {}],
  ])('names an offer %s, with its id and every cell its images place it in', (_case, oldImage, newImage, cells, state) => {
    expect(streamChangeOf(keysOf(OFFER), oldImage, newImage, REMOVED_AT)).toEqual({
      kind: 'offer',
      clientId: 'c1',
      products: ['SKU-1'],
      hint: { offerId: 'MKT 1/#2', productCode: 'SKU-1', id: 9, cells },
      ...state,
    });
  });

  it.each<[string, Partial<typeof OFFER.fields>, boolean]>([
    ['its Best Price slot', { winning: !OFFER.fields.winning }, true],
    ['its Fastest Delivery slot', { winning_delivery: !OFFER.fields.winning_delivery }, true],
    ['its price', { offer_price: OFFER.fields.offer_price + 1 }, true],
    ['only its competitor count', { total_competitors: OFFER.fields.total_competitors + 1 }, false],
    ['only its rating', { rating_avg: 1 }, false],
  ])("records an own offer's state when it moves %s, and only then", (_case, change, recorded) => {
    const after = { ...OFFER, fields: { ...OFFER.fields, ...change }, updated_at: '2026-03-01T00:00:00.000Z' };
    const found = streamChangeOf(keysOf(OFFER), image(OFFER), image(after));
    const state = found?.kind === 'offer' ? found.offerState : undefined;
    if (!recorded) return expect(state).toBeUndefined();
    expect(state).toEqual({
      productCode: 'SKU-1',
      offerId: 'MKT 1/#2',
      connector: 'takealot',
      at: '2026-03-01T00:00:00.000Z',
      present: true,
      winning: after.fields.winning,
      winningDelivery: after.fields.winning_delivery,
      price: after.fields.offer_price,
    });
  });

  it("records no state of another seller's offer", () => {
    const other = offerItem(storedOffer({ offer_id: 'X' }, { scope: 'other' }));
    const found = streamChangeOf(keysOf(other), undefined, image(other));
    expect(found?.kind === 'offer' && found.offerState).toBe(undefined);
  });

  it('names an offer by its key alone when no image is a canonical offer', () => {
    expect(streamChangeOf(keysOf(OFFER), undefined, image({ pk: OFFER.pk, sk: OFFER.sk, entity: 'offer', sv: 99 }))).toEqual({
      kind: 'offer',
      clientId: 'c1',
      products: ['SKU-1'],
      hint: { offerId: 'MKT 1/#2', productCode: 'SKU-1', cells: [] },
    });
  });

  it('names the product of a repricer slot: its repricers need a decision', () => {
    expect(streamChangeOf(image({ pk: 'T#c1#P#A%20B', sk: 'SLOT#takealot' }), undefined, undefined)).toEqual({
      kind: 'slot',
      clientId: 'c1',
      code: 'A B',
      watch: true,
    });
  });

  it("moves the product's page watches only when a slot's connector or enabled flag, or a product's line, changed", () => {
    const slot = { pk: 'T#c1#P#SKU-1', sk: 'SLOT#takealot', entity: 'repricerSlot', enabled: true, connector: 'takealot', min_price: 10 };
    const slotChange = (after: Record<string, unknown>) => streamChangeOf(image(slot), image(slot), image({ ...slot, ...after }));
    expect(slotChange({ min_price: 12 })).toMatchObject({ kind: 'slot', watch: false });
    expect(slotChange({ enabled: false })).toMatchObject({ kind: 'slot', watch: true });
    expect(streamChangeOf(image(slot), undefined, image(slot))).toMatchObject({ kind: 'slot', watch: true });
    const item = productItem(product({ code: 'SKU-1' }));
    const lined = { ...item, productLineId: '123' };
    expect(streamChangeOf(keysOf(item), image(lined), image({ ...lined, soh: 4 }))).toMatchObject({ kind: 'product', watch: false });
    expect(streamChangeOf(keysOf(item), image(item), image(lined))).toMatchObject({ kind: 'product', watch: true });
    expect(streamChangeOf(keysOf(item), image(lined), image({ ...lined, productLineId: '456' }))).toMatchObject({ kind: 'product', watch: true });
  });

  it('names a product by its decoded code', () => {
    const item = productItem(product({ code: 'A B#1' }));
    expect(streamChangeOf(keysOf(item), undefined, image(item))).toEqual({ kind: 'product', clientId: 'c1', code: 'A B#1', watch: true });
  });

  it('names a rebuild request', () => {
    const key = rebuildKey('c1', '2026-01-01T00:00:00.000Z-abcd1234');
    expect(streamChangeOf(image(key), undefined, image({ ...key, status: 'running' }))).toEqual({
      kind: 'rebuild',
      clientId: 'c1',
      requestId: '2026-01-01T00:00:00.000Z-abcd1234',
    });
  });

  it.each<[string, { pk: string; sk: string }]>([
    ['a listing the maintainer wrote', listingKey('c1', OFFER_LIST, 'own|winning', 9)],
    ['a rank node', { pk: nodePartition('c1', 'OL', 'id', 'b'), sk: '-' }],
    ['a repricer', repricerItem()],
    ['a price change that is not one (no canonical image)', { pk: 'T#c1#PC#SKU-1', sk: 'PC#1#A#1' }],
    ['an offer lookup', { pk: 'T#c1#OID', sk: 'MKT-1' }],
    ['a client', clientItem({ algorithm: 'scrypt', salt: '', hash: '', N: 1, r: 1, p: 1, keyLength: 1 } as never)],
    ['a counter', { pk: 'COUNTER#offer', sk: 'COUNTER' }],
  ])('means nothing for %s', (_case, key) => {
    expect(streamChangeOf(keysOf(key), undefined, image(key))).toBeUndefined();
  });

  it('means nothing without keys', () => {
    expect(streamChangeOf(undefined, undefined, undefined)).toBeUndefined();
  });
});
