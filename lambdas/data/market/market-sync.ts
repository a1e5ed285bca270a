import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { KnownProduct, OfferWrite, ProductPlan, WriteCounts } from '../../domain/market-apply.js';
import { batchGet, batchWrite } from '../table/batch.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { reserveIds } from '../table/counters.js';
import { offerKey, offerLookupPartition, part } from '../table/keys.js';
import { cellScope, storedOffer, type StoredOffer } from '../offers/list.js';
import { offerLookup, planOffers, readLookups, writeOfferPlan, type OfferOwner } from '../offers/write.js';
import { getStoredProducts, productItem } from '../offers/products.js';

/**
 * The reads and writes of a marketplace sync (docs/market-sync.md): what the use cases
 * (lambdas/market/market-sync.ts) read before they plan, and the writes of their plans
 * (domain/market-apply.ts). Products and offers go through the same writes as imports, so the
 * list maintainer and the repricing evaluator see them through the table's stream.
 *
 * The own-offer sync and the storefront reader run concurrently and write the same own offers:
 * each offer is written only over the copy its writer read (offers/write.ts OfferBasis); the
 * offers another writer changed meanwhile come back unwritten, for the use case to plan again.
 */

/** The products stored under these codes, with their product line and variant ids. */
export const readKnownProducts = async (clientId: string, codes: readonly string[]): Promise<Map<string, KnownProduct>> => getStoredProducts(clientId, codes);

/** Writes a product plan: the new products get their ids here, in the plan's order. */
export const writeProductPlan = async (clientId: string, plan: ProductPlan): Promise<void> => {
  let next = plan.create.length > 0 ? await reserveIds('product', plan.create.length) : 0;
  const items = [
    ...plan.create.map(({ draft, productLineId, variantId }) => productItem(clientId, { id: next++, ...draft }, productLineId, variantId)),
    ...plan.update.map(({ record, productLineId, variantId }) => productItem(clientId, record, productLineId, variantId)),
  ];
  await batchWrite(items.map((put) => ({ put })));
};

/** The canonical offers stored under the given marketplace ids, wherever their product is. */
export const readOffers = async (clientId: string, offerIds: readonly string[]): Promise<Map<string, StoredOffer>> => {
  const lookups = await readLookups(clientId, offerIds);
  const items = await batchGet([...lookups].map(([offerId, lookup]) => offerKey(clientId, lookup.productCode, offerId)));
  return new Map(items.map((item) => storedOffer.parse(item)).map((offer) => [offer.fields.offer_id, offer] as const));
};

/**
 * Writes the changed offers, each replacing only the version it was computed from (offers/write.ts
 * guarded): the own-offer sync and the storefront reader write the same own offers, each its own
 * fields, and neither may put back a copy the other has changed meanwhile. The offers another
 * writer changed come back unwritten (`conflicts`), for the caller to plan again from what is stored now.
 */
export const writeOfferChanges = async (
  owner: OfferOwner,
  considered: number,
  writes: readonly OfferWrite[],
  now: string,
): Promise<{ readonly counts: WriteCounts; readonly conflicts: ReadonlySet<string> }> => {
  const plan = await planOffers(owner, writes, now);
  const conflicts = new Set(await writeOfferPlan(plan, { guarded: true }));
  // The stale ones were never counted as written; those refused at the write were.
  const stale = new Set(plan.stale);
  const updated = plan.updated - writes.filter((write) => conflicts.has(write.offer_id) && !stale.has(write.offer_id)).length;
  return { counts: { created: plan.created, updated: Math.max(0, updated), unchanged: considered - plan.created - Math.max(0, updated) }, conflicts };
};

/**
 * The marketplace ids of the tenant's own offers, from the offer lookups (one partition per
 * tenant), leaving out the competitor offers of this connector by key range: their ids all
 * start with `<connector uid>:` (market-snapshot.ts competitorOfferId).
 */
const ownOfferIds = async (clientId: string, connectorUid: string): Promise<string[]> => {
  const competitors = part(`${connectorUid}:`);
  const ids: string[] = [];
  // Keys are URI-encoded ASCII, so every competitor key lies between the prefix and the prefix followed by DEL.
  for (const [operator, bound] of [
    ['<', competitors],
    ['>', `${competitors}\x7f`],
  ] as const) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await documentClient.send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: `pk = :pk AND sk ${operator} :bound`,
          ExpressionAttributeValues: { ':pk': offerLookupPartition(clientId), ':bound': bound },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of page.Items ?? []) {
        const lookup = offerLookup.safeParse(item);
        if (lookup.success && (lookup.data.listedCell === undefined || cellScope(lookup.data.listedCell) === 'own'))
          ids.push(decodeURIComponent(String(item.sk)));
      }
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return ids;
};

/** The own offers of this connector (as stored) whose marketplace ids a list did not show. */
export const ownOffersNotSeen = async (clientId: string, connectorUid: string, seen: ReadonlySet<string>): Promise<StoredOffer[]> => {
  const missing = (await ownOfferIds(clientId, connectorUid)).filter((offerId) => !seen.has(offerId));
  if (missing.length === 0) return [];
  return [...(await readOffers(clientId, missing)).values()].filter((offer) => offer.connector === connectorUid && offer.scope === 'own');
};
