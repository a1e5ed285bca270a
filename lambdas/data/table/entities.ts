import { DIRECTORY_INDEX, DUE_INDEX, LISTING_INDEXES, PRICE_CHANGE_FEED_INDEX } from '../../config/table-schema.js';
import * as keys from './keys.js';

/**
 * Every kind of item the table stores, in one registry: its key shape, the partition it lives in,
 * whether a tenant owns it and which indexes it projects into. Readers of "every kind" read it
 * here: the account purge (data/tenants/items.ts) finds a tenant's partitions from the
 * collections below, the rebuild (data/tenants/rebuild.ts) relists the ranked lists named here,
 * and the change stream (data/stream/records.ts) classifies a record by the entity its key
 * matches. docs/data-model.md's table of items is checked against it
 * (test/unit/data/table/entities.test.ts), and so is the rule that no two kinds can take the
 * same key.
 *
 * A key pattern is literal text and `{name}` variables. A variable never holds `#`: the parts
 * that come from client data are URI-encoded (keys.ts, `part`), the rest (ids, cells, times,
 * digests) are made by the service without it. `{...name}` (only last) may hold anything, `#`
 * included. The builders of keys.ts make the keys; `example` is one key made by them, so the
 * registry and the builders cannot drift apart.
 */

/** What one partition of a collection is named after: how the purge finds a tenant's partitions. */
export type Scope =
  /** One or a few partitions for the whole stage (not a tenant's). */
  | 'stage'
  /** One partition per user name, outside the tenant (the authorizer's). */
  | 'username'
  /** One partition per connection uid, outside the tenant (the marketplace-events route's). */
  | 'connectionUid'
  /** One fixed partition per tenant. */
  | 'tenant'
  /** One partition per product of the tenant. */
  | 'product'
  | 'repricer'
  | 'importJob'
  | 'webhook'
  /** One partition per marketplace connection of the tenant (by its uid). */
  | 'connection'
  /** One partition per cell of a ranked list (its listings), of the tenant or of one of its products. */
  | 'listCell'
  /** One partition per sort order and level of a ranked list (its rank nodes). */
  | 'listNodes';

export interface Collection {
  /** The partition key's pattern. */
  readonly pk: string;
  readonly scope: Scope;
  /**
   * A tenant collection's partition by the id its scope names (the product code, the repricer
   * id, ...); absent for lists (named by their cells and orders: the list knows them) and
   * collections outside the tenants.
   */
  readonly partition?: (clientId: string, id: string) => string;
  /** For listings and rank nodes: the tag of the ranked list (lists/ranked) they belong to. */
  readonly list?: RankedListTag;
}

/** The ranked lists (lambdas/data/lists/ranked): each has listing and rank-node partitions of its own. */
export const RANKED_LIST_TAGS = {
  /** The tenant's offers (data/offers/list.ts). */
  OL: { scope: 'tenant' },
  /** The tenant's repricers (data/repricers/list.ts). */
  RL: { scope: 'tenant' },
  /** The tenant's price changes (data/price-changes/list.ts). */
  CL: { scope: 'tenant' },
  /** One product's price changes (data/price-changes/list.ts), under the product's list scope (keys.ts, productScope). */
  PCL: { scope: 'product' },
} as const;
export type RankedListTag = keyof typeof RANKED_LIST_TAGS;

const listingsOf = (tag: RankedListTag): Collection =>
  RANKED_LIST_TAGS[tag].scope === 'tenant'
    ? { pk: `T#{client}#${tag}#{cell}`, scope: 'listCell', list: tag }
    : { pk: `T#{client}#PS={code}#${tag}#{cell}`, scope: 'listCell', list: tag };
const nodesOf = (tag: RankedListTag): Collection =>
  RANKED_LIST_TAGS[tag].scope === 'tenant'
    ? { pk: `T#{client}#${tag}N#{order}#{level}`, scope: 'listNodes', list: tag }
    : { pk: `T#{client}#PS={code}#${tag}N#{order}#{level}`, scope: 'listNodes', list: tag };

