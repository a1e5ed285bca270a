import { GetCommand, PutCommand, QueryCommand, UpdateCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { DIRECTORY_INDEX } from '../../config/table-schema.js';
import { logger } from '../../observability/logger.js';
import { batchGet } from '../table/batch.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { readPartition } from '../table/partition.js';
import { enterPriceChangeFeed } from '../price-changes/feed.js';
import {
  listingPartition,
  offerKey,
  priceChangePartition,
  productPartition,
  productsDirectory,
  rebuildKey,
  repricerKey,
  SLOT_SK_PREFIX,
  productScope,
} from '../table/keys.js';
import { OFFER_LIST, storedOffer } from '../offers/list.js';
import { hintOf, reconcileOffers } from '../offers/maintenance.js';
import { readLookups } from '../offers/write.js';
import { applyBatched, type Reconciliation } from '../lists/ranked/apply-batched.js';
import { listingKey, originOfListing, placeOfListing, recordOfListing } from '../lists/ranked/listings.js';
import {
  legacyPriceChangeCell,
  PRICE_CHANGE_CELLS,
  PRICE_CHANGE_LIST,
  PRODUCT_PRICE_CHANGE_LIST,
  storedPriceChange,
  type StoredPriceChange,
} from '../price-changes/list.js';
import { reconcilePriceChanges } from '../price-changes/maintenance.js';
import { countedCells, readAllPlaces, recountOrder } from '../lists/ranked/recount.js';
import { REPRICER_LIST, repricerCell, repricerSourceDigest, storedRepricer, type StoredRepricer } from '../repricers/list.js';
import type { Repricer } from '../../domain/records.js';
import { isConditionFailure } from '../table/conditions.js';
import { RANKED_LIST_TAGS, type RankedListTag } from '../table/entities.js';
import type { RankedList } from '../lists/ranked/ranked-list.js';
import { now as clockNow, nowIso } from '../../config/clock.js';

/**
 * `npm run cli -- rebuild`: re-derives every listing and count of a tenant from its canonical
 * items. The request is an item of the table; its changes reach the list maintainer through
 * the change stream like any other change, so the rebuild runs one step at a time in the
 * tenant's queue, between the tenant's other changes, and is safe while the API serves. Each
 * step records its progress on the request, which starts the next step:
 *  1. products: every product's offers, repricers and price changes are listed afresh (a
 *     price change in the cell of its status, out of the legacy cell of its reason alone)
 *     (PRODUCTS_PER_STEP at a time); the product's own price-change list is swept and recounted;
 *  2. sweep: tenant-wide listing items no canonical item accounts for are removed, one page of
 *     one cell a step;
 *  3. count: every tenant-wide node is recounted from the listings.
 * A step that runs twice does the same thing twice. Progress is readable while it runs.
 */
const PRODUCTS_PER_STEP = 50;
const LISTINGS_PER_STEP = 200;
const REQUEST_TTL_SECONDS = 7 * 24 * 3600;

type Item = Record<string, NativeAttributeValue>;

export const rebuildRequest = z.object({
  status: z.enum(['running', 'done', 'failed']),
  phase: z.enum(['products', 'sweep', 'count', 'done']),
  /** Where the current phase resumes: a product page key, or a listing page key, as JSON. */
  cursor: z.string().optional(),
  /** Listing partitions still to sweep: `<tag>|<cell>`. */
  sweep: z.array(z.string()).default([]),
  products: z.number().int().default(0),
  listingsChecked: z.number().int().default(0),
  listingsRemoved: z.number().int().default(0),
  nodesWritten: z.number().int().default(0),
  offerCells: z.array(z.string()).default([]),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type RebuildRequest = z.infer<typeof rebuildRequest>;

export const startRebuild = async (clientId: string, now = new Date(clockNow())): Promise<string> => {
  const requestId = `${now.toISOString()}-${crypto.randomUUID().slice(0, 8)}`;
  const request: RebuildRequest = {
    status: 'running',
    phase: 'products',
    sweep: [],
    products: 0,
    listingsChecked: 0,
    listingsRemoved: 0,
    nodesWritten: 0,
    offerCells: [],
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  await documentClient.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...rebuildKey(clientId, requestId), entity: 'rebuildRequest', ...request, expiresAt: Math.floor(now.getTime() / 1000) + REQUEST_TTL_SECONDS },
    }),
  );
  return requestId;
};

