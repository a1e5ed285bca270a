import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { isConflict } from './transactions.js';
import { OFFER_SORT_FIELDS, type OfferSortField } from '../domain/offer-query.js';
import type { OfferFields, Product } from '../domain/records.js';
import { backoff, batchGet } from './batch.js';
import { reserveIds } from './counters.js';
import { documentClient, tableName } from './dynamo.js';
import { sameJson } from './json.js';
import { offerKey, offerViewPartition, productKey, productOfferKey } from './keys.js';
import { idKey, OFFER_RANK_ORDERS, sortKeyOf, viewsOf } from './offer-keys.js';
import { canonicalItem, membershipItem, offerRecordOf, storedOffer, viewItems, type StoredOffer } from './offer-items.js';
import { getProducts } from './products.js';
import { collectKeyMoves, directoryActions as rankDirectoryActions, type KeyDelta } from './rank-maintenance.js';

export interface OfferInput extends OfferFields {
  readonly product_code: string;
}

export interface OfferOwner {
  readonly clientId: string;
  /** The client's own seller id: offers with it are "own" offers. */
  readonly sellerId: string;
}

export interface OfferWriteSummary {
  readonly written: number;
  readonly unchanged: number;
  readonly transactions: number;
}

const TRANSACTION_LIMIT = 100;
const MAX_ATTEMPTS = 10;

/** One offer's before and after state; `after` undefined deletes it. */
interface OfferChange {
  readonly offerId: string;
  readonly before?: StoredOffer;
  readonly after?: StoredOffer;
  readonly product?: Product;
}

type Action = Record<string, unknown>;

/** The rank directories (view, sort) an offer state is counted in, with its key in each. */
const rankEntries = (offer: StoredOffer | undefined, sellerId: string): Map<string, string> => {
  const entries = new Map<string, string>();
  if (!offer) return entries;
  const sortable = { id: offer.id, ...offer.fields, updated_at: offer.updated_at };
  for (const view of viewsOf(offer.fields, sellerId)) {
    for (const sort of OFFER_SORT_FIELDS) entries.set(`${view}|${sort}`, sortKeyOf(sortable, sort));
  }
  return entries;
};

/** The product copy nested in the views must be the product as it is when the group commits. */
const productChecks = (owner: OfferOwner, products: Map<string, string>): Action[] =>
  [...products].map(([code, updatedAt]) => ({
    ConditionCheck: {
      TableName: tableName(),
      Key: productKey(owner.clientId, code),
      ConditionExpression: 'updatedAt = :updatedAt',
      ExpressionAttributeValues: { ':updatedAt': updatedAt },
    },
  }));

const splitDirectoryId = (id: string) => {
  const [view = '', sort = ''] = id.split('|');
  return { view, sort: sort as OfferSortField };
};

/**
 * The writes for one offer, except the directories (shared by the group). The view items'
 * index keys move with them; `deltas` collects those key moves for the directories.
 */
