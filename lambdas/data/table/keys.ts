/**
 * Every key of the single table is built here. `T#<clientId>` prefixes everything a tenant
 * owns, so no key of one client can ever address another client's items.
 */
/** The key of one item of the table. */
export interface ItemKey {
  readonly pk: string;
  readonly sk: string;
}

export const TENANT_PREFIX = 'T#';
const tenant = (clientId: string) => `${TENANT_PREFIX}${clientId}`;
/** What every partition key of one tenant starts with: the `#` keeps one id from prefixing another. */
export const tenantPrefix = (clientId: string): string => `${tenant(clientId)}#`;

/** Key parts that come from client data are URI-encoded so they cannot contain `#`. */
export const part = (value: string): string => encodeURIComponent(value);

/** The client id of a tenant-owned key, or undefined for a key outside every tenant. */
export const clientIdOfKey = (pk: string): string | undefined => (pk.startsWith(TENANT_PREFIX) ? pk.slice(TENANT_PREFIX.length).split('#', 1)[0] : undefined);

/**
 * Everything the authorizer reads or writes sits in the user name's `CLIENT#` partition, so
 * access to it can be granted by key prefix (IAM `dynamodb:LeadingKeys`).
 */
const clientPartition = (username: string) => `CLIENT#${part(username)}`;
export const clientKey = (username: string) => ({ pk: clientPartition(username), sk: 'CLIENT' });
/** Sort-key prefix of a user name's login-attempt counters (one per source address and window). */
export const LOGIN_ATTEMPTS_PREFIX = 'LOGIN#';
/**
 * The login attempts of one user name from one source address (`source`: a fixed-width hex
 * digest) in one fixed window (`window`: its number since the epoch).
 */
export const loginAttemptsKey = (username: string, source: string, window: number) => ({
  pk: clientPartition(username),
  sk: `${LOGIN_ATTEMPTS_PREFIX}${source}#${window}`,
});
export const loginAttemptsPartition = clientPartition;
export const counterKey = (name: string) => ({ pk: `COUNTER#${name}`, sk: 'COUNTER' });
export const connectorKey = (uid: string) => ({ pk: `CONNECTOR#${part(uid)}`, sk: 'CONNECTOR' });

/**
 * A product's partition holds the product, its offers (own and other sellers') and its
 * repricer slots, so everything a repricing decision needs is one Query.
 */
export const productPartition = (clientId: string, code: string) => `${tenant(clientId)}#P#${part(code)}`;
export const productKey = (clientId: string, code: string) => ({ pk: productPartition(clientId, code), sk: 'PRODUCT' });
/** The storefront pages a product watches (data/market/product-watches.ts), beside the product. */
export const productWatchKey = (clientId: string, code: string) => ({ pk: productPartition(clientId, code), sk: 'WATCH' });
/** Where the keys-only `directory` index lists a tenant's products, and the clients. */
export const productsDirectory = (clientId: string) => `${tenant(clientId)}#PRODUCTS`;
export const productDirectoryEntry = (clientId: string, code: string) => ({ dirPk: productsDirectory(clientId), dirSk: code });
export const CLIENTS_DIRECTORY = 'CLIENTS';
export const clientDirectoryEntry = (username: string) => ({ dirPk: CLIENTS_DIRECTORY, dirSk: username });

export const OFFER_SK_PREFIX = 'O#';
/** The canonical offer: what the import wrote, under its product. */
export const offerKey = (clientId: string, productCode: string, offerId: string) => ({
  pk: productPartition(clientId, productCode),
  sk: `${OFFER_SK_PREFIX}${part(offerId)}`,
});
export const offerIdOfSortKey = (sk: string): string => decodeURIComponent(sk.slice(OFFER_SK_PREFIX.length));
/**
 * Finds an offer by its marketplace id: its numeric id, its product and the cell it is listed
 * in. Written when the offer is first seen, kept after it is deleted (a re-import gets its id
 * back); all in one partition per tenant, so a tenant's offers are found with one Query.
 */
export const offerLookupPartition = (clientId: string) => `${tenant(clientId)}#OID`;
export const offerLookupKey = (clientId: string, offerId: string) => ({ pk: offerLookupPartition(clientId), sk: part(offerId) });

