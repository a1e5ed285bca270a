import type { NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { mapLimit } from './concurrency.js';
import { directoryValues } from './directory.js';
import { readPartition } from './partition.js';
import {
  connectionPartition,
  senderPartition,
  connectionUidKey,
  deliveryPartition,
  importBodyKey,
  importsPartition,
  listingPartition,
  nodePartition,
  offerLookupPartition,
  offerStatePartition,
  priceChangePartition,
  productPartition,
  productsDirectory,
  rebuildKey,
  repricerKey,
  SLOT_SK_PREFIX,
  webhookPartition,
  WEBHOOK_SK_PREFIX,
  productScope,
} from './keys.js';
import { OFFER_LIST, storedOffer } from '../offers/list.js';
import {
  legacyPriceChangeCell,
  PRICE_CHANGE_CELLS,
  PRICE_CHANGE_LIST,
  priceChangeCell,
  PRODUCT_PRICE_CHANGE_LIST,
  productChangeCell,
  storedPriceChange,
} from '../price-changes/list.js';
import { originOfListing } from '../lists/ranked/listings.js';
import { decodeNode } from '../lists/ranked/nodes.js';
import { REPRICER_LIST, repricerCell } from '../repricers/list.js';

type Item = Record<string, NativeAttributeValue>;

/** What naming a ranked list's partitions takes: its tag and the names of its orders. */
interface ListPartitions {
  readonly tag: string;
  readonly orders: Readonly<Record<string, unknown>>;
}

export interface ItemKey {
  readonly pk: string;
  readonly sk: string;
}

/**
 * Every item of one tenant, found by Query alone from the tenant's own data
 * (docs/data-model.md), grouped in the order an account purge deletes them:
 * - `canonical`: what the client and the service wrote for it (products with their offers and
 *   repricer slots, repricers, price changes, import jobs and bodies, webhooks and their
 *   deliveries, rebuild requests): once these are gone, the list maintainer has nothing left
 *   to list, since it reads what an item became from the table;
 * - `listings`, then `nodes`: what the list maintainer derived, listings before the nodes that
 *   count them, so a maintainer that retries a count finds no listing to count;
 * - `lookups`: the offer lookups, which the maintainer updates while it places an offer, and
 *   the uid lookups of its marketplace connections (outside the tenant's keys).
 * Only the operator's account purge reads a tenant this way; request paths never do.
 */
export interface TenantItems {
  readonly canonical: readonly ItemKey[];
  readonly listings: readonly ItemKey[];
  readonly nodes: readonly ItemKey[];
  readonly lookups: readonly ItemKey[];
  /** Items the Queries read: what finding them cost. */
  readonly read: number;
  /** The product codes the items named: a later pass looks there again (own offer states come after their offers go). */
  readonly codes: readonly string[];
}

/** Queries at once: the purge shares DynamoDB with the service. */
const PARALLEL_QUERIES = 8;
const LEVELS = ['b', 'c'] as const;

const keyOf = (item: Item): ItemKey => ({ pk: String(item.pk), sk: String(item.sk) });

/** A value from the tenant's data that does not parse names nothing more; it is still deleted. */
const tryOr = <T>(read: () => T, fallback: T): T => {
  try {
    return read();
  } catch {
    return fallback;
  }
};

class TenantReader {
  read = 0;
  constructor(readonly clientId: string) {}

  /** Every item of one partition, read consistently. */
  async partition(pk: string): Promise<Item[]> {
    const items = await readPartition(pk);
    this.read += items.length;
    return items;
  }

  async partitions(pks: Iterable<string>): Promise<Item[]> {
    return (await mapLimit([...new Set(pks)], (pk) => this.partition(pk), PARALLEL_QUERIES)).flat();
  }

  /** The codes of the tenant's products, from the keys-only directory index. */
  async productCodes(): Promise<string[]> {
    const codes = await directoryValues(productsDirectory(this.clientId));
    this.read += codes.length;
    return codes;
  }

  /** A list's node items (every order and level) and the cells their counts name. */
  async nodesOf(scope: string, list: ListPartitions): Promise<{ items: Item[]; cells: Set<string> }> {
    const pks = Object.keys(list.orders).flatMap((order) => LEVELS.map((level) => nodePartition(scope, list.tag, order, level)));
    const items = await this.partitions(pks);
    const cells = new Set(items.flatMap((item) => tryOr(() => [...decodeNode(item).counts.keys()], [])));
    return { items, cells };
  }

  listingsOf(scope: string, list: ListPartitions, cells: Iterable<string>): Promise<Item[]> {
    return this.partitions([...cells].map((cell) => listingPartition(scope, list.tag, cell)));
  }
}

/** The product code a price-change partition is named after. */
const codeOfPriceChangePartition = (clientId: string, pk: string): string | undefined => {
  const prefix = priceChangePartition(clientId, '');
  return pk.startsWith(prefix) ? tryOr(() => decodeURIComponent(pk.slice(prefix.length)), undefined) : undefined;
};

export const findTenantItems = async (clientId: string, knownCodes: Iterable<string> = []): Promise<TenantItems> => {
  const reader = new TenantReader(clientId);
  const repricerIds = new Set<number>();
  const offerCells = new Set<string>();
  // Codes an earlier pass found: the state recorded when an own offer was deleted lands after the
  // pass that deleted it, when nothing of the tenant names its product any more.
  const codes = new Set([...knownCodes, ...(await reader.productCodes())]);

  // Offer lookups name the product of every offer the tenant ever had, and where it was listed.
  const lookups = await reader.partition(offerLookupPartition(clientId));
  for (const lookup of lookups) {
    if (typeof lookup.productCode === 'string') codes.add(lookup.productCode);
    if (typeof lookup.listedCell === 'string') offerCells.add(lookup.listedCell);
  }

  // The tenant-wide price-change list names the partition of every price change it lists.
  const changeNodes = await reader.nodesOf(clientId, PRICE_CHANGE_LIST);
  const changeListings = await reader.listingsOf(clientId, PRICE_CHANGE_LIST, [...PRICE_CHANGE_CELLS, ...changeNodes.cells]);
  for (const listing of changeListings) {
    const code = codeOfPriceChangePartition(clientId, originOfListing(listing)?.pk ?? '');
    if (code !== undefined) codes.add(code);
  }

  const products = await reader.partitions([...codes].map((code) => productPartition(clientId, code)));
  for (const item of products) {
    if (String(item.sk).startsWith(SLOT_SK_PREFIX) && Number.isSafeInteger(Number(item.repricerId))) repricerIds.add(Number(item.repricerId));
    if (item.entity === 'offer') tryOr(() => offerCells.add(OFFER_LIST.cellOf(storedOffer.parse(item))), undefined);
  }

  // Each product's price changes, and the product's own price-change list beside them; its own offers' recorded states.
  const scoped = await mapLimit(
    [...codes],
    async (code) => {
      const [states, changes] = await Promise.all([
        reader.partition(offerStatePartition(clientId, code)),
        reader.partition(priceChangePartition(clientId, code)),
      ]);
      const cells = new Set<string>();
      for (const item of changes) {
        const change = tryOr(() => storedPriceChange.parse(item).record, undefined);
        if (!change) continue;
        repricerIds.add(change.repricer_id);
        cells.add(productChangeCell(change.repricer_id, legacyPriceChangeCell(change.reason)));
        cells.add(productChangeCell(change.repricer_id, priceChangeCell(change.status, change.reason)));
      }
      const scope = productScope(clientId, code);
      const nodes = await reader.nodesOf(scope, PRODUCT_PRICE_CHANGE_LIST);
      const listings = await reader.listingsOf(scope, PRODUCT_PRICE_CHANGE_LIST, [...cells, ...nodes.cells]);
      return { changes, states, nodes: nodes.items, listings };
    },
    PARALLEL_QUERIES,
  );

  const repricerNodes = await reader.nodesOf(clientId, REPRICER_LIST);
  const repricerListings = await reader.listingsOf(clientId, REPRICER_LIST, [repricerCell(true), repricerCell(false), ...repricerNodes.cells]);
  for (const listing of repricerListings) {
    const id = parseInt(String(listing.sk), 36);
    if (Number.isSafeInteger(id)) repricerIds.add(id);
  }
  const repricers = await reader.partitions([...repricerIds].map((id) => repricerKey(clientId, id).pk));

  const offerNodes = await reader.nodesOf(clientId, OFFER_LIST);
  const offerListings = await reader.listingsOf(clientId, OFFER_LIST, [...offerCells, ...offerNodes.cells]);

  const [imports, webhooks, rebuilds, connections, sender] = await Promise.all([
    reader.partition(importsPartition(clientId)),
    reader.partition(webhookPartition(clientId)),
    reader.partition(rebuildKey(clientId, '').pk),
    reader.partition(connectionPartition(clientId)),
    reader.partition(senderPartition(clientId)),
  ]);
  // A connection's uid lookup sits outside the tenant (the marketplace-events route reads it by
  // uid alone): the connection names it.
  const connectionUids = connections.flatMap((item) => {
    const uid = (item.record as { uid?: unknown } | undefined)?.uid;
    return typeof uid === 'string' ? [connectionUidKey(uid)] : [];
  });
  const importIds = imports.map((job) => parseInt(String(job.sk), 36)).filter(Number.isSafeInteger);
  const importBodies = await reader.partitions(importIds.map((id) => importBodyKey(clientId, id, 0).pk));
  const webhookIds = webhooks.flatMap((item) =>
    String(item.sk).startsWith(WEBHOOK_SK_PREFIX) ? [Number(String(item.sk).slice(WEBHOOK_SK_PREFIX.length))] : [],
  );
  // Deliveries of webhooks deleted earlier are not named anywhere; they expire by TTL.
  const deliveries = await reader.partitions(webhookIds.filter(Number.isSafeInteger).map((id) => deliveryPartition(clientId, id)));

  return {
    canonical: [
      ...products,
      ...scoped.flatMap((product) => [...product.changes, ...product.states]),
      ...repricers,
      ...imports,
      ...importBodies,
      ...webhooks,
      ...deliveries,
      ...rebuilds,
      ...connections,
      ...sender,
    ].map(keyOf),
    listings: [...changeListings, ...scoped.flatMap((product) => product.listings), ...repricerListings, ...offerListings].map(keyOf),
    nodes: [...changeNodes.items, ...scoped.flatMap((product) => product.nodes), ...repricerNodes.items, ...offerNodes.items].map(keyOf),
    lookups: [...lookups.map(keyOf), ...connectionUids],
    read: reader.read,
    codes: [...codes],
  };
};
