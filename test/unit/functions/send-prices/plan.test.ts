import { planChange, ProductReads } from '../../../../lambdas/functions/send-prices/plan-change.js';
import type { Gate } from '../../../../lambdas/functions/send-prices/gate.js';
import type { StoredSendable } from '../../../../lambdas/data/price-changes/status.js';
import { connection, NOW, open, sendable as change } from './fixtures.js';

/**
 * The sender's first decisions about a pending change, made before anything is read: the kill
 * switch and the connection's state come first, so a change queued before `suggest` was set
 * or the connection deleted is never pushed.
 */
const plan = (sendable: StoredSendable, gate: Gate) => planChange('c1', sendable, gate, NOW, new ProductReads('c1'));

describe('planning a pending change', () => {
  it('fails it once the connection is deleted', async () => {
    expect(await plan(change(), { kind: 'gone' })).toMatchObject({ kind: 'move', to: 'failed', forget: true });
  });

  it('turns a decision back into a suggestion when the connection is in suggest mode (the kill switch)', async () => {
    const result = await plan(change(), open(connection({ mode: 'suggest' })));
    // Ended for a reason of the connection: the evaluator forgets it, to decide it again.
    expect(result).toMatchObject({ kind: 'move', to: 'suggested', forget: true });
  });

  it('leaves it pending while the connection is paused, unauthorized or held', async () => {
    for (const status of ['paused', 'unauthorized'] as const) {
      const { stored } = open(connection({ status })) as Extract<Gate, { kind: 'open' }>;
      expect(await plan(change(), { kind: 'closed', stored, why: status })).toMatchObject({ kind: 'wait' });
    }
  });

  it('waits on a push still in flight, and doubts it once it is old', async () => {
    const inFlight = change({ pushToken: 't', pushStartedAt: new Date(NOW - 10_000).toISOString() });
    expect(await plan(inFlight, open(connection()))).toMatchObject({ kind: 'wait' });
    const stranded = change({ pushToken: 't', pushStartedAt: new Date(NOW - 10 * 60_000).toISOString() });
    expect(await plan(stranded, open(connection()))).toMatchObject({ kind: 'doubt' });
  });

  it('doubts a push whose fault left it in doubt only at the retry time the fault set, however old the push', async () => {
    const pushed = { pushToken: 't', pushStartedAt: new Date(NOW - 60 * 60_000).toISOString(), attempts: 3 };
    expect(await plan(change({ ...pushed, retryAt: new Date(NOW + 60_000).toISOString() }), open(connection()))).toMatchObject({ kind: 'wait' });
    expect(await plan(change({ ...pushed, retryAt: new Date(NOW).toISOString() }), open(connection()))).toMatchObject({ kind: 'doubt' });
  });

  it('tells no doubt while the connection cannot send (the seller API on hold, paused)', async () => {
    const { stored } = open(connection());
    const stranded = change({ pushToken: 't', pushStartedAt: new Date(NOW - 10 * 60_000).toISOString() });
    expect(await plan(stranded, { kind: 'closed', stored, why: 'rate limited' })).toMatchObject({ kind: 'wait' });
  });

  it('does nothing with a change that is no longer pending', async () => {
    expect(await plan(change({}, { status: 'sent' }), open(connection()))).toMatchObject({ kind: 'wait' });
  });
});
