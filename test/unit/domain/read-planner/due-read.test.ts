import { READ_PLANNER } from '../../../../lambdas/config/read-planner.js';
import { mergeReads, queueRoom, readUse, type DueRead } from '../../../../lambdas/domain/read-planner/due-read.js';
import { LOOK_REASONS, reasonNames } from '../../../../lambdas/domain/read-planner/reasons.js';

const read = (overrides: Partial<DueRead> = {}): DueRead => ({
  variant: 'PLID1',
  reasons: LOOK_REASONS.repriced,
  requesters: ['a'],
  queuedAt: 1_000,
  ...overrides,
});

describe('reads due', () => {
  it('merges two looks at one page into one read: both reasons, both tenants, queued since the earlier', () => {
    const merged = mergeReads(read(), read({ reasons: LOOK_REASONS.event, requesters: ['b', 'a'], queuedAt: 500 }));
    expect(reasonNames(merged.reasons)).toEqual(['repriced', 'event']);
    expect(merged.requesters).toEqual(['a', 'b']);
    expect(merged.queuedAt).toBe(500);
    expect(() => mergeReads(read(), read({ variant: 'PLID2' }))).toThrow(RangeError);
  });

  it.each([
    ['nobody watches the page any more', { watchers: [], lastLookAt: 0 }, 'unwatched'],
    ['the page is gone from the planner', undefined, 'unwatched'],
    ['the page was looked at after the read was queued', { watchers: [{ tenant: 'a', repriced: true }], lastLookAt: 2_000 }, 'seen'],
    ['the page was last looked at before', { watchers: [{ tenant: 'a', repriced: true }], lastLookAt: 500 }, 'read'],
    ['the page was never looked at', { watchers: [{ tenant: 'a', repriced: true }], lastLookAt: null }, 'read'],
  ] as const)('drops or keeps a queued read when %s', (_case, watch, use) => {
    expect(readUse(read(), watch)).toBe(use);
  });

  it('fills the queue to its seconds of budget and never beyond a minute of it', () => {
    expect(queueRoom(0, READ_PLANNER)).toBe(Math.floor(READ_PLANNER.readsPerSecond * READ_PLANNER.queueSeconds));
    expect(queueRoom(1_000, READ_PLANNER)).toBe(0);
    expect(queueRoom(0, { readsPerSecond: 100, queueSeconds: 600, maxQueueSeconds: 60 })).toBe(6_000);
    expect(queueRoom(0, { readsPerSecond: 0.01, queueSeconds: 10, maxQueueSeconds: 60 })).toBe(1);
  });
});
