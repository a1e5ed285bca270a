import type { ReadPlannerSettings } from '../../config/read-planner.js';
import { readUse, type DueRead, type ReadUse } from './due-read.js';
import { initialFairShare, selectFairly, type FairShareState, type Lane } from './fair-share.js';
import { MinHeap } from './min-heap.js';
import { urgencyKey } from './next-look.js';
import {
  afterLook,
  broughtForward,
  lookRequesters,
  newWatch,
  nextLookAt,
  nextLookReasons,
  withoutWatcher,
  withWatcher,
  type LookOutcome,
  type VariantWatch,
  type Watcher,
} from './watch-state.js';

/**
 * The planner over a set of watched variants, in memory: the due index (variants by next look),
 * each tenant's lane of due looks, the fair share between the lanes, and the looks queued for
 * the readers. No I/O: the caller brings the clock, the changes (watchers, events, syncs) and
 * what each read saw. Stored, the due index is a time-ordered table index and the lanes are
 * built per planning run (docs/market-loop.md); the simulation (tools/bench/planner-sim.ts)
 * runs this code as it is.
 */
type Stage = 'waiting' | 'due' | 'queued';

interface Entry {
  watch: VariantWatch;
  stage: Stage;
  /** Bumped on every release to the lanes, so lane entries of an earlier release are dead. */
  epoch: number;
  /** Who shares the cost of the look released to the lanes. */
  requesters: readonly string[];
}

interface LaneEntry {
  readonly variant: string;
  readonly epoch: number;
  readonly requesters: readonly string[];
}

export interface PlanResult {
  /** Looks admitted to the readers' queue, in order. */
  readonly reads: DueRead[];
  /** The requesters of every look released to the lanes by this run (what each tenant asked for). */
  readonly released: (readonly string[])[];
  /** Of `reads`, how many were taken early from spare budget (nothing else was due); their requesters are in `released` too. */
  readonly early: number;
}

export interface ReadPlanner {
  watch(variant: string, watcher: Watcher, now: number): void;
  unwatch(variant: string, tenant: string): void;
  bringForward(variant: string, reason: 'event' | 'sync', tenant: string, now: number): void;
  /** Releases what is due, then takes up to `room` looks: fairly from the lanes, then early ones from spare budget. */
  plan(now: number, room: number): PlanResult;
  /** Whether a queued read is still worth its request; one that is not is dropped and its page planned again. */
  use(read: DueRead): ReadUse;
  dropped(read: DueRead, now: number): void;
  /** The queued read of a page as it stands (reasons and tenants merged into it since it was queued). */
  queued(variant: string): DueRead | undefined;
  looked(variant: string, outcome: LookOutcome): void;
  /** Tenants with looks due that the budget has not reached yet. */
  backlogged(): string[];
  get(variant: string): VariantWatch | undefined;
}