export const readRebuild = async (clientId: string, requestId: string): Promise<RebuildRequest | undefined> => {
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: rebuildKey(clientId, requestId), ConsistentRead: true }));
  return result.Item ? rebuildRequest.parse(result.Item) : undefined;
};

const queryPage = async (input: ConstructorParameters<typeof QueryCommand>[0]) => documentClient.send(new QueryCommand(input));

/** The repricers of some products, read through their slots, and their listings as they are. */
const reconcileRepricers = async (clientId: string, ids: readonly number[], seq: string): Promise<void> => {
  const canonical = (await batchGet(ids.map((id) => repricerKey(clientId, id)))).map((item) => storedRepricer.parse(item));
  const listed = await batchGet(
    canonical.flatMap((stored) => [true, false].map((on) => listingKey(clientId, REPRICER_LIST, repricerCell(on), stored.record.id))),
  );
  const changes: Reconciliation<StoredRepricer, Repricer>[] = [];
  for (const stored of canonical) {
    const current = listed.filter((item) => placeOfListing(REPRICER_LIST, item).id === stored.record.id);
    const keep = current.find((item) => item.cell === REPRICER_LIST.cellOf(stored)) ?? current[0];
    for (const extra of current) if (extra !== keep) changes.push({ current: extra });
    changes.push({ ...(keep ? { current: keep } : {}), target: { source: stored, record: stored.record, src: repricerSourceDigest(stored) } });
  }
  await applyBatched(clientId, REPRICER_LIST, changes, seq, { force: true, shared: true });
};

type CanonicalChanges = readonly { readonly sk: string; readonly stored: StoredPriceChange }[];

const priceChangesOf = async (clientId: string, code: string): Promise<CanonicalChanges> => {
  const items = await readPartition(priceChangePartition(clientId, code));
  // Those stored before the update feed existed enter it now (data/price-changes/feed.ts).
  await enterPriceChangeFeed(clientId, code, items);
  return items.map((item) => ({ sk: String(item.sk), stored: storedPriceChange.parse(item) }));
};

/** Some products' price changes, listed afresh in both lists (one pass: each node counts it once). */
const relistPriceChanges = (clientId: string, byProduct: ReadonlyMap<string, CanonicalChanges>, seq: string) =>
  reconcilePriceChanges(
    clientId,
    [...byProduct].flatMap(([code, canonical]) =>
      // The legacy cell too: a listing written before statuses moves to its status's cell.
      canonical.map(({ sk, stored }) => ({
        productCode: code,
        sk,
        id: stored.record.id,
        repricerId: stored.record.repricer_id,
        cells: [PRICE_CHANGE_LIST.cellOf(stored), legacyPriceChangeCell(stored.record.reason)],
      })),
    ),
    seq,
    { force: true },
  );

/** A product's own price-change list, swept of listings no price change accounts for and recounted. */
const sweepProductPriceChanges = async (clientId: string, code: string, canonical: CanonicalChanges, seq: string): Promise<void> => {
  const scope = productScope(clientId, code);
  const cells = new Set([
    ...canonical.map(({ stored }) => PRODUCT_PRICE_CHANGE_LIST.cellOf(stored)),
    ...(await countedCells(scope, PRODUCT_PRICE_CHANGE_LIST)),
  ]);
  const byId = new Map(canonical.map(({ stored }) => [stored.record.id, stored]));
  const listed = (await Promise.all([...cells].map((cell) => readPartition(listingPartition(scope, PRODUCT_PRICE_CHANGE_LIST.tag, cell))))).flat();
  const stray = listed.filter((item) => {
    const place = placeOfListing(PRODUCT_PRICE_CHANGE_LIST, item);
    const stored = byId.get(place.id);
    return !stored || PRODUCT_PRICE_CHANGE_LIST.cellOf(stored) !== place.cell;
  });
  await applyBatched(
    scope,
    PRODUCT_PRICE_CHANGE_LIST,
    stray.map((current) => ({ current })),
    seq,
  );
  const places = await readAllPlaces(scope, PRODUCT_PRICE_CHANGE_LIST, cells);
  await recountOrder(scope, PRODUCT_PRICE_CHANGE_LIST, 'id', places);
};

