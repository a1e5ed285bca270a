import {
  guardRepricer,
  MAX_TRACKED_RIVALS,
  NO_WAR,
  priceWarVerdict,
  WAR_WINDOW_MS,
  type WarObservation,
  type WarState,
  type WarVerdict,
} from '../../../lambdas/domain/price-war.js';
import { MAX_GUARD_UNDERCUTS } from '../../../lambdas/domain/records.js';
import type { EngineOffer, EngineRepricer } from '../../../lambdas/domain/repricing.js';

const MINUTE = 60_000;
const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const guard = { undercuts: 3, cooldown_minutes: 30 };
const rival = (offerId: string, price: number) => ({ offerId, sellerId: `seller-${offerId}`, price });

/** One run of the guard: the state carried from the last run, the own price and the rivals as seen now. */
const run = (state: WarState, at: number, ownPrice: number, rivals: ReturnType<typeof rival>[], decision?: WarObservation['decision']): WarVerdict =>
  priceWarVerdict(state, { nowMs: at, guard, ownPrice, rivals, decision });

/** Own undercut of `to` under rival `id` priced `rivalPrice`. */
const undercut = (id: string, rivalPrice: number, to: number) => ({ price: to, lowestOfferId: id, lowestPrice: rivalPrice });

/**
 * A war of alternating undercuts with rival A: own 100 -> 98 under A's 99, A 99 -> 97, own -> 96,
 * A -> 95, ... one undercut per `gap` minutes. Returns the verdict of each run, in order.
 */
const alternate = (undercuts: number, gap: number, start: WarState = NO_WAR, from = T0): WarVerdict[] => {
  const verdicts: WarVerdict[] = [];
  let state = start;
  let own = 100;
  let a = 99;
  // The first sight of A counts nothing: there is no earlier price to fall from.
  state = run(state, from - MINUTE, own, [rival('A', a)]).state;
  for (let n = 0; n < undercuts; n++) {
    const at = from + n * gap * MINUTE;
    const verdict = n % 2 === 0 ? run(state, at, own, [rival('A', a)], undercut('A', a, a - 1)) : run(state, at, own, [rival('A', (a = own - 1))]);
    if (n % 2 === 0 && verdict.kind === 'decide') own = a - 1;
    verdicts.push(verdict);
    state = verdict.state;
  }
  return verdicts;
};

