import { READ_PLANNER, type ReadPlannerSettings } from '../config/read-planner.js';
import { DUE_SHARDS, duePageWatches, dueTimeOf, leased, leasePageWatch, type PageWatch } from '../data/market/page-watches.js';
import { initialFairShare, selectFairly, type Lane } from '../domain/read-planner/fair-share.js';
import { urgencyKey } from '../domain/read-planner/next-look.js';
import { lookRequesters, nextLookAt, nextLookReasons } from '../domain/read-planner/watch-state.js';
import { storefrontGroup, type StoreFrontReadMessage } from '../events/market-sync.js';
import { logger } from '../observability/logger.js';
import type { QueueMessage, QueueSender } from '../queue/sender.js';

/**
 * The read planner of the live loop (docs/market-loop.md), run once a minute by the market
 * schedule: it takes the page watches due from the `due` index (one Query per shard, never a
 * tenant's catalogue, reaching to the ceiling: the watches due now sort first, and the rest are
 * the candidates for an early look), shares a minute of the stage's read budget between the
 * tenants that asked for them (deficit round robin: a page sold by several tenants costs each a
 * share), and, with budget to spare, looks early at the pages due soonest (never within the
 * floor of their last look). Each look admitted is leased on its watch (so no other plan admits
 * it again, and a read lost on the way is planned again when the lease ends) and sent as one
 * read of the page for every tenant watching it.
 */
export interface PlanReadsResult {
  readonly reads: number;
  readonly due: number;
  readonly early: number;
  readonly tenants: number;
}

interface Candidate {
  readonly page: PageWatch;
  readonly requesters: readonly string[];
  readonly urgency: number;
}

const laneOf = (items: Candidate[], taken: ReadonlySet<string>): Lane<Candidate> => {
  let next = 0;
  const skipTaken = () => {
    while (next < items.length && taken.has(items[next]!.page.watch.variant)) next++;
  };
  return {
    peek: () => {
      skipTaken();
      return items[next];
    },
    pop: () => {
      skipTaken();
      return items[next++];
    },
  };
};

/** Picks up to `room` candidates fairly across the tenants who asked for them; the tenants' order turns with the minute, so none is always first. */
const pickFairly = (candidates: readonly Candidate[], room: number, turn: number, settings: ReadPlannerSettings): Candidate[] => {
  const lanes = new Map<string, Candidate[]>();
  for (const candidate of candidates) for (const tenant of candidate.requesters) lanes.set(tenant, [...(lanes.get(tenant) ?? []), candidate]);
  for (const lane of lanes.values()) lane.sort((a, b) => a.urgency - b.urgency);
  const sorted = [...lanes.keys()].sort();
  const tenants = sorted.length === 0 ? sorted : [...sorted.slice(turn % sorted.length), ...sorted.slice(0, turn % sorted.length)];
  const taken = new Set<string>();
  const views = new Map([...lanes].map(([tenant, items]) => [tenant, laneOf(items, taken)] as const));
  const weight = settings.planWeights.standard ?? 1;
  return selectFairly(initialFairShare, {
    tenants,
    lane: (tenant) => views.get(tenant),
    weight: () => weight,
    room,
    taken: (item) => taken.add(item.page.watch.variant),
  }).picked;
};

const LEASE_PARALLEL = 16;

/** One look at a page, as the reader's queue takes it: a look asked for twice at one time is one message. */
export const pageReadMessage = (connector: string, productLineId: string, reasons: number, at: string): QueueMessage => {
  const body: StoreFrontReadMessage = { connector, productLineId, reasons, at };
  const groupId = storefrontGroup(connector, productLineId);
  return { groupId, deduplicationId: `${groupId}#${Date.parse(at)}`, body: JSON.stringify(body) };
};

export const planStorefrontReads =
  (storefront: QueueSender, settings: ReadPlannerSettings = READ_PLANNER) =>
  async (atMs: number): Promise<PlanReadsResult> => {
    const room = Math.max(1, Math.floor(settings.readsPerSecond * settings.maxQueueSeconds));
    const shards = Array.from({ length: DUE_SHARDS }, (_, shard) => shard);
    const turn = Math.floor(atMs / 60_000);
    // Each shard's first `room` watches due by the ceiling: those due now come first in the
    // index, so they are the ones a Query up to now alone would give, and no second Query is
    // needed for the early looks.
    const horizon = (await Promise.all(shards.map((shard) => duePageWatches(shard, atMs + settings.ceilingSeconds * 1000, room)))).flat();

    const due = horizon
      .filter((page) => dueTimeOf(page.dueSk) <= atMs)
      .map((page) => ({ page, requesters: lookRequesters(page.watch, atMs), urgency: urgencyKey(page.watch) }));
    const picked = pickFairly(due, room, turn, settings);
    let early: Candidate[] = [];
    if (picked.length < room) {
      const chosen = new Set(picked.map((candidate) => candidate.page.watch.variant));
      const floorMs = settings.floorSeconds * 1000;
      const soon = horizon.filter(
        (page) => !chosen.has(page.watch.variant) && !leased(page) && (page.watch.lastLookAt === null || page.watch.lastLookAt + floorMs <= atMs),
      );
      early = pickFairly(
        soon.map((page) => ({ page, requesters: page.watch.watchers.map((w) => w.tenant), urgency: nextLookAt(page.watch) })),
        room - picked.length,
        turn,
        settings,
      );
    }
    const at = new Date(atMs).toISOString();
    const messages: QueueMessage[] = [];
    const tenants = new Set<string>();
    const admitted = [...picked, ...early];
    // Leases in small parallel rounds: a minute's budget is hundreds of conditional writes.
    for (let n = 0; n < admitted.length; n += LEASE_PARALLEL) {
      const round = admitted.slice(n, n + LEASE_PARALLEL);
      const won = await Promise.all(round.map(({ page }) => leasePageWatch(page, atMs + settings.leaseSeconds * 1000)));
      round.forEach(({ page, requesters }, i) => {
        if (!won[i]) return;
        messages.push(pageReadMessage(page.connector, page.productLineId, nextLookReasons(page.watch), at));
        for (const tenant of requesters) tenants.add(tenant);
      });
    }
    const refused = await storefront.send(messages);
    if (refused && refused.length > 0) logger.error('Storefront reads refused by the queue', { count: refused.length });
    const result = { reads: messages.length, due: due.length, early: early.length, tenants: tenants.size };
    logger.info('Storefront reads planned', { ...result, room });
    return result;
  };
