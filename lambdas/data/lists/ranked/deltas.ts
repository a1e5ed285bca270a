import type { ListingPlace, RankedList } from './ranked-list.js';

/** One item entering (+1) or leaving (-1) the count of the node covering `key` in one order. */
export interface NodeDelta {
  readonly key: string;
  readonly cell: string;
  readonly g?: number;
  readonly d: 1 | -1;
}

const samePlace = (a: ListingPlace, b: ListingPlace, order: string) => a.keys[order] === b.keys[order] && a.cell === b.cell && a.g === b.g;

/** Per order, the count changes of an item moving from `before` to `after` (either may be absent). */
export const deltasOf = <S, R>(list: RankedList<S, R>, before: ListingPlace | undefined, after: ListingPlace | undefined): Map<string, NodeDelta[]> => {
  const deltas = new Map<string, NodeDelta[]>();
  for (const order of Object.keys(list.orders)) {
    if (before && after && samePlace(before, after, order)) continue;
    const moves: NodeDelta[] = [];
    if (before) moves.push({ key: before.keys[order]!, cell: before.cell, ...(before.g === undefined ? {} : { g: before.g }), d: -1 });
    if (after) moves.push({ key: after.keys[order]!, cell: after.cell, ...(after.g === undefined ? {} : { g: after.g }), d: 1 });
    deltas.set(order, moves);
  }
  return deltas;
};
