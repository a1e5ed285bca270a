import { addToNode, emptyNode, FIRST_BOUND, type RankNode } from '../../lambdas/data/lists/ranked/nodes.js';
import type { ListingPlace, RankedList } from '../../lambdas/data/lists/ranked/ranked-list.js';

/**
 * What is wrong with a ranked list's nodes, compared with a recount of its listing items:
 * per order, each level's bounds must chain from FIRST_BOUND to the end, every chunk must
 * start where a bucket starts, and every node must count exactly the listed items inside its
 * bounds, per cell and (with a histogram) per value. An empty array means the nodes are exact.
 */
export interface OrderNodes {
  readonly buckets: readonly RankNode[];
  readonly chunks: readonly RankNode[];
}

const inside = (node: RankNode, key: string) => (node.lo === FIRST_BOUND || key >= node.lo) && (node.hi === undefined || key < node.hi);

const countsText = (node: RankNode) =>
  JSON.stringify([
    [...node.counts].filter(([, n]) => n !== 0).sort(),
    node.hist
      ? [...node.hist]
          .map(([cell, values]) => [cell, [...values].filter(([, n]) => n !== 0).sort((a, b) => a[0] - b[0])] as const)
          .filter(([, values]) => values.length > 0)
          .sort()
      : null,
  ]);

export const nodeDiscrepancies = <S, R>(list: RankedList<S, R>, places: readonly ListingPlace[], nodes: ReadonlyMap<string, OrderNodes>): string[] => {
  const problems: string[] = [];
  const withHistogram = list.histogramOf !== undefined;
  for (const order of Object.keys(list.orders)) {
    const { buckets = [], chunks = [] } = nodes.get(order) ?? {};
    for (const [level, levelNodes] of [
      ['bucket', buckets],
      ['chunk', chunks],
    ] as const) {
      if (levelNodes.length === 0) {
        if (places.length > 0) problems.push(`${order}: no ${level} counts ${places.length} listed items`);
        continue;
      }
      if (levelNodes[0]!.lo !== FIRST_BOUND) problems.push(`${order}: the first ${level} starts at ${levelNodes[0]!.lo}`);
      levelNodes.forEach((node, i) => {
        const next = levelNodes[i + 1];
        if (node.hi !== next?.lo) problems.push(`${order}: ${level} ${node.lo} ends at ${node.hi}, the next starts at ${next?.lo}`);
        const expected = emptyNode(node.lo, withHistogram, node.hi);
        for (const place of places) if (inside(node, place.keys[order]!)) addToNode(expected, place.cell, place.g, 1);
        if (countsText(node) !== countsText(expected))
          problems.push(`${order}: ${level} ${node.lo} counts ${countsText(node)}, the listing ${countsText(expected)}`);
      });
    }
    const bucketLos = new Set(buckets.map((bucket) => bucket.lo));
    for (const chunk of chunks) if (!bucketLos.has(chunk.lo)) problems.push(`${order}: chunk ${chunk.lo} starts inside a bucket`);
  }
  return problems;
};
