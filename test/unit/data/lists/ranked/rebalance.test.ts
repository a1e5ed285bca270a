import { jest } from '@jest/globals';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { nodePartition } from '../../../../../lambdas/data/table/keys.js';
import { addToNode, decodeNode, emptyNode, FIRST_BOUND, nodeItem, totalOf, type RankNode } from '../../../../../lambdas/data/lists/ranked/nodes.js';
import {
  BUCKET_MAX,
  BUCKET_TARGET,
  CHUNK_MAX,
  CHUNK_TARGET,
  rebalanceOrder,
  type EntryReader,
  type ListedEntry,
} from '../../../../../lambdas/data/lists/ranked/rebalance.js';
import { idKey } from '../../../../../lambdas/data/table/sort-keys.js';
import { FakeTable, TABLE } from '../../fake-table.js';

const ddb = mockClient(DynamoDBDocumentClient);
const BASE = { clientId: 'c1', tag: 'OL', order: 'id' };
const BUCKETS = nodePartition('c1', 'OL', 'id', 'b');
const CHUNKS = nodePartition('c1', 'OL', 'id', 'c');
const CELLS = ['own|high', 'other|low'];

let table: FakeTable;

/** Entries with ids `from`..`to`, alternating cells, competitor count id % 7. */
const entries = (from: number, to: number): ListedEntry[] =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ key: idKey(from + i), cell: CELLS[(from + i) % 2]!, g: (from + i) % 7 }));

const nodeOver = (lo: string, hi: string | undefined, members: readonly ListedEntry[], v = 3): RankNode => {
  const node = { ...emptyNode(lo, true, hi), q: '42', v };
  for (const entry of members) addToNode(node, entry.cell, entry.g, 1);
  return node;
};

/** Reads what the listing holds between the bounds, as the maintainer's reader does. */
const readerOver = (listed: readonly ListedEntry[]): EntryReader =>
  jest.fn<EntryReader>(async (lo, hi) => listed.filter((entry) => (lo === FIRST_BOUND || entry.key >= lo) && (hi === undefined || entry.key < hi)));

const stored = (pk: string) => table.partition(pk).map(decodeNode);
const sizes = (nodes: readonly RankNode[]) => nodes.map(totalOf);

/** Bounds chain from FIRST_BOUND to the end, and each node counts exactly the entries inside its bounds. */
const expectExact = (nodes: readonly RankNode[], listed: readonly ListedEntry[]) => {
  expect(nodes[0]?.lo).toBe(FIRST_BOUND);
  nodes.forEach((node, i) => expect(node.hi).toBe(nodes[i + 1]?.lo));
  for (const node of nodes) {
    const inside = listed.filter((entry) => (node.lo === FIRST_BOUND || entry.key >= node.lo) && (node.hi === undefined || entry.key < node.hi));
    const expected = nodeOver(node.lo, node.hi, inside);
    expect(Object.fromEntries(node.counts)).toEqual(Object.fromEntries([...expected.counts].filter(([, n]) => n > 0)));
    expect(Object.fromEntries([...node.hist!].map(([cell, values]) => [cell, Object.fromEntries(values)]))).toEqual(
      Object.fromEntries([...expected.hist!].map(([cell, values]) => [cell, Object.fromEntries(values)])),
    );
  }
};

beforeAll(() => {
  process.env.TABLE_NAME = TABLE;
});

beforeEach(() => {
  ddb.reset();
  table = new FakeTable().serve(ddb);
});