export const SLOT_SK_PREFIX = 'SLOT#';
/** Uniqueness guard in the product's partition: one repricer per (client, product, connector). */
export const repricerSlotKey = (clientId: string, productCode: string, connectorUid: string) => ({
  pk: productPartition(clientId, productCode),
  sk: `${SLOT_SK_PREFIX}${part(connectorUid)}`,
});
export const MARKET_SK_PREFIX = 'MARKET#';
/** What the service knows of a product's market on one connector (domain/market-state.ts): in the product's partition, read with everything else a decision needs. */
export const marketStateKey = (clientId: string, productCode: string, connectorUid: string) => ({
  pk: productPartition(clientId, productCode),
  sk: `${MARKET_SK_PREFIX}${part(connectorUid)}`,
});
/** The last decision of one repricer for one offer (data/repricing/decision-states.ts), in the product's partition: the evaluator reads it with the offers. */
export const DECISION_SK_PREFIX = 'DECISION#';
export const decisionStateKey = (clientId: string, productCode: string, repricerId: number, offerId: string) => ({
  pk: productPartition(clientId, productCode),
  sk: `${DECISION_SK_PREFIX}${repricerId}#${part(offerId)}`,
});
/** A guarded repricer's price-war state for one own offer (data/price-changes/price-wars.ts), in the product's partition. */
export const WAR_SK_PREFIX = 'WAR#';
export const warKey = (clientId: string, productCode: string, repricerId: number, offerId: string) => ({
  pk: productPartition(clientId, productCode),
  sk: `${WAR_SK_PREFIX}${repricerId}#${part(offerId)}`,
});
/**
 * The states the service saw of a product's own offers (their buy-box slots and price), one item
 * per change, beside (not in) the product's partition: a repricing decision never reads them.
 * Sorted by offer, then time, so one offer's states in a time range are one Query.
 */
export const offerStatePartition = (clientId: string, code: string) => `${tenant(clientId)}#OST#${part(code)}`;
export const offerStateSortKey = (offerId: string, at: string) => `${part(offerId)}#${at}`;
export const repricerKey = (clientId: string, id: number) => ({ pk: `${tenant(clientId)}#R#${id}`, sk: 'REPRICER' });
/** A product's price changes, beside (not in) its partition: a repricing decision never reads them. */
export const priceChangePartition = (clientId: string, code: string) => `${tenant(clientId)}#PC#${part(code)}`;
export const PRICE_CHANGE_SK_PREFIX = 'PC#';
/** What the sort keys of one repricer's price changes for one offer start with, in decision order. */
export const priceChangesOfOfferPrefix = (repricerId: number, offerId: string) => `${PRICE_CHANGE_SK_PREFIX}${repricerId}#${part(offerId)}#`;
/** The price change a repricer's n-th decision for an offer writes: the same key however often it is written. */
export const priceChangeKey = (clientId: string, code: string, repricerId: number, offerId: string, n: number) => ({
  pk: priceChangePartition(clientId, code),
  sk: `${priceChangesOfOfferPrefix(repricerId, offerId)}${String(n).padStart(8, '0')}`,
});

/**
 * A price change's entry in the tenant's update feed (PRICE_CHANGE_FEED_INDEX): the update time
 * (ISO, fixed width) first, then the product and the item's sort key, so every entry's key is
 * unique and a cursor is the last key read.
 */
export const priceChangeFeedKey = (clientId: string, updatedAt: string, code: string, sk: string) => ({
  chgPk: `${tenant(clientId)}#PCFEED`,
  chgSk: `${updatedAt}#${part(code)}#${sk}`,
});
export const priceChangeFeedPartition = (clientId: string): string => priceChangeFeedKey(clientId, '', '', '').chgPk;

/** A listing partition: one cell of one ranked entity, sorted by id (sk) and by the listing GSIs. */
export const listingPartition = (clientId: string, tag: string, cell: string) => `${tenant(clientId)}#${tag}#${cell}`;
/** The lists of one product live under a scope of their own inside the tenant's keys. */
export const productScope = (clientId: string, productCode: string) => `${clientId}#PS=${part(productCode)}`;
/** The rank nodes of one entity, order and level (`b` buckets, `c` chunks), keyed by lower bound. */
export const nodePartition = (clientId: string, tag: string, order: string, level: 'b' | 'c') => `${tenant(clientId)}#${tag}N#${order}#${level}`;
/** A request to re-derive a tenant's listings; the change stream carries it to the list maintainer. */
export const rebuildKey = (clientId: string, requestId: string) => ({ pk: `${tenant(clientId)}#REBUILD`, sk: requestId });
/**
 * A tenant's import jobs, in one partition sorted by id (ids are reserved in time order, so
 * also by creation). Jobs expire after their retention, which bounds the partition.
 */
export const importsPartition = (clientId: string) => `${tenant(clientId)}#IMP`;
export const importKey = (clientId: string, idKeyText: string) => ({ pk: importsPartition(clientId), sk: idKeyText });
/** The body of one import job, in chunks beside (not in) the jobs' partition: a job list never reads them. */
export const importBodyKey = (clientId: string, id: number, chunk: number) => ({ pk: `${tenant(clientId)}#IMPB#${id}`, sk: String(chunk).padStart(4, '0') });

/** A tenant's webhooks (at most five) and their count, in one partition: listing them is one Query. */
export const webhookPartition = (clientId: string) => `${tenant(clientId)}#WH`;
export const WEBHOOK_SK_PREFIX = 'W#';
export const webhookKey = (clientId: string, id: number) => ({ pk: webhookPartition(clientId), sk: `${WEBHOOK_SK_PREFIX}${String(id).padStart(16, '0')}` });
/** The bounded count of a tenant's webhooks, claimed with the webhook in one transaction. */
export const webhookCountKey = (clientId: string) => ({ pk: webhookPartition(clientId), sk: 'COUNT' });
/** One webhook's deliveries, in order of their events' times. */
export const deliveryPartition = (clientId: string, webhookId: number) => `${tenant(clientId)}#WD#${webhookId}`;
export const deliveryKey = (clientId: string, webhookId: number, eventTimestamp: string, eventId: string) => ({
  pk: deliveryPartition(clientId, webhookId),
  sk: `${eventTimestamp}#${part(eventId)}`,
});

