import type { DynamoDBRecord } from 'aws-lambda';
import { nativeImage, recordKey } from './stream-images.js';
import { writeUnitsOf } from './write-units.js';

/**
 * Write units counted from what was actually written: every record of the table's change
 * stream is one item write, with its images before and after (write-units.ts prices it). The
 * stream does not say whether a write was part of a transaction, so the keys written by
 * committed TransactWriteItems calls are noted as the calls return, and that many records of
 * each such key are counted twice when a measurement closes (its records have all arrived by
 * then: the caller settles the stream before closing).
 */
export const ITEM_KINDS = [
  'offer',
  'offerLookup',
  'offerListing',
  'offerNode',
  'product',
  'repricer',
  'repricerSlot',
  'repricerListing',
  'repricerNode',
  'priceChange',
  'decision',
  'priceChangeListing',
  'priceChangeNode',
  'counter',
  'other',
] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

export const KIND_LABELS: Record<ItemKind, string> = {
  offer: 'canonical offer',
  offerLookup: 'offer lookup',
  offerListing: 'offer listing',
  offerNode: 'offer rank node',
  product: 'product',
  repricer: 'canonical repricer',
  repricerSlot: 'repricer slot',
  repricerListing: 'repricer listing',
  repricerNode: 'repricer rank node',
  priceChange: 'price change',
  decision: 'decision state',
  priceChangeListing: 'price change listing',
  priceChangeNode: 'price change rank node',
  counter: 'id counter',
  other: 'other',
};

export interface KindUnits {
  /** Item writes (stream records). */
  writes: number;
  /** Of which inside a transaction. */
  transactional: number;
  table: number;
  indexes: number;
}

export interface WriteTally {
  readonly byKind: Partial<Record<ItemKind, KindUnits>>;
  readonly writes: number;
  readonly table: number;
  readonly indexes: number;
  readonly total: number;
}

/** Entities named otherwise than their kind. */
const KIND_OF_ENTITY: Readonly<Record<string, ItemKind>> = {
  repricerDecision: 'decision',
  productPriceChangeListing: 'priceChangeListing',
};

const kindOf = (pk: string, entity: unknown): ItemKind => {
  if (pk.startsWith('COUNTER#')) return 'counter';
  // Node partitions are named by their list's tag: RL repricers, CL and PCL price changes, OL offers.
  if (entity === 'rankNode') return /#RLN#/.test(pk) ? 'repricerNode' : /#P?CLN#/.test(pk) ? 'priceChangeNode' : 'offerNode';
  if (typeof entity === 'string' && KIND_OF_ENTITY[entity]) return KIND_OF_ENTITY[entity];
  if (typeof entity === 'string' && (ITEM_KINDS as readonly string[]).includes(entity)) return entity as ItemKind;
  return 'other';
};

interface Seen {
  readonly kind: ItemKind;
  readonly table: number;
  readonly indexes: number;
}

export const emptyTally = (): WriteTally => ({ byKind: {}, writes: 0, table: 0, indexes: 0, total: 0 });

export const addTallies = (...tallies: readonly WriteTally[]): WriteTally => {
  const byKind: Partial<Record<ItemKind, KindUnits>> = {};
  for (const tally of tallies) {
    for (const [kind, units] of Object.entries(tally.byKind) as [ItemKind, KindUnits][]) {
      const into = (byKind[kind] ??= { writes: 0, transactional: 0, table: 0, indexes: 0 });
      into.writes += units.writes;
      into.transactional += units.transactional;
      into.table += units.table;
      into.indexes += units.indexes;
    }
  }
  const sum = (f: (t: WriteTally) => number) => tallies.reduce((s, t) => s + f(t), 0);
  return { byKind, writes: sum((t) => t.writes), table: sum((t) => t.table), indexes: sum((t) => t.indexes), total: sum((t) => t.total) };
};

/** The part of a tally written to the given kinds of item. */
export const tallyOf = (tally: WriteTally, kinds: readonly ItemKind[], exclude = false): WriteTally => {
  const byKind = Object.fromEntries(Object.entries(tally.byKind).filter(([kind]) => kinds.includes(kind as ItemKind) !== exclude));
  const sum = (field: 'writes' | 'table' | 'indexes') => Object.values(byKind).reduce((s, u) => s + u[field], 0);
  const table = sum('table');
  const indexes = sum('indexes');
  return { byKind, writes: sum('writes'), table, indexes, total: table + indexes };
};

/** A tally divided by `n` (units per operation). */
export const perOperation = (tally: WriteTally, n: number): WriteTally => ({
  byKind: Object.fromEntries(
    Object.entries(tally.byKind).map(([kind, u]) => [
      kind,
      { writes: u.writes / n, transactional: u.transactional / n, table: u.table / n, indexes: u.indexes / n },
    ]),
  ),
  writes: tally.writes / n,
  table: tally.table / n,
  indexes: tally.indexes / n,
  total: tally.total / n,
});

export class WriteMeter {
  private open = false;
  private seen = new Map<string, Seen[]>();
  private transactional = new Map<string, number>();
  /** Records that arrived while no measurement was open (a sign of work leaking between measurements). */
  stray = 0;
  /** Records of each kind seen by the open measurement so far (for progress reports). */
  readonly live = new Map<ItemKind, number>();

  /** The keys of a committed TransactWriteItems call. */
  noteTransaction(keys: readonly string[]): void {
    if (!this.open) return;
    for (const key of keys) this.transactional.set(key, (this.transactional.get(key) ?? 0) + 1);
  }

  readonly onRecords = (records: readonly DynamoDBRecord[]): void => {
    for (const record of records) {
      if (!this.open) {
        this.stray += 1;
        continue;
      }
      const stream = record.dynamodb;
      const before = nativeImage(stream?.OldImage);
      const after = nativeImage(stream?.NewImage);
      const key = recordKey(stream?.Keys);
      const { table, indexes } = writeUnitsOf(before, after);
      const seen = this.seen.get(key) ?? [];
      const kind = kindOf(stream?.Keys?.pk?.S ?? '', (after ?? before)?.entity);
      seen.push({ kind, table, indexes });
      this.live.set(kind, (this.live.get(kind) ?? 0) + 1);
      this.seen.set(key, seen);
    }
  };

  begin(): void {
    if (this.open) throw new Error('A write measurement is already open');
    this.open = true;
    this.live.clear();
    this.seen = new Map();
    this.transactional = new Map();
  }

  /** Closes the measurement; every record of its writes must have been delivered (settle first). */
  end(): WriteTally {
    this.open = false;
    const byKind: Partial<Record<ItemKind, KindUnits>> = {};
    let writes = 0;
    let table = 0;
    let indexes = 0;
    for (const [key, seen] of this.seen) {
      // The last writes of a key are the likelier transactional ones (splits come after counts).
      const doubled = Math.min(seen.length, this.transactional.get(key) ?? 0);
      seen.forEach((write, i) => {
        const factor = i >= seen.length - doubled ? 2 : 1;
        const units = (byKind[write.kind] ??= { writes: 0, transactional: 0, table: 0, indexes: 0 });
        units.writes += 1;
        units.transactional += factor - 1;
        units.table += write.table * factor;
        units.indexes += write.indexes * factor;
        writes += 1;
        table += write.table * factor;
        indexes += write.indexes * factor;
      });
    }
    this.seen = new Map();
    this.transactional = new Map();
    return { byKind, writes, table, indexes, total: table + indexes };
  }
}