const offerActions = (owner: OfferOwner, change: OfferChange, deltas: Map<string, KeyDelta>): Action[] => {
  const table = tableName();
  const { before, after } = change;
  const actions: Action[] = [];
  collectKeyMoves(rankEntries(before, owner.sellerId), rankEntries(after, owner.sellerId), deltas);

  const versionCondition = before
    ? { ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': before.version } }
    : { ConditionExpression: 'attribute_not_exists(pk)' };
  const afterViews = after && change.product ? viewItems(owner.clientId, offerRecordOf(after, change.product), owner.sellerId) : [];
  const beforeViews = before ? viewsOf(before.fields, owner.sellerId) : [];
  if (after && change.product) {
    actions.push({ Put: { TableName: table, Item: canonicalItem(owner.clientId, after), ...versionCondition } });
    for (const { item } of afterViews) actions.push({ Put: { TableName: table, Item: item } });
    actions.push({ Put: { TableName: table, Item: membershipItem(owner.clientId, after, afterViews.map((v) => v.view)) } });
  } else if (before) {
    actions.push({ Delete: { TableName: table, Key: offerKey(owner.clientId, before.fields.offer_id), ...versionCondition } });
  }
  const keptViews = new Set(afterViews.map((v) => v.view));
  if (before) {
    for (const view of beforeViews) {
      if (!keptViews.has(view)) actions.push({ Delete: { TableName: table, Key: { pk: offerViewPartition(owner.clientId, view), sk: idKey(before.id) } } });
    }
    if (!after || after.product_code !== before.product_code) {
      actions.push({ Delete: { TableName: table, Key: productOfferKey(owner.clientId, before.product_code, idKey(before.id)) } });
    }
  }
  return actions;
};

/** Directory writes for a group: counts moved, oversized buckets split, small ones merged. */
const directoryActions = (owner: OfferOwner, deltas: Map<string, KeyDelta>): Promise<Action[]> =>
  rankDirectoryActions(
    owner.clientId,
    [...deltas].map(([id, delta]) => {
      const { view, sort } = splitDirectoryId(id);
      return { view, order: OFFER_RANK_ORDERS[sort], delta };
    }),
  );

/** Reads the current state of the given offers and builds their changes. */
const planChanges = async (
  owner: OfferOwner,
  inputs: readonly OfferInput[] | undefined,
  deleteIds: readonly string[],
  now: string,
): Promise<{ changes: OfferChange[]; unchanged: number }> => {
  const offerIds = inputs ? inputs.map((o) => o.offer_id) : [...deleteIds];
  const existing = new Map(
    (await batchGet(offerIds.map((id) => offerKey(owner.clientId, id)))).map((item) => {
      const offer = storedOffer.parse(item);
      return [offer.fields.offer_id, offer] as const;
    }),
  );
  if (!inputs) {
    return { changes: deleteIds.flatMap((offerId) => (existing.has(offerId) ? [{ offerId, before: existing.get(offerId)! }] : [])), unchanged: 0 };
  }
  const products = await getProducts(owner.clientId, inputs.map((o) => o.product_code));
  const changes: OfferChange[] = [];
  let unchanged = 0;
  const fresh = inputs.filter((o) => !existing.has(o.offer_id)).length;
  let nextId = fresh > 0 ? await reserveIds('offer', fresh) : 0;
  for (const { product_code, ...fields } of inputs) {
    const product = products.get(product_code);
    if (!product) throw new Error(`Offer ${fields.offer_id} names an unknown product`);
    const before = existing.get(fields.offer_id);
    if (before && before.product_code === product_code && sameJson(before.fields, fields)) {
      unchanged++;
      continue;
    }
    const after: StoredOffer = {
      entity: 'offer',
      id: before?.id ?? nextId++,
      product_code,
      fields,
      created_at: before?.created_at ?? now,
      updated_at: now,
      version: (before?.version ?? 0) + 1,
    };
    changes.push({ offerId: fields.offer_id, ...(before ? { before } : {}), after, product });
  }
  return { changes, unchanged };
};

/**
 * Packs changes into transactions of at most 100 writes (offer items plus the rank
 * directories they touch) and commits each; a group that loses a race is re-read and retried.
 */
const commitChanges = async (owner: OfferOwner, changes: OfferChange[], retry: (ids: string[]) => Promise<number>): Promise<number> => {
  let transactions = 0;
  let index = 0;
  while (index < changes.length) {
    const deltas = new Map<string, KeyDelta>();
    /** Product code -> the updated_at its nested copies were made from. */
    const products = new Map<string, string>();
    const actions: Action[] = [];
    const groupIds: string[] = [];
    while (index < changes.length) {
      const change = changes[index]!;
      const trialDeltas = new Map([...deltas].map(([k, v]) => [k, { inserted: [...v.inserted], removed: [...v.removed] }]));
      const offer = offerActions(owner, change, trialDeltas);
      const trialProducts = new Map(products);
      if (change.after && change.product) trialProducts.set(change.after.product_code, change.product.updated_at);
      if (groupIds.length > 0 && actions.length + offer.length + trialDeltas.size + trialProducts.size > TRANSACTION_LIMIT) break;
      actions.push(...offer);
      for (const [k, v] of trialDeltas) deltas.set(k, v);
      for (const [k, v] of trialProducts) products.set(k, v);
      groupIds.push(change.offerId);
      index++;
    }
    try {
      const directories = await directoryActions(owner, deltas);
      await documentClient.send(
        new TransactWriteCommand({ TransactItems: [...actions, ...directories, ...productChecks(owner, products)] as never }),
      );
      transactions++;
    } catch (error) {
      if (!isConflict(error)) throw error;
      transactions += await retry(groupIds);
    }
  }
  return transactions;
};

const writeOffers = async (
  owner: OfferOwner,
  inputs: readonly OfferInput[] | undefined,
  deleteIds: readonly string[],
  attempt = 0,
): Promise<OfferWriteSummary> => {
  if (attempt >= MAX_ATTEMPTS) throw new Error('Offer write kept conflicting with concurrent writes');
  if (attempt > 0) await backoff(attempt);
  const { changes, unchanged } = await planChanges(owner, inputs, deleteIds, new Date().toISOString());
  const transactions = await commitChanges(owner, changes, async (ids) => {
    const retried = new Set(ids);
    const summary = await writeOffers(owner, inputs?.filter((o) => retried.has(o.offer_id)), inputs ? [] : ids, attempt + 1);
    return summary.transactions;
  });
  return { written: changes.length, unchanged, transactions };
};

/**
 * Upserts offers by marketplace offer id. Every change moves the offer in every view, index and
 * rank directory in one transaction; unchanged offers are not rewritten. Offer ids must be
 * unique within one call.
 */
export const upsertOffers = (owner: OfferOwner, inputs: readonly OfferInput[]) => writeOffers(owner, inputs, []);

export const deleteOffers = (owner: OfferOwner, offerIds: readonly string[]) => writeOffers(owner, undefined, offerIds);