/** Partitions that one or more entities share (ElectroDB's collections): a Query of one reads them together. */
export const COLLECTIONS = {
  client: { pk: 'CLIENT#{username}', scope: 'username' },
  counter: { pk: 'COUNTER#{name}', scope: 'stage' },
  connectorType: { pk: 'CONNECTOR#{uid}', scope: 'stage' },
  /** Everything a repricing decision reads: one Query (data/repricing/inputs.ts). */
  product: { pk: 'T#{client}#P#{code}', scope: 'product', partition: keys.productPartition },
  offerLookups: { pk: 'T#{client}#OID', scope: 'tenant', partition: keys.offerLookupPartition },
  repricer: { pk: 'T#{client}#R#{repricerId}', scope: 'repricer', partition: (clientId, id) => keys.repricerKey(clientId, Number(id)).pk },
  /** A product's price changes and its offers' daily push counts, beside (not in) the product's partition. */
  priceChanges: { pk: 'T#{client}#PC#{code}', scope: 'product', partition: keys.priceChangePartition },
  offerStates: { pk: 'T#{client}#OST#{code}', scope: 'product', partition: keys.offerStatePartition },
  sender: { pk: 'T#{client}#SEND', scope: 'tenant', partition: keys.senderPartition },
  offerListings: listingsOf('OL'),
  offerNodes: nodesOf('OL'),
  repricerListings: listingsOf('RL'),
  repricerNodes: nodesOf('RL'),
  priceChangeListings: listingsOf('CL'),
  priceChangeNodes: nodesOf('CL'),
  productPriceChangeListings: listingsOf('PCL'),
  productPriceChangeNodes: nodesOf('PCL'),
  rebuilds: { pk: 'T#{client}#REBUILD', scope: 'tenant', partition: (clientId) => keys.rebuildKey(clientId, '').pk },
  imports: { pk: 'T#{client}#IMP', scope: 'tenant', partition: keys.importsPartition },
  importBody: { pk: 'T#{client}#IMPB#{importId}', scope: 'importJob', partition: (clientId, id) => keys.importBodyKey(clientId, Number(id), 0).pk },
  webhooks: { pk: 'T#{client}#WH', scope: 'tenant', partition: keys.webhookPartition },
  deliveries: { pk: 'T#{client}#WD#{webhookId}', scope: 'webhook', partition: (clientId, id) => keys.deliveryPartition(clientId, Number(id)) },
  connections: { pk: 'T#{client}#CONN', scope: 'tenant', partition: keys.connectionPartition },
  connectionUid: { pk: 'CONNUID#{uid}', scope: 'connectionUid' },
  marketplaceEvents: { pk: 'T#{client}#MEVT#{connectionUid}', scope: 'connection', partition: keys.marketplaceEventPartition },
  pushStop: { pk: 'STAGE#PUSHES', scope: 'stage' },
  pageWatch: { pk: 'PAGE#{connector}#{productLineId}', scope: 'stage' },
  readBudget: { pk: 'BUDGET#{host}', scope: 'stage' },
  hostHold: { pk: 'HOSTHOLD#{host}', scope: 'stage' },
  idempotency: { pk: 'IDEMPOTENCY#{scope}', scope: 'stage' },
} as const satisfies Record<string, Collection>;
export type CollectionName = keyof typeof COLLECTIONS;

/**
 * - `canonical`: what clients, imports and the service's own work wrote (the source of truth);
 * - `listing`, `rankNode`: derived by the list maintainer, rebuilt from the canonical items;
 * - `lookup`: an index of canonical items kept by hand (found by another key than theirs).
 */
export type Role = 'canonical' | 'listing' | 'rankNode' | 'lookup';

export interface Entity {
  readonly collection: CollectionName;
  /** The sort key's pattern. */
  readonly sk: string;
  readonly role: Role;
  /** The global secondary indexes the item projects into (those it writes the keys of). */
  readonly indexes: readonly string[];
  /** One key of it, made by the builders of keys.ts. */
  readonly example: keys.ItemKey;
}

const C = 'c1';
const listingIndexes = (tag: RankedListTag): string[] =>
  tag === 'OL'
    ? [LISTING_INDEXES.byCompetitors.indexName, LISTING_INDEXES.byPrice.indexName, LISTING_INDEXES.byUpdated.indexName]
    : tag === 'RL'
      ? [LISTING_INDEXES.byUpdated.indexName, LISTING_INDEXES.byCreated.indexName]
      : [];
const listing = (collection: CollectionName, tag: RankedListTag, scope: string): Entity => ({
  collection,
  sk: '{idKey}',
  role: 'listing',
  indexes: listingIndexes(tag),
  example: { pk: keys.listingPartition(scope, tag, 'own|high'), sk: '00000001' },
});
const rankNode = (collection: CollectionName, tag: RankedListTag, scope: string): Entity => ({
  collection,
  sk: '{lowerBound}',
  role: 'rankNode',
  indexes: [],
  example: { pk: keys.nodePartition(scope, tag, 'id', 'b'), sk: '' },
});

