/**
 * Today's fixed-tier schedule in the simulation (docs/market-loop.md): every minute each
 * connection asks for the page of each of its products whose phase comes round (repriced every
 * 2 minutes, the rest hourly), one read per (connection, product); a marketplace event asks for
 * its product's page at once, a requested sync for every page of the connection; all of it in
 * one queue in arrival order, read at the budget's pace. The same token bucket as the planner's
 * keeps the pace.
 */
import { fullBucket, nextTokenAt, take } from '../../lambdas/domain/read-planner/token-bucket.js';
import { createPrng } from '../market/prng.js';
import type { Recorder } from './planner-sim-recorder.js';
import type { World } from './planner-sim-world.js';

export interface RunOptions {
  readonly budget: number;
  readonly seed: number;
  readonly warmupMs: number;
  /** The noisy tenant asks for a sync this often (when there is one). */
  readonly noisySyncEveryMs: number;
}

interface Batch {
  readonly offers: Int32Array;
  cursor: number;
  readonly requestedAt: number;
}

export const runToday = (world: World, recorder: Recorder, options: RunOptions): { readonly cpuMs: number } => {
  const began = performance.now();
  const spanMs = world.shape.spanSeconds * 1000;
  const prng = createPrng(options.seed + 17);
  const repricedPhases: number[][] = [[], []];
  const otherPhases: number[][] = Array.from({ length: 60 }, () => []);
  const lastSeen = new Float64Array(world.productOf.length);
  for (let offer = 0; offer < world.productOf.length; offer++) {
    const repriced = world.repriced[offer] === 1;
    const phase = prng.int(0, repriced ? 1 : 59);
    // As if running for a while: each view last read at its phase before the start.
    lastSeen[offer] = -(((repriced ? 2 : 60) - phase) * 60_000) + prng.next() * 1000;
    if (world.tenantOf[offer] === world.noisyTenant) continue;
    (repriced ? repricedPhases : otherPhases)[phase]!.push(offer);
  }
  const shuffled = (offers: number[]) => {
    for (let i = offers.length - 1; i > 0; i--) {
      const j = prng.int(0, i);
      [offers[i], offers[j]] = [offers[j]!, offers[i]!];
    }
    return Int32Array.from(offers);
  };
  const repricedDue = repricedPhases.map(shuffled);
  const otherDue = otherPhases.map(shuffled);
  const noisyOffers =
    world.noisyTenant === null ? null : world.tenantOffersOf.subarray(world.tenantStart[world.noisyTenant]!, world.tenantStart[world.noisyTenant + 1]!);

  const queue: Batch[] = [];
  let head = 0;
  const gone = new Uint8Array(world.tenants);
  const bucketSettings = { ratePerSecond: options.budget, capacity: 1 };
  let bucket = fullBucket(0, bucketSettings);
  let nextEvent = 0;
  const enqueue = (offers: Int32Array, at: number) => {
    queue.push({ offers, cursor: 0, requestedAt: at });
    for (const offer of offers) recorder.ask(world.tenantOf[offer]!, 1, at);
  };

  for (let second = 0; second * 1000 < spanMs; second++) {
    const now = second * 1000;
    if (second % 60 === 0) {
      const tick = second / 60;
      enqueue(repricedDue[tick % 2]!, now);
      enqueue(otherDue[tick % 60]!, now);
      if (noisyOffers !== null && now % options.noisySyncEveryMs === 0) enqueue(noisyOffers, now);
    }
    if (now === spanMs / 2) for (const tenant of world.leaving) gone[tenant] = 1;
    while (nextEvent < world.eventAt.length && world.eventAt[nextEvent]! < now + 1000) {
      enqueue(Int32Array.of(world.eventOffer[nextEvent]!), world.eventAt[nextEvent]!);
      nextEvent += 1;
    }
    if (second % 60 === 0) recorder.sampleFreshness(now, (offer) => lastSeen[offer]!);
    for (;;) {
      while (head < queue.length && queue[head]!.cursor >= queue[head]!.offers.length) head += 1;
      if (head >= queue.length) break;
      const batch = queue[head]!;
      if (batch.requestedAt >= now + 1000) break;
      const offer = batch.offers[batch.cursor]!;
      const tenant = world.tenantOf[offer]!;
      if (gone[tenant] === 1) {
        batch.cursor += 1;
        recorder.dropped += 1;
        continue;
      }
      const at = Math.max(nextTokenAt(bucket, now, bucketSettings), batch.requestedAt);
      if (at >= now + 1000) break;
      bucket = take(bucket, at, 1, bucketSettings).bucket;
      batch.cursor += 1;
      const product = world.productOf[offer]!;
      recorder.read(product, at, batch.requestedAt);
      recorder.movesSeen(product, lastSeen[offer]!, at, world.repriced[offer]!);
      recorder.serve(tenant, 1, at);
      lastSeen[offer] = at;
    }
    if (head > 1_000) {
      queue.splice(0, head);
      head = 0;
    }
  }
  return { cpuMs: performance.now() - began };
};