const productsStep = async (clientId: string, request: RebuildRequest, seq: string): Promise<Partial<RebuildRequest>> => {
  const page = await queryPage({
    TableName: tableName(),
    IndexName: DIRECTORY_INDEX.indexName,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': DIRECTORY_INDEX.partitionKey },
    ExpressionAttributeValues: { ':pk': productsDirectory(clientId) },
    Limit: PRODUCTS_PER_STEP,
    ...(request.cursor ? { ExclusiveStartKey: JSON.parse(request.cursor) as Item } : {}),
  });
  const codes = (page.Items ?? []).map((item) => String(item[DIRECTORY_INDEX.sortKey]));
  const offers = [];
  const repricerIds: number[] = [];
  for (const code of codes) {
    let start: Item | undefined;
    do {
      const result = await queryPage({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': productPartition(clientId, code) },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      });
      for (const item of result.Items ?? []) {
        if (String(item.sk).startsWith(SLOT_SK_PREFIX)) repricerIds.push(Number(item.repricerId));
        else if (item.entity === 'offer') offers.push(storedOffer.parse(item));
      }
      start = result.LastEvaluatedKey;
    } while (start);
  }
  await reconcileOffers(clientId, offers.map(hintOf), seq, { force: true });
  await reconcileRepricers(clientId, repricerIds, seq);
  const changes = new Map(await Promise.all(codes.map(async (code) => [code, await priceChangesOf(clientId, code)] as const)));
  await relistPriceChanges(clientId, changes, seq);
  for (const [code, canonical] of changes) await sweepProductPriceChanges(clientId, code, canonical, seq);
  const offerCells = [...new Set([...request.offerCells, ...offers.map((offer) => OFFER_LIST.cellOf(offer))])];
  if (page.LastEvaluatedKey) return { cursor: JSON.stringify(page.LastEvaluatedKey), products: request.products + codes.length, offerCells };
  return {
    phase: 'sweep',
    products: request.products + codes.length,
    offerCells,
    sweep: (
      await Promise.all(
        TENANT_LIST_TAGS.map(async (tag) => (await TENANT_LISTS[tag].sweepCells(clientId, offerCells)).map((cell) => `${TENANT_LISTS[tag].list.tag}|${cell}`)),
      )
    ).flat(),
  };
};

/** Listings no canonical item accounts for: the offer or repricer is gone, or is listed elsewhere or under another id. */
const strayOffers = async (clientId: string, items: readonly Item[]): Promise<Item[]> => {
  const decoded = items.map((item) => {
    try {
      return { item, offerId: recordOfListing(OFFER_LIST, item).offer_id };
    } catch {
      return { item, offerId: undefined };
    }
  });
  const lookups = await readLookups(
    clientId,
    decoded.flatMap(({ offerId }) => (offerId === undefined ? [] : [offerId])),
  );
  const canonical = new Map(
    (await batchGet([...lookups].map(([offerId, lookup]) => offerKey(clientId, lookup.productCode, offerId)))).map((item) => {
      const offer = storedOffer.parse(item);
      return [offer.fields.offer_id, offer] as const;
    }),
  );
  return decoded.flatMap(({ item, offerId }) => {
    const offer = offerId === undefined ? undefined : canonical.get(offerId);
    const place = placeOfListing(OFFER_LIST, item);
    return offer && offer.id === place.id && OFFER_LIST.cellOf(offer) === place.cell ? [] : [item];
  });
};

const strayRepricers = async (clientId: string, items: readonly Item[]): Promise<Item[]> => {
  const canonical = new Map(
    (await batchGet(items.map((item) => repricerKey(clientId, placeOfListing(REPRICER_LIST, item).id)))).map((item) => {
      const stored = storedRepricer.parse(item);
      return [stored.record.id, stored] as const;
    }),
  );
  return items.filter((item) => {
    const place = placeOfListing(REPRICER_LIST, item);
    const stored = canonical.get(place.id);
    return !stored || REPRICER_LIST.cellOf(stored) !== place.cell;
  });
};

/** Price changes listed tenant-wide whose canonical item (named by the listing's origin) is gone, or now in another cell. */
const strayPriceChanges = async (items: readonly Item[]): Promise<Item[]> => {
  const origins = items.map((item) => originOfListing(item));
  const found = new Map(
    (await batchGet(origins.flatMap((origin) => (origin ? [origin] : [])))).map((item) => [
      `${String(item.pk)}|${String(item.sk)}`,
      PRICE_CHANGE_LIST.cellOf(storedPriceChange.parse(item)),
    ]),
  );
  return items.filter((item, i) => {
    const origin = origins[i];
    return !origin || found.get(`${origin.pk}|${origin.sk}`) !== placeOfListing(PRICE_CHANGE_LIST, item).cell;
  });
};

const sweepStep = async (clientId: string, request: RebuildRequest, seq: string): Promise<Partial<RebuildRequest>> => {
  const [partition, ...rest] = request.sweep;
  if (partition === undefined) return { phase: 'count', sweep: [] };
  const separator = partition.indexOf('|');
  const tag = partition.slice(0, separator);
  const cell = partition.slice(separator + 1);
  const rebuild = TENANT_LISTS[tag as TenantListTag];
  const page = await queryPage({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': listingPartition(clientId, tag, cell) },
    ConsistentRead: true,
    Limit: LISTINGS_PER_STEP,
    ...(request.cursor ? { ExclusiveStartKey: JSON.parse(request.cursor) as Item } : {}),
  });
  const items = page.Items ?? [];
  const stray = await rebuild.removeStray(clientId, items, seq);
  const progress = { listingsChecked: request.listingsChecked + items.length, listingsRemoved: request.listingsRemoved + stray };
  return page.LastEvaluatedKey ? { ...progress, cursor: JSON.stringify(page.LastEvaluatedKey) } : { ...progress, sweep: rest };
};

const countStep = async (clientId: string, request: RebuildRequest): Promise<Partial<RebuildRequest>> => {
  let written = 0;
  for (const tag of TENANT_LIST_TAGS) written += await TENANT_LISTS[tag].recount(clientId, request.offerCells);
  return { phase: 'done', status: 'done', nodesWritten: request.nodesWritten + written };
};

/** Every order of a list recounted from its listings in `cells`: the count nodes written. */
const recountList = async <S, R>(clientId: string, list: RankedList<S, R>, cells: Iterable<string>): Promise<number> => {
  const places = await readAllPlaces(clientId, list, cells);
  let written = 0;
  for (const order of Object.keys(list.orders)) written += await recountOrder(clientId, list, order, places);
  return written;
};

/** What the rebuild does for one of the tenant's ranked lists (a list of the tenant's scope in table/entities.ts). */
interface TenantListRebuild {
  readonly list: { readonly tag: string };
  /** The cells the sweep reads, from the offer cells the products step saw. */
  readonly sweepCells: (clientId: string, offerCells: readonly string[]) => Promise<string[]>;
  /** Removes the listings of one page no canonical item accounts for: how many. */
  readonly removeStray: (clientId: string, items: readonly Item[], seq: string) => Promise<number>;
  /** Recounts every order from the listings: the count nodes written. */
  readonly recount: (clientId: string, offerCells: readonly string[]) => Promise<number>;
}

type TenantListTag = { [T in RankedListTag]: (typeof RANKED_LIST_TAGS)[T]['scope'] extends 'tenant' ? T : never }[RankedListTag];
const TENANT_LIST_TAGS = (Object.keys(RANKED_LIST_TAGS) as RankedListTag[]).filter((tag): tag is TenantListTag => RANKED_LIST_TAGS[tag].scope === 'tenant');

const removed = async <S, R>(clientId: string, list: RankedList<S, R>, stray: readonly Item[], seq: string, shared = false): Promise<number> => {
  await applyBatched(
    clientId,
    list,
    stray.map((current) => ({ current })),
    seq,
    ...(shared ? [{ shared: true }] : []),
  );
  return stray.length;
};

/** The tenant's ranked lists by their tag in the registry: a new list there is a new entry here before it compiles. */
const TENANT_LISTS: Readonly<Record<TenantListTag, TenantListRebuild>> = {
  OL: {
    list: OFFER_LIST,
    sweepCells: async (clientId, offerCells) => [...new Set([...offerCells, ...(await countedCells(clientId, OFFER_LIST))])],
    removeStray: async (clientId, items, seq) => removed(clientId, OFFER_LIST, await strayOffers(clientId, items), seq),
    recount: async (clientId, offerCells) => recountList(clientId, OFFER_LIST, [...offerCells, ...(await countedCells(clientId, OFFER_LIST))]),
  },
  RL: {
    list: REPRICER_LIST,
    sweepCells: () => Promise.resolve([true, false].map(repricerCell)),
    removeStray: async (clientId, items, seq) => removed(clientId, REPRICER_LIST, await strayRepricers(clientId, items), seq, true),
    recount: (clientId) => recountList(clientId, REPRICER_LIST, [repricerCell(true), repricerCell(false)]),
  },
  CL: {
    list: PRICE_CHANGE_LIST,
    sweepCells: () => Promise.resolve([...PRICE_CHANGE_CELLS]),
    removeStray: async (clientId, items, seq) => removed(clientId, PRICE_CHANGE_LIST, await strayPriceChanges(items), seq),
    recount: async (clientId) => recountList(clientId, PRICE_CHANGE_LIST, [...PRICE_CHANGE_CELLS, ...(await countedCells(clientId, PRICE_CHANGE_LIST))]),
  },
};

/** Runs the request's next step and records it, which (through the stream) starts the one after. */
export const runRebuildStep = async (clientId: string, requestId: string, seq: string): Promise<void> => {
  const request = await readRebuild(clientId, requestId);
  if (!request || request.status !== 'running') return;
  let next: Partial<RebuildRequest>;
  try {
    next =
      request.phase === 'products'
        ? await productsStep(clientId, request, seq)
        : request.phase === 'sweep'
          ? await sweepStep(clientId, request, seq)
          : await countStep(clientId, request);
  } catch (error) {
    logger.error('Rebuild step failed', { clientId, requestId, phase: request.phase, error: error as Error });
    throw error;
  }
  const updates: Record<string, unknown> = { ...next, updatedAt: nowIso() };
  // A phase that ends with no cursor of its own starts the next one from the beginning.
  const clearCursor = next.phase !== undefined && next.phase !== request.phase && next.cursor === undefined;
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':phase': request.phase, ':updatedAt': request.updatedAt };
  const sets = Object.entries(updates).map(([name, value], i) => {
    names[`#a${i}`] = name;
    values[`:a${i}`] = value;
    return `#a${i} = :a${i}`;
  });
  if (clearCursor) names['#cursor'] = 'cursor';
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: rebuildKey(clientId, requestId),
        UpdateExpression: `SET ${sets.join(', ')}${clearCursor ? ' REMOVE #cursor' : ''}`,
        // The step ran from this state; if a duplicate already advanced it, this one records nothing.
        ConditionExpression: 'phase = :phase AND updatedAt = :updatedAt',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};
