/**
 * Fair shares of the read budget across tenants: deficit round robin. Each tenant with looks
 * due has a lane (its due looks, most urgent first); on its turn it earns its weight in reads
 * and takes looks while its deficit covers them. A look several tenants asked for costs each of
 * them an equal share (charged to all of them, whoever's turn took it), so a page sold by many
 * is cheap for each, and a tenant's exclusive pages compete only against its own share.
 * The deficits and the turn are the state, in and out; the lanes are read through `Lane`.
 */
export interface FairShareState {
  readonly deficits: ReadonlyMap<string, number>;
  /** The tenant whose turn was last: the next call starts after it, or with it when its turn was cut short by the room. */
  readonly last: string | null;
  readonly unfinished: boolean;
}

export const initialFairShare: FairShareState = { deficits: new Map(), last: null, unfinished: false };

/** A look due, as the lanes hold it: who shares its cost. */
export interface LaneItem {
  readonly requesters: readonly string[];
}

/** A tenant's due looks, most urgent first (dead entries skipped by the lane itself). */
export interface Lane<T extends LaneItem> {
  peek(): T | undefined;
  pop(): T | undefined;
}

export interface FairShareInput<T extends LaneItem> {
  /** Tenants in their round-robin order (a stable order). */
  readonly tenants: readonly string[];
  readonly lane: (tenant: string) => Lane<T> | undefined;
  /** A tenant's weight (its plan's), above 0. */
  readonly weight: (tenant: string) => number;
  /** How many looks to take at most. */
  readonly room: number;
  /** Told of each look as it is taken, so the other lanes holding it see it gone before their turn. */
  readonly taken?: (item: T) => void;
}

const startAt = (tenants: readonly string[], state: FairShareState): number => {
  if (state.last === null) return 0;
  const at = tenants.indexOf(state.last);
  return at === -1 ? 0 : state.unfinished ? at : (at + 1) % tenants.length;
};

export const selectFairly = <T extends LaneItem>(state: FairShareState, input: FairShareInput<T>): { readonly state: FairShareState; readonly picked: T[] } => {
  const deficits = new Map(state.deficits);
  const picked: T[] = [];
  if (input.room <= 0 || input.tenants.length === 0) return { state, picked };
  const first = startAt(input.tenants, state);
  let active = [...input.tenants.slice(first), ...input.tenants.slice(0, first)].filter((t) => input.lane(t)?.peek() !== undefined);
  let last = state.last;
  let unfinished = false;
  // A turn the room cut short goes on without a new quantum.
  let resumed = state.unfinished ? state.last : null;
  const idle = new Set(input.tenants);
  for (const t of active) idle.delete(t);
  for (const t of idle) deficits.delete(t);
  while (picked.length < input.room && active.length > 0) {
    const still: string[] = [];
    for (const tenant of active) {
      if (picked.length >= input.room) {
        still.push(tenant);
        continue;
      }
      const lane = input.lane(tenant)!;
      const weight = input.weight(tenant);
      if (!(weight > 0)) throw new RangeError(`tenant ${tenant} has weight ${weight}`);
      let deficit = (deficits.get(tenant) ?? 0) + (resumed === tenant ? 0 : weight);
      resumed = null;
      last = tenant;
      for (let item = lane.peek(); item !== undefined && picked.length < input.room; item = lane.peek()) {
        const share = 1 / Math.max(1, item.requesters.length);
        if (share > deficit) break;
        lane.pop();
        picked.push(item);
        input.taken?.(item);
        deficit -= share;
        for (const other of item.requesters) if (other !== tenant) deficits.set(other, (deficits.get(other) ?? 0) - share);
      }
      const next = lane.peek();
      if (next === undefined) deficits.delete(tenant);
      else {
        deficits.set(tenant, deficit);
        still.push(tenant);
        unfinished = picked.length >= input.room && 1 / Math.max(1, next.requesters.length) <= deficit;
      }
    }
    active = still;
  }
  return { state: { deficits, last, unfinished }, picked };
};
