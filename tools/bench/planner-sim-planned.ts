/**
 * The read planner in the simulation: the domain's own code (lambdas/domain/read-planner/), fed
 * with the world's watchers, events and syncs and with what each read saw; only the clock and
 * the queue between planner and readers are the simulation's. The planner runs every second and
 * tops the queue up to its room; the readers take its reads at the token bucket's pace, drop
 * those that lost their use, and report each look back.
 */
import { READ_PLANNER, type ReadPlannerSettings } from '../../lambdas/config/read-planner.js';
import type { DueRead } from '../../lambdas/domain/read-planner/due-read.js';
import { queueRoom } from '../../lambdas/domain/read-planner/due-read.js';
import { createReadPlanner } from '../../lambdas/domain/read-planner/planner.js';
import { decideSync, noSyncRequests, syncRan } from '../../lambdas/domain/read-planner/sync-limit.js';
import { fullBucket, nextTokenAt, take } from '../../lambdas/domain/read-planner/token-bucket.js';
import { createPrng } from '../market/prng.js';
import type { Recorder } from './planner-sim-recorder.js';
import type { RunOptions } from './planner-sim-today.js';
import { movesBetween, type World } from './planner-sim-world.js';

export interface PlannedRun {
  /** Milliseconds spent in the planner's own calls (planning, merging, learning from looks). */
  readonly plannerMs: number;
  readonly cpuMs: number;
  readonly early: number;
  readonly syncs: { readonly accepted: number; readonly coalesced: number; readonly rejected: number };
}

export const runPlanned = (world: World, recorder: Recorder, options: RunOptions): PlannedRun => {
  const began = performance.now();
  const settings: ReadPlannerSettings = { ...READ_PLANNER, readsPerSecond: options.budget };
  const planner = createReadPlanner(settings, () => 1);
  const prng = createPrng(options.seed + 29);
  const spanMs = world.shape.spanSeconds * 1000;
  let plannerMs = 0;
  const timed = <T>(work: () => T): T => {
    const start = performance.now();
    const result = work();
    plannerMs += performance.now() - start;
    return result;
  };

  const lastLook = new Float64Array(world.products);
  timed(() => {
    for (let offer = 0; offer < world.productOf.length; offer++) {
      planner.watch(String(world.productOf[offer]), { tenant: String(world.tenantOf[offer]), repriced: world.repriced[offer] === 1 }, 0);
    }
    // As if running for a while: each page looked at once in the ten minutes before the start, its market's pace not yet known.
    for (let product = 0; product < world.products; product++) {
      lastLook[product] = -prng.next() * 600_000;
      planner.looked(String(product), { at: lastLook[product]!, moved: false, contested: world.contested[product] === 1 });
    }
  });

  const queue: DueRead[] = [];
  let head = 0;
  const bucketSettings = { ratePerSecond: options.budget, capacity: settings.burstReads };
  let bucket = fullBucket(0, bucketSettings);
  let nextEvent = 0;
  let early = 0;
  let syncState = noSyncRequests;
  const syncs = { accepted: 0, coalesced: 0, rejected: 0 };
  const noisyOffers =
    world.noisyTenant === null ? null : world.tenantOffersOf.subarray(world.tenantStart[world.noisyTenant]!, world.tenantStart[world.noisyTenant + 1]!);
  const syncLimit = { perWindow: settings.syncsPerWindow, windowMs: settings.syncWindowSeconds * 1000 };

  for (let second = 0; second * 1000 < spanMs; second++) {
    const now = second * 1000;
    if (now === spanMs / 2) {
      timed(() => {
        for (const tenant of world.leaving) {
          for (let i = world.tenantStart[tenant]!; i < world.tenantStart[tenant + 1]!; i++) {
            planner.unwatch(String(world.productOf[world.tenantOffersOf[i]!]), String(tenant));
          }
        }
      });
    }
    if (noisyOffers !== null && now % options.noisySyncEveryMs === 0) {
      const { decision, state } = decideSync(syncState, now, syncLimit);
      syncState = state;
      if (decision.decision === 'accept') {
        syncs.accepted += 1;
        timed(() => {
          for (const offer of noisyOffers) planner.bringForward(String(world.productOf[offer]), 'sync', String(world.noisyTenant), now);
        });
        syncState = syncRan(syncState);
      } else if (decision.decision === 'coalesce') syncs.coalesced += 1;
      else syncs.rejected += 1;
    }
    while (nextEvent < world.eventAt.length && world.eventAt[nextEvent]! < now) {
      const offer = world.eventOffer[nextEvent]!;
      const at = world.eventAt[nextEvent]!;
      timed(() => planner.bringForward(String(world.productOf[offer]), 'event', String(world.tenantOf[offer]), at));
      nextEvent += 1;
    }
    const room = queueRoom(queue.length - head, settings);
    const planned = timed(() => planner.plan(now, room));
    early += planned.early;
    for (const requesters of planned.released) for (const tenant of requesters) recorder.ask(Number(tenant), 1 / requesters.length, now);
    queue.push(...planned.reads);
    if (second % 60 === 0) recorder.sampleFreshness(now, (offer) => lastLook[world.productOf[offer]!]!);

    while (head < queue.length) {
      const queued = queue[head]!;
      const read = planner.queued(queued.variant) ?? queued;
      const product = Number(read.variant);
      if (timed(() => planner.use(read)) !== 'read') {
        timed(() => planner.dropped(read, now));
        recorder.dropped += 1;
        head += 1;
        continue;
      }
      const at = nextTokenAt(bucket, now, bucketSettings);
      if (at >= now + 1000) break;
      bucket = take(bucket, at, 1, bucketSettings).bucket;
      head += 1;
      const { first, end } = movesBetween(world.moves[product]!, lastLook[product]!, at);
      const sawMove = end > first;
      recorder.read(product, at, read.queuedAt);
      recorder.movesSeen(product, lastLook[product]!, at, recorder.repricedOn(product));
      for (const tenant of read.requesters) recorder.serve(Number(tenant), 1 / read.requesters.length, at);
      lastLook[product] = at;
      timed(() => planner.looked(read.variant, { at, moved: sawMove, contested: world.contested[product] === 1 }));
    }
    if (head > 100_000) {
      queue.splice(0, head);
      head = 0;
    }
  }
  return { plannerMs, cpuMs: performance.now() - began, early, syncs };
};
