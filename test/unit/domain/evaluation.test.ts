import { planRepricerDecisions } from '../../../lambdas/domain/evaluation.js';
import type { EngineOffer } from '../../../lambdas/domain/repricing.js';

/** What one repricer's evaluation records (docs/repricing.md): the status its connection gives, and what it does not decide again. */
const NOW_MS = Date.parse('2026-11-22T10:00:00.000Z');
const slot = { repricerId: 7, enabled: true, min_price: 30, preferred_price: 60, connector: 'takealot', price_war_guard: null };
const offers: EngineOffer[] = [
  { offer_id: 'OWN-1', offer_price: 55, offer_status: 'buyable', connector: 'takealot', own: true },
  { offer_id: 'C-1', offer_price: 50, offer_status: 'buyable', connector: 'takealot', own: false, seller_id: 's1', rating_avg: 4, stock_status: 'in_stock' },
];
type Last = { lastPrice?: number; lastStatus?: 'pending' | 'suggested' } | undefined;
const plan = (mode: 'live' | 'suggest' | undefined, last: Last = undefined) =>
  planRepricerDecisions({ slot, offers, priceStep: 1, mode, lastDecision: () => last, warState: () => undefined, context: {}, nowMs: NOW_MS });

describe('planRepricerDecisions', () => {
  it.each([
    ['a live connection', 'pending', 'live'],
    ['a connection that suggests', 'suggested', 'suggest'],
    ['no connection (the offers were imported)', 'suggested', undefined],
  ] as const)('records the undercut of %s as %s', (_, status, mode) => {
    expect(plan(mode).decisions).toMatchObject([
      { repricerId: 7, connector: 'takealot', offerId: 'OWN-1', oldPrice: 55, price: 49, reason: 'undercut', status, explanation: expect.any(Object) },
    ]);
  });

  it('does not decide the last decided price again, unless it was a suggestion and the connection now sends', () => {
    expect(plan('live', { lastPrice: 49, lastStatus: 'pending' }).decisions).toEqual([]);
    expect(plan('suggest', { lastPrice: 49, lastStatus: 'suggested' }).decisions).toEqual([]);
    expect(plan('live', { lastPrice: 49, lastStatus: 'suggested' }).decisions).toMatchObject([{ price: 49, status: 'pending' }]);
  });

  it('records no war state for a repricer without a guard', () => {
    expect(plan('live')).toMatchObject({ warStates: [], holds: [] });
  });
});
