import type { IndexDefinition } from '../../../config/table-schema.js';
import type { RecordCodec } from './record-codec.js';

/**
 * The declaration of a ranked entity: how its items are listed, counted and sorted. One
 * generic mechanism (this folder) builds, maintains and reads the lists of every entity
 * declared this way (docs/data-model.md).
 *
 * `S` is the canonical form the entity is derived from, `R` the API record a page returns.
 * Each item is listed once, in the listing partition of its cell (the values of the filters
 * that must not cost a read per skipped item, e.g. own/other seller and competitiveness);
 * a query reads the cells its filters select and merges them in the order's key.
 */
export interface RankOrder<S> {
  /** The item's key in this order: fixed width, ending with the id key, so ties break by id. */
  readonly keyOf: (source: S) => string;
  /** The listing GSI sorted by this order's key; none for the id order, which is the table's sk. */
  readonly index?: IndexDefinition;
  /** When keys start with the histogram value, the key every item with at least `value` sorts at or after. */
  readonly histogramPrefix?: (value: number) => string;
}

export interface RankedList<S, R> {
  readonly entity: string;
  /** Short tag of the entity's listing and node partitions. */
  readonly tag: string;
  /** The sort orders; `id` is required and has no index. */
  readonly orders: Readonly<Record<string, RankOrder<S>>>;
  readonly idOf: (source: S) => number;
  /** The cell an item is listed in: a string free of `#` (key parts are URI-encoded). */
  readonly cellOf: (source: S) => string;
  /** A small non-negative integer counted per cell in every node, for `<field>_gte` filters in any order. */
  readonly histogramOf?: (source: S) => number;
  readonly codec: RecordCodec<R>;
}

/** Which listed items a query wants: some cells, and optionally a histogram value of at least `gte`. */
export interface ListFilter {
  readonly cells: (cell: string) => boolean;
  readonly gte?: number;
}

/** The part of a listing item that decides where it is counted. */
export interface ListingPlace {
  readonly id: number;
  readonly cell: string;
  readonly g?: number;
  /** The item's key in each order. */
  readonly keys: Readonly<Record<string, string>>;
}

export const placeOf = <S>(list: RankedList<S, unknown>, source: S): ListingPlace => {
  const g = list.histogramOf?.(source);
  return {
    id: list.idOf(source),
    cell: list.cellOf(source),
    ...(g === undefined ? {} : { g }),
    keys: Object.fromEntries(Object.entries(list.orders).map(([name, order]) => [name, order.keyOf(source)])),
  };
};
