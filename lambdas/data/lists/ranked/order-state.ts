import { freshKey, type LoadedOrder } from './node-loader.js';
import { writeNodes, writeNodesUnconditionally, type Level, type NodeLocation, type NodeWrite } from './node-store.js';
import { addToNode, nodeIndexOf, totalOf, type RankNode } from './nodes.js';

/**
 * The nodes of one order as a write sees them: loaded, their counts changed in memory, then
 * written in one round, each write conditioned on the version it was read at (or on not
 * existing yet). Structural changes (splits, merges) are not made here but by rebalance.ts,
 * atomically.
 */
export class OrderState {
  private readonly changed = new Map<string, { level: Level; node: RankNode }>();
  private readonly created: Set<string>;
  /** Each node's `q` as read, before this batch marked it. */
  private readonly readQ = new Map<RankNode, string>();
  /** Net items added to each bucket by this batch. */
  private readonly net = new Map<RankNode, number>();

  constructor(
    readonly base: Omit<NodeLocation, 'level'>,
    readonly loaded: LoadedOrder,
  ) {
    this.created = new Set(loaded.fresh);
  }

  get chunks(): RankNode[] {
    return this.loaded.chunks;
  }

  bucketsOf(chunk: RankNode): RankNode[] {
    const buckets = this.loaded.buckets.get(chunk.lo);
    if (!buckets) throw new Error(`Buckets of chunk ${chunk.lo} were not loaded`);
    return buckets;
  }

  chunkOf(key: string): RankNode {
    return this.chunks[nodeIndexOf(this.chunks, key)]!;
  }

  bucketOf(key: string): RankNode {
    const buckets = this.bucketsOf(this.chunkOf(key));
    return buckets[nodeIndexOf(buckets, key)]!;
  }

  touch(level: Level, node: RankNode): void {
    this.changed.set(freshKey(level, node.lo), { level, node });
  }

  /** Counts one item in or out of the bucket and chunk covering its key, unless `seq` was applied there already. */
  add(key: string, cell: string, g: number | undefined, d: number, seq: string): void {
    for (const [level, node] of [
      ['c', this.chunkOf(key)],
      ['b', this.bucketOf(key)],
    ] as const) {
      if (!this.readQ.has(node)) this.readQ.set(node, node.q);
      // The batch was applied here already (a replay after a failure): FIFO delivers a batch
      // again only before any later one, so the last batch applied is the only one to check.
      if (seq !== '' && this.readQ.get(node) === seq) continue;
      addToNode(node, cell, g, d);
      if (level === 'b') this.net.set(node, (this.net.get(node) ?? 0) + d);
      if (seq !== '') node.q = seq;
      this.touch(level, node);
    }
  }

  /** Buckets this batch grew past `max`, or shrank below `min`: the ones to split or merge. */
  bucketsOutside(min: number, max: number): RankNode[] {
    return [...this.net].filter(([node, net]) => totalOf(node) > max || (net < 0 && totalOf(node) < min)).map(([node]) => node);
  }

  /**
   * Writes every changed node, each on its own: a count change is complete in one node, and a
   * replay skips the nodes that already have it (`q`). An `exclusive` writer (the only one for
   * this list and scope, as the list maintainer is for its tenant) writes them in batches; any
   * other conditions each on the version it read. Afterwards the in-memory versions match the
   * table.
   */
  async flush(exclusive: boolean): Promise<void> {
    await Promise.all(
      (['b', 'c'] as const).map((level) => {
        const writes: NodeWrite[] = [...this.changed]
          .filter(([, entry]) => entry.level === level)
          .map(([id, entry]) => ({ put: entry.node, expected: this.created.has(id) ? null : entry.node.v }));
        if (writes.length === 0) return Promise.resolve();
        return exclusive ? writeNodesUnconditionally({ ...this.base, level }, writes) : writeNodes({ ...this.base, level }, writes);
      }),
    );
    for (const [id, { node }] of this.changed) node.v = (this.created.has(id) ? 0 : node.v) + 1;
    this.changed.clear();
    this.created.clear();
  }
}
