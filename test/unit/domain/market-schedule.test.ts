import { MARKET_SYNC } from '../../../lambdas/config/market-sync.js';
import { fullSyncWanted, heartbeatDue, isDue, ownOffersDue, phaseOf, tickOf } from '../../../lambdas/domain/market-schedule.js';

const MINUTE = 60_000;
const connection = (overrides: Partial<{ uid: string; last_sync_at: string | null; sync_requested_at: string | null }> = {}) => ({
  uid: '9b2e7c4a-3d1f-4e5a-8b6c-7d8e9f0a1b2c',
  last_sync_at: '2026-11-25T10:00:00.000Z',
  sync_requested_at: null,
  ...overrides,
});

describe('market schedule', () => {
  it('cuts time into one-minute ticks', () => {
    expect(tickOf(0)).toBe(0);
    expect(tickOf(MINUTE - 1)).toBe(0);
    expect(tickOf(MINUTE)).toBe(1);
    expect(tickOf(Date.UTC(2026, 10, 25, 10, 3, 59))).toBe(Date.UTC(2026, 10, 25, 10, 3) / MINUTE);
  });

  it('makes each thing due exactly once per period, at a steady phase', () => {
    for (const name of ['SKU-1', 'SKU-2', 'a long product code', '9b2e7c4a']) {
      for (const every of [MARKET_SYNC.repricedEverySeconds, MARKET_SYNC.ownOffersEverySeconds, MARKET_SYNC.othersEverySeconds]) {
        const ticks = every / MARKET_SYNC.tickSeconds;
        const due = Array.from({ length: ticks * 3 }, (_, tick) => tick + 1_000).filter((tick) => isDue(name, tick, every));
        expect(due).toHaveLength(3);
        expect(due[1]! - due[0]!).toBe(ticks);
        expect(due[2]! - due[1]!).toBe(ticks);
      }
    }
  });

  it('spreads names over the phases (no phase holds more than twice its share of 6,000 names)', () => {
    const counts = new Array<number>(60).fill(0);
    for (let n = 0; n < 6_000; n++) counts[phaseOf(`SKU-${n}`, 60)]!++;
    expect(Math.max(...counts)).toBeLessThan(200);
    expect(Math.min(...counts)).toBeGreaterThan(50);
  });

  it('wants a full sync when never synced or asked for after the last one', () => {
    expect(fullSyncWanted(connection({ last_sync_at: null }))).toBe(true);
    expect(fullSyncWanted(connection({ sync_requested_at: '2026-11-25T10:00:00.001Z' }))).toBe(true);
    expect(fullSyncWanted(connection({ sync_requested_at: '2026-11-25T09:59:59.999Z' }))).toBe(false);
    expect(fullSyncWanted(connection())).toBe(false);
  });

  it('runs the own-offer sync on its phase, or at once when a full sync is wanted', () => {
    const record = connection();
    const due = Array.from({ length: 30 }, (_, tick) => tick).filter((tick) => ownOffersDue(record, tick));
    expect(due).toHaveLength(2);
    expect(ownOffersDue(connection({ last_sync_at: null }), due[0]! + 1)).toBe(true);
  });

  it('rewrites last_sync_at without a change only once it is an hour old', () => {
    const last = Date.parse('2026-11-25T10:00:00.000Z');
    expect(heartbeatDue('2026-11-25T10:00:00.000Z', last + 59 * MINUTE)).toBe(false);
    expect(heartbeatDue('2026-11-25T10:00:00.000Z', last + 60 * MINUTE)).toBe(true);
    expect(heartbeatDue(null, last)).toBe(true);
  });
});
