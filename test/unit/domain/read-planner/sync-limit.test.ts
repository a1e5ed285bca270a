import { decideSync, noSyncRequests, syncRan, type SyncRequests } from '../../../../lambdas/domain/read-planner/sync-limit.js';

const LIMIT = { perWindow: 4, windowMs: 3_600_000 };
const MINUTE = 60_000;

describe('the sync limit of a connection', () => {
  it('accepts the first request and coalesces those that come while it has not run', () => {
    const first = decideSync(noSyncRequests, 0, LIMIT);
    expect(first.decision).toEqual({ decision: 'accept' });
    const second = decideSync(first.state, 10_000, LIMIT);
    expect(second.decision).toEqual({ decision: 'coalesce' });
    expect(second.state.acceptedAt).toEqual([0]);
  });

  it('answers 429 with the seconds until the oldest accepted sync leaves the window', () => {
    let state: SyncRequests = noSyncRequests;
    const decisions: string[] = [];
    for (let minute = 0; minute < 10; minute++) {
      const result = decideSync(state, minute * MINUTE, LIMIT);
      decisions.push(result.decision.decision);
      state = syncRan(result.state);
    }
    expect(decisions).toEqual(['accept', 'accept', 'accept', 'accept', 'reject', 'reject', 'reject', 'reject', 'reject', 'reject']);
    const refused = decideSync(state, 10 * MINUTE + 500, LIMIT).decision;
    expect(refused).toEqual({ decision: 'reject', retryAfterSeconds: 50 * 60 });
    expect(decideSync(state, 60 * MINUTE + 1, LIMIT).decision).toEqual({ decision: 'accept' });
  });

  it('holds a tenant calling every minute to the window, and a calm one never meets it', () => {
    let busy: SyncRequests = noSyncRequests;
    let accepted = 0;
    for (let minute = 0; minute < 24 * 60; minute++) {
      const result = decideSync(busy, minute * MINUTE, LIMIT);
      if (result.decision.decision === 'accept') accepted += 1;
      busy = syncRan(result.state);
    }
    expect(accepted).toBe(24 * 4);
    let calm: SyncRequests = noSyncRequests;
    for (let hour = 0; hour < 24; hour++) {
      const result = decideSync(calm, hour * 60 * MINUTE, LIMIT);
      expect(result.decision.decision).toBe('accept');
      calm = syncRan(result.state);
    }
  });
});