describe('rebalanceOrder', () => {
  it.each([
    [BUCKET_MAX + 1, [24, 24, 1]],
    [100, [24, 24, 24, 24, 4]],
  ])('splits a bucket of %p items into pieces of BUCKET_TARGET, with exact counts and bounds at its keys', async (count, expectedSizes) => {
    // Prepare: one chunk, one bucket holding every item
    const listed = entries(1, count);
    table.put(nodeItem(CHUNKS, nodeOver(FIRST_BOUND, undefined, listed)));
    table.put(nodeItem(BUCKETS, nodeOver(FIRST_BOUND, undefined, listed)));

    // Act
    await rebalanceOrder(BASE, [idKey(1)], readerOver(listed), true);

    // Assess
    const buckets = stored(BUCKETS);
    expect(sizes(buckets)).toEqual(expectedSizes);
    expect(buckets.slice(1).map((bucket) => bucket.lo)).toEqual(expectedSizes.slice(1).map((_, i) => idKey(1 + (i + 1) * BUCKET_TARGET)));
    expectExact(buckets, listed);
    expect(buckets.every((bucket) => bucket.q === '42')).toBe(true);
    expect(buckets[0]?.v).toBe(4);
    expectExact(stored(CHUNKS), listed);
  });

  it('splits a bucket far over its size in several passes, into pieces of BUCKET_TARGET', async () => {
    // Prepare: 1,200 items: more than one split makes (40 pieces)
    const listed = entries(1, 1_200);
    table.put(nodeItem(CHUNKS, nodeOver(FIRST_BOUND, undefined, listed)));
    table.put(nodeItem(BUCKETS, nodeOver(FIRST_BOUND, undefined, listed)));

    // Act
    await rebalanceOrder(BASE, [idKey(1)], readerOver(listed), true);

    // Assess
    const buckets = stored(BUCKETS);
    expect(sizes(buckets)).toEqual(Array.from({ length: 1_200 / BUCKET_TARGET }, () => BUCKET_TARGET));
    expectExact(buckets, listed);
  });

  it('leaves a bucket whose listing cannot confirm its counts for a later write', async () => {
    // Prepare
    const listed = entries(1, 60);
    table.put(nodeItem(CHUNKS, nodeOver(FIRST_BOUND, undefined, listed)));
    table.put(nodeItem(BUCKETS, nodeOver(FIRST_BOUND, undefined, listed)));
    const reader = jest.fn<EntryReader>(async () => undefined);

    // Act
    await rebalanceOrder(BASE, [idKey(1)], reader, true);

    // Assess
    expect(reader).toHaveBeenCalledWith(
      FIRST_BOUND,
      undefined,
      new Map([
        ['other|low', 30],
        ['own|high', 30],
      ]),
    );
    expect(sizes(stored(BUCKETS))).toEqual([60]);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('merges runs of small neighbours that fit in BUCKET_TARGET together, keeping the others', async () => {
    // Prepare: buckets of 5, 3, 4, 20 and 2 items
    const listed = entries(1, 34);
    const cuts = [1, 6, 9, 13, 33];
    cuts.forEach((first, i) => {
      const next = cuts[i + 1];
      const lo = i === 0 ? FIRST_BOUND : idKey(first);
      const hi = next === undefined ? undefined : idKey(next);
      table.put(
        nodeItem(
          BUCKETS,
          nodeOver(
            lo,
            hi,
            listed.filter((entry) => entry.key >= idKey(first) && (hi === undefined || entry.key < hi)),
          ),
        ),
      );
    });
    table.put(nodeItem(CHUNKS, nodeOver(FIRST_BOUND, undefined, listed)));
    const reader = readerOver(listed);

    // Act
    await rebalanceOrder(BASE, [idKey(2)], reader, true);

    // Assess: 5 + 3 + 4 merge (20 more would not fit), then 20 + 2
    const buckets = stored(BUCKETS);
    expect(sizes(buckets)).toEqual([12, 22]);
    expect(buckets[1]?.lo).toBe(idKey(13));
    expectExact(buckets, listed);
    expect(reader).not.toHaveBeenCalled();
  });

  it(`splits a chunk of more than CHUNK_MAX (${CHUNK_MAX}) buckets into chunks of CHUNK_TARGET (${CHUNK_TARGET}) buckets`, async () => {
    // Prepare: 130 full buckets of BUCKET_TARGET items (none can merge), in one chunk
    const count = 130;
    const listed = entries(1, count * BUCKET_TARGET);
    for (let b = 0; b < count; b++) {
      const lo = b === 0 ? FIRST_BOUND : idKey(1 + b * BUCKET_TARGET);
      const hi = b === count - 1 ? undefined : idKey(1 + (b + 1) * BUCKET_TARGET);
      table.put(nodeItem(BUCKETS, nodeOver(lo, hi, listed.slice(b * BUCKET_TARGET, (b + 1) * BUCKET_TARGET))));
    }
    table.put(nodeItem(CHUNKS, nodeOver(FIRST_BOUND, undefined, listed)));

    // Act
    await rebalanceOrder(BASE, [idKey(1)], readerOver(listed), true);

    // Assess
    const chunks = stored(CHUNKS);
    expect(sizes(chunks)).toEqual([64, 64, 2].map((buckets) => buckets * BUCKET_TARGET));
    expect(chunks.map((chunk) => chunk.lo)).toEqual([FIRST_BOUND, idKey(1 + 64 * BUCKET_TARGET), idKey(1 + 128 * BUCKET_TARGET)]);
    expectExact(chunks, listed);
    expect(stored(BUCKETS)).toHaveLength(count);
  });

  it('changes nothing when a node moved on meanwhile: the transaction is conditioned on the versions read', async () => {
    // Prepare: a bucket to split whose version changes between the read and the write
    const listed = entries(1, 60);
    table.put(nodeItem(CHUNKS, nodeOver(FIRST_BOUND, undefined, listed)));
    table.put(nodeItem(BUCKETS, nodeOver(FIRST_BOUND, undefined, listed)));
    const reader = jest.fn<EntryReader>(async () => {
      table.put(nodeItem(BUCKETS, nodeOver(FIRST_BOUND, undefined, listed, 9)));
      return listed;
    });

    // Act
    await rebalanceOrder(BASE, [idKey(1)], reader, true, 1);

    // Assess
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);
    expect(stored(BUCKETS).map((bucket) => [bucket.v, totalOf(bucket)])).toEqual([[9, 60]]);
  });

  it('writes nothing for an order that has no nodes yet', async () => {
    await rebalanceOrder(BASE, [idKey(1)], readerOver([]), true);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(table.items.size).toBe(0);
  });
});
