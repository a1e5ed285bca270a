import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import type { ListFilter } from './ranked-list.js';

/**
 * Rank nodes: the counts that make `meta.total` exact and let a page start anywhere without
 * reading what it skips. Each (entity, order) has two levels of nodes over the order's key
 * space: buckets of a few dozen items and chunks of up to a few hundred buckets. A node covers
 * the keys from `lo` (its sort key; FIRST_BOUND for the first) up to the next node's `lo`
 * (`hi`, absent for the last), and counts its items per cell (`n:<cell>` attributes, which
 * concurrent writers can ADD to) and, for entities with a histogram, per cell and value.
 * Every node is small (well under 1 KB), whatever the tenant's size.
 */
export const FIRST_BOUND = '-';
const COUNT_PREFIX = 'n:';

export interface RankNode {
  readonly lo: string;
  hi?: string;
  /** Items per cell. */
  counts: Map<string, number>;
  /** Items per cell and histogram value, when the entity has a histogram. */
  hist?: Map<string, Map<number, number>>;
  /** The change batch last applied to this node (idempotency of replayed batches). */
  q: string;
  /** Incremented by every write: the version conditional writes check. */
  v: number;
}

export const emptyNode = (lo: string, withHistogram: boolean, hi?: string): RankNode => ({
  lo,
  ...(hi === undefined ? {} : { hi }),
  counts: new Map(),
  ...(withHistogram ? { hist: new Map() } : {}),
  q: '',
  v: 0,
});

export const countAttribute = (cell: string) => `${COUNT_PREFIX}${cell}`;

/** Runs of more than this many absent values are written as one skip, not as zeros. */
const MAX_ZEROS = 3;

/**
 * `cell=min:c,c,c;...` in base 36, deflated: a chunk of thousands of items stays a few hundred
 * bytes. Consecutive values are counted densely; a longer gap between present values is one
 * `~gap` token, so a cell with far-apart values (0 and 1,000,000 competitors) stays as small and
 * as fast to read as any other.
 */
const encodeHistogram = (hist: Map<string, Map<number, number>>): Uint8Array => {
  const parts: string[] = [];
  for (const [cell, values] of [...hist].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const present = [...values].filter(([, n]) => n !== 0).sort(([a], [b]) => a - b);
    const [first] = present;
    if (first === undefined) continue;
    const tokens: string[] = [];
    let next = first[0];
    for (const [g, n] of present) {
      const gap = g - next;
      if (gap > MAX_ZEROS) tokens.push(`~${gap.toString(36)}`);
      else for (let i = 0; i < gap; i++) tokens.push('0');
      tokens.push(n.toString(36));
      next = g + 1;
    }
    parts.push(`${cell}=${first[0].toString(36)}:${tokens.join(',')}`);
  }
  return deflateRawSync(Buffer.from(parts.join(';'), 'utf8'));
};

const decodeHistogram = (bytes: Uint8Array): Map<string, Map<number, number>> => {
  const text = inflateRawSync(bytes).toString('utf8');
  const hist = new Map<string, Map<number, number>>();
  for (const part of text === '' ? [] : text.split(';')) {
    const [cell = '', rest = ''] = part.split('=');
    const [min = '0', counts = ''] = rest.split(':');
    let g = parseInt(min, 36);
    const values = new Map<number, number>();
    for (const token of counts.split(',')) {
      if (token.startsWith('~')) {
        g += parseInt(token.slice(1), 36);
        continue;
      }
      const n = parseInt(token, 36);
      if (n !== 0) values.set(g, n);
      g += 1;
    }
    hist.set(cell, values);
  }
  return hist;
};

export const decodeNode = (item: Record<string, NativeAttributeValue>): RankNode => {
  const counts = new Map<string, number>();
  for (const [name, value] of Object.entries(item)) {
    if (name.startsWith(COUNT_PREFIX) && typeof value === 'number') counts.set(name.slice(COUNT_PREFIX.length), value);
  }
  const h = item.h as Uint8Array | undefined;
  return {
    lo: String(item.sk),
    ...(typeof item.hi === 'string' ? { hi: item.hi } : {}),
    counts,
    ...(h instanceof Uint8Array ? { hist: decodeHistogram(h) } : {}),
    q: typeof item.q === 'string' ? item.q : '',
    v: typeof item.v === 'number' ? item.v : 0,
  };
};

/** The node as an item; cells counted zero are left out, so a node's size follows what it holds. */
export const nodeItem = (pk: string, node: RankNode): Record<string, NativeAttributeValue> => ({
  pk,
  sk: node.lo,
  entity: 'rankNode',
  ...(node.hi === undefined ? {} : { hi: node.hi }),
  ...Object.fromEntries([...node.counts].filter(([, n]) => n !== 0).map(([cell, n]) => [countAttribute(cell), n])),
  ...(node.hist === undefined ? {} : { h: encodeHistogram(node.hist) }),
  ...(node.q === '' ? {} : { q: node.q }),
  v: node.v,
});

export const totalOf = (node: RankNode): number => [...node.counts.values()].reduce((sum, n) => sum + n, 0);

export const filteredCount = (node: RankNode, filter: ListFilter): number => {
  let sum = 0;
  for (const [cell, n] of node.counts) {
    if (!filter.cells(cell)) continue;
    if (filter.gte === undefined) sum += n;
    else {
      if (!node.hist) throw new Error('A histogram filter on an entity without a histogram');
      for (const [g, count] of node.hist.get(cell) ?? []) if (g >= filter.gte) sum += count;
    }
  }
  return sum;
};

/** The node covering `key` in a list sorted by `lo` whose first node starts at FIRST_BOUND. */
export const nodeIndexOf = (nodes: readonly RankNode[], key: string): number => {
  let low = 0;
  let high = nodes.length - 1;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (nodes[mid]!.lo <= key) low = mid;
    else high = mid - 1;
  }
  return low;
};

/** Adds `d` items of `cell` (with histogram value `g`) to a node's counts. */
export const addToNode = (node: RankNode, cell: string, g: number | undefined, d: number): void => {
  node.counts.set(cell, (node.counts.get(cell) ?? 0) + d);
  if (node.hist && g !== undefined) {
    const values = node.hist.get(cell) ?? new Map<number, number>();
    values.set(g, (values.get(g) ?? 0) + d);
    node.hist.set(cell, values);
  }
};

export const copyNode = (node: RankNode): RankNode => ({
  ...node,
  counts: new Map(node.counts),
  ...(node.hist ? { hist: new Map([...node.hist].map(([cell, values]) => [cell, new Map(values)])) } : {}),
});

/** Adds every count of `from` into `into` (merging nodes, summing buckets into a chunk). */
export const addNode = (into: RankNode, from: RankNode): void => {
  for (const [cell, n] of from.counts) into.counts.set(cell, (into.counts.get(cell) ?? 0) + n);
  if (!into.hist || !from.hist) return;
  for (const [cell, values] of from.hist) {
    const target = into.hist.get(cell) ?? new Map<number, number>();
    for (const [g, n] of values) target.set(g, (target.get(g) ?? 0) + n);
    into.hist.set(cell, target);
  }
};