describe('priceWarVerdict', () => {
  it('counts the undercuts of both sides within the hour, and holds on the one past the setting', () => {
    const verdicts = alternate(4, 5);
    expect(verdicts.slice(0, 3).map((v) => v.kind)).toEqual(['decide', 'decide', 'decide']);
    const fourth = verdicts[3]!;
    expect(fourth).toMatchObject({ kind: 'hold', detected: true, hold: { rivalOfferId: 'A', rivalSellerId: 'seller-A', undercuts: 4 } });
    if (fourth.kind !== 'hold') throw new Error('no hold');
    expect(fourth.hold.until - fourth.hold.since).toBe(30 * MINUTE);
  });

  it('does not make the own undercut that starts the war', () => {
    // Three undercuts (own, A, own), then the own fourth would be one too many.
    const verdicts = alternate(3, 5);
    const state = verdicts[2]!.state;
    const fourth = run(state, T0 + 20 * MINUTE, 98, [rival('A', 97)], undercut('A', 97, 96));
    // A's fall to 97 was counted on the run before: this run counts the own undercut as the fourth.
    expect(fourth).toMatchObject({ kind: 'hold', detected: true, hold: { undercuts: 4 } });
  });

  it('forgets the undercuts older than an hour', () => {
    // Undercuts 40 minutes apart: at most two fall within any hour, never four.
    expect(alternate(8, 40).every((v) => v.kind === 'decide')).toBe(true);
    // 3 undercuts, then the fourth just past an hour after the first: still 3 within the hour.
    const three = alternate(3, 1);
    const late = run(three[2]!.state, T0 + WAR_WINDOW_MS + 1, 98, [rival('A', 95)]);
    expect(late.kind).toBe('decide');
    expect(late.state.rivals[0]!.undercuts).toHaveLength(3);
  });

  it('holds through the cool-down without announcing it again, and decides again when it ends', () => {
    const war = alternate(4, 1).at(-1)!;
    if (war.kind !== 'hold') throw new Error('no hold');
    const until = war.hold.until;
    const during = run(war.state, until - 1, 98, [rival('A', 90)], undercut('A', 90, 89));
    expect(during).toMatchObject({ kind: 'hold', detected: false, hold: war.hold });
    const after = run(during.state, until, 98, [rival('A', 90)], undercut('A', 90, 89));
    expect(after.kind).toBe('decide');
    // The war's undercuts are forgotten: the count starts again from the undercut just made.
    expect(after.state.hold).toBeNull();
    expect(after.state.rivals[0]!.undercuts).toEqual([until]);
  });

  it('counts each rival apart: undercuts with A and with B do not add up', () => {
    let state: WarState = run(NO_WAR, T0 - MINUTE, 100, [rival('A', 99.5), rival('B', 99.8)]).state;
    const kinds: string[] = [];
    let a = 99.5;
    let b = 99.8;
    // Six undercuts of the own 100 in six minutes, three by each rival: none has more than 3.
    for (let n = 0; n < 6; n++) {
      const at = T0 + n * MINUTE;
      const verdict = n % 2 === 0 ? run(state, at, 100, [rival('A', (a -= 2)), rival('B', b)]) : run(state, at, 100, [rival('A', a), rival('B', (b -= 2))]);
      kinds.push(verdict.kind);
      state = verdict.state;
    }
    expect(kinds).toEqual(Array(6).fill('decide'));
    expect(state.rivals.map((r) => [r.offerId, r.undercuts.length])).toEqual(
      expect.arrayContaining([
        ['A', 3],
        ['B', 3],
      ]),
    );
  });

  it('counts a rival only when its price falls under the own price, and the own move only under that rival', () => {
    const seen = run(NO_WAR, T0, 100, [rival('A', 105)]).state;
    // A falls, but stays above the own offer: no undercut.
    const above = run(seen, T0 + MINUTE, 100, [rival('A', 101)]);
    expect(above.state.rivals[0]!.undercuts).toEqual([]);
    // The own offer rises (to the ceiling): no undercut either.
    const raise = run(above.state, T0 + 2 * MINUTE, 100, [rival('A', 101)], { price: 100.5, lowestOfferId: 'A', lowestPrice: 101 });
    expect(raise.state.rivals[0]!.undercuts).toEqual([]);
    // Down to the floor, still above A: no undercut of A.
    const floor = run(seen, T0 + 3 * MINUTE, 100, [rival('A', 90)], { price: 95, lowestOfferId: 'A', lowestPrice: 90 });
    expect(floor.state.rivals[0]!.undercuts).toEqual([T0 + 3 * MINUTE]); // A's fall to 90 only
  });

  it('keeps a bounded state: the cheapest few rivals, and no more undercuts than the largest setting needs', () => {
    const many = Array.from({ length: 20 }, (_, i) => rival(`R${String(i).padStart(2, '0')}`, 200 - i));
    const state = run(NO_WAR, T0, 100, many).state;
    expect(state.rivals.map((r) => r.offerId)).toEqual(['R19', 'R18', 'R17', 'R16', 'R15'].slice(0, MAX_TRACKED_RIVALS));
    const loose = { undercuts: MAX_GUARD_UNDERCUTS, cooldown_minutes: 1 };
    let s: WarState = run(NO_WAR, T0, 1_000, [rival('A', 900)]).state;
    for (let n = 1; n <= 200; n++) s = priceWarVerdict(s, { nowMs: T0 + n, guard: loose, ownPrice: 1_000, rivals: [rival('A', 900 - n)] }).state;
    expect(s.rivals[0]!.undercuts.length).toBeLessThanOrEqual(MAX_GUARD_UNDERCUTS + 1);
  });
});

describe('guardRepricer', () => {
  const repricer: EngineRepricer = { enabled: true, min_price: 50, preferred_price: 150, connector: 'takealot' };
  const offer = (offer_id: string, offer_price: number, own = false, seller_id = `s-${offer_id}`): EngineOffer => ({
    offer_id,
    offer_price,
    offer_status: 'buyable',
    connector: 'takealot',
    own,
    seller_id,
  });
  const offers = [offer('mine', 100, true, 'me'), offer('A', 99), offer('B', 120), { ...offer('C', 10), connector: 'amazon' }];
  const decision = { offerId: 'mine', price: 98, oldPrice: 100, reason: 'undercut' as const, lowest: { price: 99, offerId: 'A' } };

  it('lets every decision through and keeps nothing without a guard', () => {
    expect(guardRepricer({ ...repricer, price_war_guard: null }, offers, [decision], () => undefined, T0)).toEqual({
      decisions: [decision],
      holds: [],
      changed: [],
    });
  });

  it("follows the repricer's competitors only, and holds an offer in a war", () => {
    const first = guardRepricer({ ...repricer, price_war_guard: guard }, offers, [decision], () => undefined, T0);
    expect(first.decisions).toEqual([decision]);
    // The other connector's offer is no rival; the own offer is none either.
    expect(first.changed[0]!.state.rivals.map((r) => r.offerId)).toEqual(['A', 'B']);
    const warring: WarState = { rivals: [{ offerId: 'A', sellerId: 's-A', price: 99, undercuts: [T0 - 3, T0 - 2, T0 - 1] }], hold: null };
    const held = guardRepricer({ ...repricer, price_war_guard: guard }, offers, [decision], () => warring, T0);
    expect(held.decisions).toEqual([]);
    expect(held.holds).toEqual([{ offerId: 'mine', detected: true, hold: expect.objectContaining({ rivalOfferId: 'A', until: T0 + 30 * MINUTE }) }]);
  });
});