/** A tenant's marketplace connections (one per connector type), in one partition: listing them is one Query. */
export const connectionPartition = (clientId: string) => `${tenant(clientId)}#CONN`;
export const CONNECTION_SK_PREFIX = 'C#';
export const connectionKey = (clientId: string, connector: string) => ({ pk: connectionPartition(clientId), sk: `${CONNECTION_SK_PREFIX}${part(connector)}` });
/**
 * A connection found by its uid alone, outside every tenant: the public marketplace-events route
 * (`/v1/marketplace-events/{uid}`) knows nothing else. The item holds only the tenant and the connector.
 */
export const CONNECTION_UID_PREFIX = 'CONNUID#';
export const connectionUidKey = (uid: string) => ({ pk: `${CONNECTION_UID_PREFIX}${part(uid)}`, sk: 'CONNUID' });
/** Where the keys-only `directory` index lists every connection's uid: the market schedule's one Query. */
export const CONNECTIONS_DIRECTORY = 'CONNECTIONS';
export const connectionDirectoryEntry = (uid: string) => ({ dirPk: CONNECTIONS_DIRECTORY, dirSk: uid });
/**
 * The stage's own settings, outside every tenant: the operator's stop of every price push
 * (tools/admin), read by the price sender before each push.
 */
export const STAGE_SETTING_PREFIX = 'STAGE#';
export const pushStopKey = () => ({ pk: `${STAGE_SETTING_PREFIX}PUSHES`, sk: 'STOP' });
/**
 * Idempotency records (table/idempotency-store.ts): pk `IDEMPOTENCY#<scope>`, the sort key built
 * by Powertools. Nothing tenant-owned starts with `IDEMPOTENCY#`, so they cannot collide with data.
 */
export const idempotencyPartition = (scope: string): string => `IDEMPOTENCY#${scope}`;
/**
 * A storefront page watched for every tenant that sells its product (data/market/page-watches.ts):
 * one item per connector and product line, shared, so a page is read once for all of them.
 */
export const PAGE_WATCH_PREFIX = 'PAGE#';
export const pageWatchKey = (connector: string, productLineId: string) => ({
  pk: `${PAGE_WATCH_PREFIX}${part(connector)}#${part(productLineId)}`,
  sk: 'WATCH',
});
/** The `due` index's partitions: page watches by the time of their next look, spread over shards so no partition takes every write. */
export const DUE_SHARD_PREFIX = 'DUE#';
export const dueShardPartition = (shard: number) => `${DUE_SHARD_PREFIX}${shard}`;
/** One second of a storefront host's read budget, counted by every reader together. */
export const READ_BUDGET_PREFIX = 'BUDGET#';
export const readBudgetKey = (host: string, window: number) => ({ pk: `${READ_BUDGET_PREFIX}${part(host)}`, sk: String(window) });
/** A marketplace host's hold after it refused a read (429, or the storefront's 403): every reader waits it out. */
export const hostHoldKey = (host: string) => ({ pk: `HOSTHOLD#${part(host)}`, sk: 'HOLD' });
/**
 * The marketplace events received for one connection, one item per delivery id: what makes a
 * repeated delivery a repeat. Kept for a week (TTL), long past any sender's retries.
 */
export const marketplaceEventPartition = (clientId: string, connectionUid: string) => `${tenant(clientId)}#MEVT#${part(connectionUid)}`;
export const marketplaceEventKey = (clientId: string, connectionUid: string, deliveryId: string) => ({
  pk: marketplaceEventPartition(clientId, connectionUid),
  sk: part(deliveryId),
});

/**
 * The price sender's own items of a tenant, one partition: the circuit breaker's windows of sharp
 * drops (per connector), the price changes each sent batch carried, and the batch each push
 * token became. All expire (TTL).
 */
export const senderPartition = (clientId: string) => `${tenant(clientId)}#SEND`;
export const breakerWindowKey = (clientId: string, connector: string, window: string) => ({
  pk: senderPartition(clientId),
  sk: `BREAKER#${part(connector)}#${window}`,
});
export const sentBatchKey = (clientId: string, connector: string, batchId: string) => ({
  pk: senderPartition(clientId),
  sk: `BATCH#${part(connector)}#${part(batchId)}`,
});
/** The batch id the marketplace gave a push (by its token): what a push whose outcome was lost is confirmed from. */
export const pushedBatchKey = (clientId: string, connector: string, pushToken: string) => ({
  pk: senderPartition(clientId),
  sk: `PUSH#${part(connector)}#${part(pushToken)}`,
});
/** An offer's pushes of one day (the daily cap), beside the product's price changes. */
export const pushCountKey = (clientId: string, productCode: string, offerId: string, day: string) => ({
  pk: priceChangePartition(clientId, productCode),
  sk: `PUSHES#${part(offerId)}#${day}`,
});
