import { MARKET_HOLD_TEXT, marketAfterRead, marketVerdict, type MarketState } from '../../../lambdas/domain/market-state.js';
import { previewRepricer } from '../../../lambdas/domain/repricer-preview.js';

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

  it('decides from a fresh known market, and nothing from a stale one: it neither lowers nor raises', () => {
    expect(marketVerdict(known(), Date.parse(at(8)), timing)).toEqual({ decide: true, readAt: T0 });
    expect(marketVerdict(known(), Date.parse(at(8)) + 1, timing)).toEqual({ decide: false, why: 'stale', readAt: T0 });
  });
});

describe('the market in the preview', () => {
  it('says why a stale market decides nothing, and decides nothing from it, down or up', () => {
    const repricer = {
      id: 1,
      product: { code: 'P' },
      enabled: true,
      min_price: 10,
      preferred_price: 100,
      connector: 'takealot',
      buybox_approach: 'cheapest' as const,
      repricer_approach: 'fixed' as const,
    };
    const offers = [
      { offer_id: 'own', offer_price: 50, offer_status: 'buyable', connector: 'takealot', own: true, seller_id: 'me' },
      { offer_id: 'rival', offer_price: 40, offer_status: 'buyable', connector: 'takealot', own: false, seller_id: 's1' },
    ];
    const stale = marketVerdict(known(), Date.parse(at(9)), timing);
    const preview = previewRepricer(repricer, offers, 1, () => undefined, stale);
    expect(preview.market).toEqual({ state: 'stale', reason: null, read_at: T0, note: MARKET_HOLD_TEXT.stale });
    expect(preview.market.note).toMatch(/nothing is decided/);
    // 39 would be a lower price: from a stale view, not even that.
    expect(preview.offers.map((offer) => offer.would_decide)).toEqual([null]);
    expect(previewRepricer(repricer, offers, 1, () => undefined, marketVerdict(known(), Date.parse(at(1)), timing)).offers[0]?.would_decide).toBe(39);
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
