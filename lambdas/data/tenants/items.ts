import type { NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../table/concurrency.js';
import { directoryValues } from '../table/directory.js';
import { readPartition } from '../table/partition.js';
import { collectionsOf, COLLECTIONS, roleOfCollection, type CollectionName, type RankedListTag, type Scope } from '../table/entities.js';
import {
  connectionUidKey,
  listingPartition,
  nodePartition,
  priceChangePartition,
  productsDirectory,
  SLOT_SK_PREFIX,
  WEBHOOK_SK_PREFIX,
  productScope,
  type ItemKey,
} from '../table/keys.js';
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

export type { ItemKey };

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

/** The ranked lists by their tag in the registry: a new list there is a new line here before it compiles. */
const RANKED_LISTS: Readonly<Record<RankedListTag, ListPartitions>> = {
  OL: OFFER_LIST,
  RL: REPRICER_LIST,
  CL: PRICE_CHANGE_LIST,
  PCL: PRODUCT_PRICE_CHANGE_LIST,
};

/** The scopes of a tenant's collections that are named after one of its ids (the ids a pass finds in its data). */
type IdScope = Exclude<Scope, 'stage' | 'username' | 'listCell' | 'listNodes' | 'tenant'>;

/** Items read from one collection's partitions, with the collection they came from. */
interface Found {
  readonly collection: CollectionName;
  readonly items: readonly Item[];
}

export const findTenantItems = async (clientId: string, knownCodes: Iterable<string> = []): Promise<TenantItems> => {
  const reader = new TenantReader(clientId);
  const found: Found[] = [];
  const read = async (collection: CollectionName, pks: Iterable<string>): Promise<Item[]> => {
    const items = await reader.partitions(pks);
    found.push({ collection, items });
    return items;
  };
  /** Every collection of `scope` of the tenant (entities.ts), for each id: the items, by collection. */
  const readScope = async (scope: IdScope | 'tenant', ids: Iterable<string>): Promise<Map<CollectionName, Item[]>> => {
    const list = [...ids];
    const collections = collectionsOf(scope).filter((collection) => collection.partition !== undefined);
    return new Map(
      await Promise.all(
        collections.map(
          async (c) =>
            [
              c.name,
              await read(
                c.name,
                list.map((id) => c.partition!(clientId, id)),
              ),
            ] as const,
        ),
      ),
    );
  };
  /** A ranked list's node partitions (every order and level) and its listing partitions: the cells its nodes count and `cells`. */
  const readList = async (tag: RankedListTag, scope: string, cells: Iterable<string>): Promise<Item[]> => {
    const list = RANKED_LISTS[tag];
    const nodes = await reader.nodesOf(scope, list);
    found.push({ collection: listCollection(tag, 'listNodes'), items: nodes.items });
    const listings = await reader.listingsOf(scope, list, [...cells, ...nodes.cells]);
    found.push({ collection: listCollection(tag, 'listCell'), items: listings });
    return listings;
  };

  const repricerIds = new Set<string>();
  const offerCells = new Set<string>();
  // Codes an earlier pass found: the state recorded when an own offer was deleted lands after the
  // pass that deleted it, when nothing of the tenant names its product any more.
  const codes = new Set([...knownCodes, ...(await reader.productCodes())]);

  // The tenant's fixed partitions; offer lookups name the product of every offer the tenant ever had, and where it was listed.
  const fixed = await readScope('tenant', ['']);
  for (const lookup of fixed.get('offerLookups') ?? []) {
    if (typeof lookup.productCode === 'string') codes.add(lookup.productCode);
    if (typeof lookup.listedCell === 'string') offerCells.add(lookup.listedCell);
  }

  // The tenant-wide price-change list names the partition of every price change it lists.
  for (const listing of await readList('CL', clientId, PRICE_CHANGE_CELLS)) {
    const code = codeOfPriceChangePartition(clientId, originOfListing(listing)?.pk ?? '');
    if (code !== undefined) codes.add(code);
  }

  // Each product's partitions (entities.ts: the product, its price changes, its own offers' recorded states).
  const products = await readScope('product', codes);
  for (const item of products.get('product') ?? []) {
    if (String(item.sk).startsWith(SLOT_SK_PREFIX) && Number.isSafeInteger(Number(item.repricerId))) repricerIds.add(String(Number(item.repricerId)));
    if (item.entity === 'offer') tryOr(() => offerCells.add(OFFER_LIST.cellOf(storedOffer.parse(item))), undefined);
  }
  // The product's own price-change list beside them, in the cells its price changes name.
  const productCells = new Map<string, Set<string>>([...codes].map((code) => [code, new Set<string>()]));
  for (const item of products.get('priceChanges') ?? []) {
    const change = tryOr(() => storedPriceChange.parse(item).record, undefined);
    if (!change) continue;
    repricerIds.add(String(change.repricer_id));
    const code = codeOfPriceChangePartition(clientId, String(item.pk));
    const cells = code === undefined ? undefined : productCells.get(code);
    if (!cells) continue;
    cells.add(productChangeCell(change.repricer_id, legacyPriceChangeCell(change.reason)));
    cells.add(productChangeCell(change.repricer_id, priceChangeCell(change.status, change.reason)));
  }
  await mapLimit([...productCells], ([code, cells]) => readList('PCL', productScope(clientId, code), cells), PARALLEL_QUERIES);

  for (const listing of await readList('RL', clientId, [repricerCell(true), repricerCell(false)])) {
    const id = parseInt(String(listing.sk), 36);
    if (Number.isSafeInteger(id)) repricerIds.add(String(id));
  }
  await readList('OL', clientId, offerCells);

  // What the fixed partitions name: import jobs (their bodies), webhooks (their deliveries), connections (their events, and their uid lookups outside the tenant).
  const importIds = (fixed.get('imports') ?? []).map((job) => parseInt(String(job.sk), 36)).filter(Number.isSafeInteger);
  const webhookIds = (fixed.get('webhooks') ?? []).flatMap((item) =>
    String(item.sk).startsWith(WEBHOOK_SK_PREFIX) ? [Number(String(item.sk).slice(WEBHOOK_SK_PREFIX.length))] : [],
  );
  const connectionUids = (fixed.get('connections') ?? []).flatMap((item) => {
    const uid = (item.record as { uid?: unknown } | undefined)?.uid;
    return typeof uid === 'string' ? [uid] : [];
  });
  const ids: Record<IdScope, Iterable<string>> = {
    product: [],
    repricer: repricerIds,
    importJob: importIds.map(String),
    // Deliveries of webhooks deleted earlier are not named anywhere; they expire by TTL.
    webhook: webhookIds.filter(Number.isSafeInteger).map(String),
    connection: connectionUids,
    // Outside the tenant's keys: found by key, never read.
    connectionUid: [],
  };
  await Promise.all((['repricer', 'importJob', 'webhook', 'connection'] as const).map((scope) => readScope(scope, ids[scope])));
  const uidLookups = connectionUids.map((uid) => connectionUidKey(uid));

  const byRole = (role: 'canonical' | 'listing' | 'rankNode' | 'lookup') =>
    found.filter(({ collection }) => roleOfCollection(collection) === role).flatMap(({ items }) => items.map(keyOf));
  return {
    canonical: byRole('canonical'),
    listings: byRole('listing'),
    nodes: byRole('rankNode'),
    lookups: [...byRole('lookup'), ...uidLookups],
    read: reader.read,
    codes: [...codes],
  };
};

/** The registry's collection of a ranked list's listings or nodes. */
const listCollection = (tag: RankedListTag, scope: 'listCell' | 'listNodes'): CollectionName =>
  (Object.keys(COLLECTIONS) as CollectionName[]).find((name) => {
    const collection: { scope: Scope; list?: RankedListTag } = COLLECTIONS[name];
    return collection.scope === scope && collection.list === tag;
  })!;