/** Every kind of item, in the order of docs/data-model.md's table of items. */
export const ENTITIES = {
  client: { collection: 'client', sk: 'CLIENT', role: 'canonical', indexes: [DIRECTORY_INDEX.indexName], example: keys.clientKey('ann') },
  loginAttempts: { collection: 'client', sk: 'LOGIN#{source}#{window}', role: 'canonical', indexes: [], example: keys.loginAttemptsKey('ann', '0a1b', 7) },
  counter: { collection: 'counter', sk: 'COUNTER', role: 'canonical', indexes: [], example: keys.counterKey('offer') },
  connectorType: { collection: 'connectorType', sk: 'CONNECTOR', role: 'canonical', indexes: [], example: keys.connectorKey('takealot') },
  product: {
    collection: 'product',
    sk: 'PRODUCT',
    role: 'canonical',
    indexes: [DIRECTORY_INDEX.indexName],
    example: keys.productKey(C, 'SKU 1'),
  },
  productWatch: { collection: 'product', sk: 'WATCH', role: 'canonical', indexes: [], example: keys.productWatchKey(C, 'SKU 1') },
  offer: { collection: 'product', sk: 'O#{offerId}', role: 'canonical', indexes: [], example: keys.offerKey(C, 'SKU 1', 'O#1') },
  offerLookup: { collection: 'offerLookups', sk: '{offerId}', role: 'lookup', indexes: [], example: keys.offerLookupKey(C, 'O#1') },
  repricer: { collection: 'repricer', sk: 'REPRICER', role: 'canonical', indexes: [], example: keys.repricerKey(C, 7) },
  repricerSlot: { collection: 'product', sk: 'SLOT#{connector}', role: 'canonical', indexes: [], example: keys.repricerSlotKey(C, 'SKU 1', 'takealot') },
  repricerDecision: {
    collection: 'product',
    sk: 'DECISION#{repricerId}#{offerId}',
    role: 'canonical',
    indexes: [],
    example: keys.decisionStateKey(C, 'SKU 1', 7, 'O#1'),
  },
  productMarket: { collection: 'product', sk: 'MARKET#{connector}', role: 'canonical', indexes: [], example: keys.marketStateKey(C, 'SKU 1', 'takealot') },
  priceWar: { collection: 'product', sk: 'WAR#{repricerId}#{offerId}', role: 'canonical', indexes: [], example: keys.warKey(C, 'SKU 1', 7, 'O#1') },
  priceChange: {
    collection: 'priceChanges',
    sk: 'PC#{repricerId}#{offerId}#{n}',
    role: 'canonical',
    indexes: [PRICE_CHANGE_FEED_INDEX.indexName],
    example: keys.priceChangeKey(C, 'SKU 1', 7, 'O#1', 3),
  },
  offerState: {
    collection: 'offerStates',
    sk: '{offerId}#{time}',
    role: 'canonical',
    indexes: [],
    example: { pk: keys.offerStatePartition(C, 'SKU 1'), sk: keys.offerStateSortKey('O#1', '2026-01-01T00:00:00.000Z') },
  },
  pushCount: {
    collection: 'priceChanges',
    sk: 'PUSHES#{offerId}#{day}',
    role: 'canonical',
    indexes: [],
    example: keys.pushCountKey(C, 'SKU 1', 'O#1', '2026-01-01'),
  },
  breakerWindow: {
    collection: 'sender',
    sk: 'BREAKER#{connector}#{window}',
    role: 'canonical',
    indexes: [],
    example: keys.breakerWindowKey(C, 'takealot', '2026-01-01T00'),
  },
  sentBatch: { collection: 'sender', sk: 'BATCH#{connector}#{batchId}', role: 'canonical', indexes: [], example: keys.sentBatchKey(C, 'takealot', 'b#1') },
  pushedBatch: {
    collection: 'sender',
    sk: 'PUSH#{connector}#{pushToken}',
    role: 'canonical',
    indexes: [],
    example: keys.pushedBatchKey(C, 'takealot', 'token'),
  },
  offerListing: listing('offerListings', 'OL', C),
  offerRankNode: rankNode('offerNodes', 'OL', C),
  repricerListing: listing('repricerListings', 'RL', C),
  repricerRankNode: rankNode('repricerNodes', 'RL', C),
  priceChangeListing: listing('priceChangeListings', 'CL', C),
  priceChangeRankNode: rankNode('priceChangeNodes', 'CL', C),
  productPriceChangeListing: listing('productPriceChangeListings', 'PCL', keys.productScope(C, 'SKU 1')),
  productPriceChangeRankNode: rankNode('productPriceChangeNodes', 'PCL', keys.productScope(C, 'SKU 1')),
  rebuildRequest: {
    collection: 'rebuilds',
    sk: '{requestId}',
    role: 'canonical',
    indexes: [],
    example: keys.rebuildKey(C, '2026-01-01T00:00:00.000Z-0a1b2c3d'),
  },
  import: { collection: 'imports', sk: '{idKey}', role: 'canonical', indexes: [], example: keys.importKey(C, '00000001') },
  importBody: { collection: 'importBody', sk: '{chunk}', role: 'canonical', indexes: [], example: keys.importBodyKey(C, 1, 0) },
  webhook: { collection: 'webhooks', sk: 'W#{webhookId}', role: 'canonical', indexes: [], example: keys.webhookKey(C, 1) },
  webhookCount: { collection: 'webhooks', sk: 'COUNT', role: 'canonical', indexes: [], example: keys.webhookCountKey(C) },
  webhookDelivery: {
    collection: 'deliveries',
    sk: '{eventTime}#{eventId}',
    role: 'canonical',
    indexes: [],
    example: keys.deliveryKey(C, 1, '2026-01-01T00:00:00.000Z', 'e#1'),
  },
  connection: { collection: 'connections', sk: 'C#{connector}', role: 'canonical', indexes: [], example: keys.connectionKey(C, 'takealot') },
  connectionUid: { collection: 'connectionUid', sk: 'CONNUID', role: 'lookup', indexes: [DIRECTORY_INDEX.indexName], example: keys.connectionUidKey('u-1') },
  marketplaceEvent: {
    collection: 'marketplaceEvents',
    sk: '{deliveryId}',
    role: 'canonical',
    indexes: [],
    example: keys.marketplaceEventKey(C, 'u-1', 'd#1'),
  },
  pushStop: { collection: 'pushStop', sk: 'STOP', role: 'canonical', indexes: [], example: keys.pushStopKey() },
  pageWatch: { collection: 'pageWatch', sk: 'WATCH', role: 'canonical', indexes: [DUE_INDEX.indexName], example: keys.pageWatchKey('takealot', 'PLID1') },
  readBudget: { collection: 'readBudget', sk: '{window}', role: 'canonical', indexes: [], example: keys.readBudgetKey('www.example', 7) },
  hostHold: { collection: 'hostHold', sk: 'HOLD', role: 'canonical', indexes: [], example: keys.hostHoldKey('www.example') },
  idempotencyRecord: {
    collection: 'idempotency',
    sk: '{...powertoolsKey}',
    role: 'canonical',
    indexes: [],
    example: { pk: keys.idempotencyPartition('POST /v1/imports'), sk: 'fn#abc' },
  },
} as const satisfies Record<string, Entity>;
export type EntityName = keyof typeof ENTITIES;

