import { marketAfterRead, marketVerdict, type MarketState } from '../../../lambdas/domain/market-state.js';

const T0 = '2026-11-26T10:00:00.000Z';
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();
const timing = { heartbeatMs: 4 * 60_000, staleAfterMs: 8 * 60_000 };
const known = (readAt = T0): MarketState => ({ state: 'known', readAt });

describe('marketVerdict: what a repricer may decide from the market as recorded', () => {
  it('decides nothing from a product whose page was never read: unknown is not alone', () => {
    expect(marketVerdict(undefined, Date.parse(T0), timing)).toEqual({ decide: false, why: 'not_read' });
  });

  it.each(['empty_page', 'malformed_page', 'blocked', 'page_missing', 'own_seller_unknown', 'variant_not_shown', 'rivals_unreadable'] as const)(
    'decides nothing while the last read was %s',
    (reason) => {
      expect(marketVerdict({ state: 'unknown', reason, since: T0 }, Date.parse(T0), timing)).toEqual({ decide: false, why: reason });
    },
  );

  it('may raise from a fresh known market, and only lower from a stale one', () => {
    expect(marketVerdict(known(), Date.parse(at(8)), timing)).toEqual({ decide: true, mayRaise: true, readAt: T0 });
    expect(marketVerdict(known(), Date.parse(at(8)) + 1, timing)).toEqual({ decide: true, mayRaise: false, readAt: T0 });
  });
});

describe('marketAfterRead: what a read records', () => {
  it('records the first page that showed the buy box, and a change of reason', () => {
    expect(marketAfterRead(undefined, { state: 'known' }, T0, timing)).toEqual(known());
    expect(marketAfterRead(known(), { state: 'unknown', reason: 'empty_page' }, at(1), timing)).toEqual({
      state: 'unknown',
      reason: 'empty_page',
      since: at(1),
    });
    expect(marketAfterRead({ state: 'unknown', reason: 'empty_page', since: T0 }, { state: 'unknown', reason: 'blocked' }, at(1), timing)).toEqual({
      state: 'unknown',
      reason: 'blocked',
      since: at(1),
    });
  });

  it('writes nothing for the same unknown again, nor for a known market read within the heartbeat', () => {
    expect(marketAfterRead({ state: 'unknown', reason: 'blocked', since: T0 }, { state: 'unknown', reason: 'blocked' }, at(30), timing)).toBeUndefined();
    expect(marketAfterRead(known(), { state: 'known' }, at(3), timing)).toBeUndefined();
  });

  it('refreshes a known market once the heartbeat has passed, so it never goes stale while pages keep coming', () => {
    expect(marketAfterRead(known(), { state: 'known' }, at(4), timing)).toEqual(known(at(4)));
  });

  it('records the first read after a price the marketplace confirmed: the next step of a capped move waits for it', () => {
    expect(marketAfterRead(known(), { state: 'known' }, at(1), timing, at(0.5))).toEqual(known(at(1)));
    // A confirmation older than the recorded read needs no new record.
    expect(marketAfterRead(known(at(1)), { state: 'known' }, at(2), timing, at(0.5))).toBeUndefined();
  });
});