export const createReadPlanner = (settings: ReadPlannerSettings, weight: (tenant: string) => number): ReadPlanner => {
  const entries = new Map<string, Entry>();
  const due = new MinHeap<string>();
  const lanes = new Map<string, MinHeap<LaneEntry>>();
  const laneOrder: string[] = [];
  const queued = new Map<string, DueRead>();
  let fairShare: FairShareState = initialFairShare;
  const floorMs = settings.floorSeconds * 1000;

  const schedule = (entry: Entry) => {
    if (entry.stage === 'waiting') due.push(nextLookAt(entry.watch), entry.watch.variant);
  };
  /**
   * Each tenant's pages by their last look, oldest first: where spare budget goes, shared by
   * the fair share, so a tenant's catalogue size never takes another's spare. Dead entries are
   * skipped; a tenant's heap is rebuilt when they outnumber its live ones.
   */
  const stalest = new Map<string, MinHeap<string>>();
  const watchedBy = new Map<string, number>();
  const lookedAt = (entry: Entry) => {
    const key = entry.watch.lastLookAt ?? -Infinity;
    for (const { tenant } of entry.watch.watchers) {
      let heap = stalest.get(tenant);
      if (heap === undefined) stalest.set(tenant, (heap = new MinHeap<string>()));
      heap.push(key, entry.watch.variant);
    }
  };
  const spareLane = (tenant: string, now: number): Lane<LaneEntry> | undefined => {
    const heap = stalest.get(tenant);
    if (heap === undefined) return undefined;
    const live = () => {
      for (;;) {
        const variant = heap.peek();
        if (variant === undefined) return undefined;
        const entry = entries.get(variant);
        const key = heap.peekKey()!;
        if (
          entry !== undefined &&
          entry.stage === 'waiting' &&
          (entry.watch.lastLookAt ?? -Infinity) === key &&
          entry.watch.watchers.some((w) => w.tenant === tenant)
        ) {
          // Oldest first: when the oldest is within the floor, so is every other.
          return key + floorMs > now ? undefined : entry;
        }
        heap.pop();
      }
    };
    return {
      peek: () => {
        const entry = live();
        return entry === undefined ? undefined : { variant: entry.watch.variant, epoch: entry.epoch, requesters: entry.watch.watchers.map((w) => w.tenant) };
      },
      pop: () => {
        heap.pop();
        return undefined;
      },
    };
  };
  const compactStalest = () => {
    let total = 0;
    for (const heap of stalest.values()) total += heap.size;
    let watches = 0;
    for (const count of watchedBy.values()) watches += count;
    if (total <= 4 * watches + 1_024) return;
    stalest.clear();
    for (const entry of entries.values()) lookedAt(entry);
  };
  const liveLaneEntry = (item: LaneEntry): boolean => {
    const entry = entries.get(item.variant);
    return entry !== undefined && entry.stage === 'due' && entry.epoch === item.epoch;
  };
  const laneOf = (tenant: string): MinHeap<LaneEntry> => {
    let lane = lanes.get(tenant);
    if (lane === undefined) {
      lane = new MinHeap<LaneEntry>();
      lanes.set(tenant, lane);
      laneOrder.push(tenant);
    }
    return lane;
  };
  const laneView = (heap: MinHeap<LaneEntry>): Lane<LaneEntry> => ({
    peek: () => {
      while (heap.size > 0 && !liveLaneEntry(heap.peek()!)) heap.pop();
      return heap.peek();
    },
    pop: () => heap.pop(),
  });
  const views = new Map<string, Lane<LaneEntry>>();
  const viewOf = (tenant: string): Lane<LaneEntry> | undefined => {
    const heap = lanes.get(tenant);
    if (heap === undefined) return undefined;
    let view = views.get(tenant);
    if (view === undefined) views.set(tenant, (view = laneView(heap)));
    return view;
  };
  const release = (entry: Entry, now: number, requesters: readonly string[] = lookRequesters(entry.watch, now)) => {
    entry.stage = 'due';
    entry.epoch += 1;
    entry.requesters = requesters;
    const key = urgencyKey(entry.watch);
    const item: LaneEntry = { variant: entry.watch.variant, epoch: entry.epoch, requesters: entry.requesters };
    for (const tenant of entry.requesters) laneOf(tenant).push(key, item);
  };
  const enqueue = (entry: Entry, now: number, requesters: readonly string[]): DueRead => {
    entry.stage = 'queued';
    const read: DueRead = { variant: entry.watch.variant, reasons: nextLookReasons(entry.watch), requesters, queuedAt: now };
    queued.set(read.variant, read);
    return read;
  };

  return {
    watch(variant, watcher, now) {
      laneOf(watcher.tenant);
      const entry = entries.get(variant);
      if (entry === undefined || !entry.watch.watchers.some((w) => w.tenant === watcher.tenant))
        watchedBy.set(watcher.tenant, (watchedBy.get(watcher.tenant) ?? 0) + 1);
      if (entry === undefined) {
        const created: Entry = { watch: newWatch(variant, [watcher], now), stage: 'waiting', epoch: 0, requesters: [] };
        entries.set(variant, created);
        schedule(created);
        lookedAt(created);
        return;
      }
      const before = nextLookAt(entry.watch);
      entry.watch = withWatcher(entry.watch, watcher, settings);
      if (nextLookAt(entry.watch) < before) schedule(entry);
    },
    unwatch(variant, tenant) {
      const entry = entries.get(variant);
      if (entry === undefined) return;
      if (entry.watch.watchers.some((w) => w.tenant === tenant)) watchedBy.set(tenant, (watchedBy.get(tenant) ?? 1) - 1);
      entry.watch = withoutWatcher(entry.watch, tenant, settings);
      if (entry.watch.watchers.length === 0 && entry.stage !== 'queued') entries.delete(variant);
      else schedule(entry);
    },
    bringForward(variant, reason, tenant, now) {
      const entry = entries.get(variant);
      if (entry === undefined || !entry.watch.watchers.some((w) => w.tenant === tenant)) return;
      entry.watch = broughtForward(entry.watch, { reason, tenant, at: now }, settings);
      if (entry.stage === 'queued') {
        // Merged into the read already queued: one page, one read.
        const read = queued.get(variant)!;
        queued.set(variant, { ...read, requesters: read.requesters.includes(tenant) ? read.requesters : [...read.requesters, tenant] });
      } else if (entry.stage === 'due') {
        if (!entry.requesters.includes(tenant)) {
          entry.requesters = [...entry.requesters, tenant];
          laneOf(tenant).push(urgencyKey(entry.watch), { variant, epoch: entry.epoch, requesters: entry.requesters });
        }
      } else schedule(entry);
    },
    plan(now, room) {
      const released: (readonly string[])[] = [];
      while (due.size > 0 && due.peekKey()! <= now) {
        const key = due.peekKey()!;
        const variant = due.pop()!;
        const entry = entries.get(variant);
        if (entry === undefined || entry.stage !== 'waiting' || nextLookAt(entry.watch) !== key) continue;
        release(entry, now);
        released.push(entry.requesters);
      }
      const reads: DueRead[] = [];
      const taken = (item: LaneEntry) => reads.push(enqueue(entries.get(item.variant)!, now, item.requesters));
      fairShare = selectFairly(fairShare, { tenants: laneOrder, lane: viewOf, weight, room, taken }).state;
      let early = 0;
      if (reads.length < room) {
        // Spare budget (the fair share stops short of the room only when every lane is empty):
        // the pages looked at longest ago are released early, never within the floor of their
        // last look, and shared out by the same fair share, so no tenant's catalogue takes the
        // spare of another.
        const before = reads.length;
        const takenEarly = (item: LaneEntry) => {
          const entry = entries.get(item.variant)!;
          released.push(item.requesters);
          reads.push(enqueue(entry, now, item.requesters));
        };
        fairShare = selectFairly(fairShare, {
          tenants: laneOrder,
          lane: (tenant) => spareLane(tenant, now),
          weight,
          room: room - reads.length,
          taken: takenEarly,
        }).state;
        if (now % 60_000 < 1_000) compactStalest();
        early = reads.length - before;
      }
      return { reads, released, early };
    },
    use(read) {
      return readUse(read, entries.get(read.variant)?.watch);
    },
    dropped(read, _now) {
      queued.delete(read.variant);
      const entry = entries.get(read.variant);
      if (entry === undefined) return;
      entry.stage = 'waiting';
      if (entry.watch.watchers.length === 0) entries.delete(read.variant);
      else {
        schedule(entry);
        lookedAt(entry);
      }
    },
    queued(variant) {
      return queued.get(variant);
    },
    looked(variant, outcome) {
      queued.delete(variant);
      const entry = entries.get(variant);
      if (entry === undefined) return;
      entry.watch = afterLook(entry.watch, outcome, settings);
      entry.stage = 'waiting';
      schedule(entry);
      lookedAt(entry);
    },
    backlogged() {
      return laneOrder.filter((tenant) => viewOf(tenant)?.peek() !== undefined);
    },
    get(variant) {
      return entries.get(variant)?.watch;
    },
  };
};