export const ENTITY_NAMES = Object.keys(ENTITIES) as EntityName[];

/** The entity's full key patterns. */
export const keyPatternOf = (name: EntityName): { readonly pk: string; readonly sk: string } => ({
  pk: COLLECTIONS[ENTITIES[name].collection].pk,
  sk: ENTITIES[name].sk,
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A pattern as a regular expression over whole keys. */
export const patternRegExp = (pattern: string): RegExp =>
  new RegExp(
    `^${pattern
      .split(/(\{[^}]*\})/)
      .map((piece) => (piece.startsWith('{...') ? '.*' : piece.startsWith('{') ? '[^#]*' : escape(piece)))
      .join('')}$`,
  );

const matchers = ENTITY_NAMES.map((name) => {
  const { pk, sk } = keyPatternOf(name);
  return { name, pk: patternRegExp(pk), sk: patternRegExp(sk) };
});

/** The kind of item a key is (the registry guarantees at most one), or undefined for a key no entity has. */
export const entityOfKey = (pk: string, sk: string): EntityName | undefined => matchers.find((m) => m.pk.test(pk) && m.sk.test(sk))?.name;

/** The collections whose partitions are named after what `scope` names. */
export const collectionsOf = (scope: Scope): readonly (Collection & { readonly name: CollectionName })[] =>
  (Object.entries(COLLECTIONS) as [CollectionName, Collection][])
    .filter(([, collection]) => collection.scope === scope)
    .map(([name, collection]) => ({ name, ...collection }));

/** The entities of one collection. */
export const entitiesIn = (collection: CollectionName): EntityName[] => ENTITY_NAMES.filter((name) => ENTITIES[name].collection === collection);

/** The role of a collection's items (every entity of one collection has the same: entities.test.ts). */
export const roleOfCollection = (collection: CollectionName): Role => ENTITIES[entitiesIn(collection)[0]!].role;
