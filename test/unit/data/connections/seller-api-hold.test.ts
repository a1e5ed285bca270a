import { MARKETPLACE_HOLD_MAX_MS } from '../../../../lambdas/config/marketplace-holds.js';
import { sellerApiHeldUntil } from '../../../../lambdas/data/connections/seller-api-hold.js';

const NOW = Date.parse('2026-11-28T12:00:00.000Z');
const at = (ms: number) => new Date(ms).toISOString();

describe('sellerApiHeldUntil', () => {
  it('holds until a stored hold within the cap has passed', () => {
    expect(sellerApiHeldUntil({ sendHoldUntil: at(NOW + 60_000) }, NOW)).toBe(at(NOW + 60_000));
    expect(sellerApiHeldUntil({ sendHoldUntil: at(NOW + MARKETPLACE_HOLD_MAX_MS) }, NOW)).toBe(at(NOW + MARKETPLACE_HOLD_MAX_MS));
    expect(sellerApiHeldUntil({ sendHoldUntil: at(NOW - 1) }, NOW)).toBeUndefined();
    expect(sellerApiHeldUntil({}, NOW)).toBeUndefined();
  });

  it('does not obey a hold stored beyond the cap (an epoch once read as seconds): the next call is a fresh try', () => {
    expect(sellerApiHeldUntil({ sendHoldUntil: at(NOW + 3 * 3_600_000) }, NOW)).toBeUndefined();
    expect(sellerApiHeldUntil({ sendHoldUntil: '2082-11-28T12:00:00.000Z' }, NOW)).toBeUndefined();
  });
});
