/**
 * How one sort order of one family of ranked views (offer views, repricer views) is stored:
 * the rank-directory code reads and maintains any order described this way.
 */
export interface SortStorage {
  /** Where pages are read: the table itself (id) or a GSI projecting whole items. */
  readonly pageIndex?: string;
  readonly pageAttribute: string;
  /** The keys-only LSI holding the same order, read consistently to count and step. */
  readonly rankIndex: string;
  readonly rankAttribute: string;
}

/** A type, not an interface, so it passes where a record of strings is expected. */
export type TableKey = { readonly pk: string; readonly sk: string };

export interface RankOrder {
  readonly storage: SortStorage;
  /** The partition holding a view's items. */
  readonly viewPartition: (clientId: string, view: string) => string;
  /** The item holding a view's directory in this order. */
  readonly directoryKey: (clientId: string, view: string) => TableKey;
  /** Set when the directory also counts keys per prefix (e.g. per competitor count). */
  readonly histogramPrefix?: (key: string) => string;
}
