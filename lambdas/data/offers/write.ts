import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { OfferFields } from '../../domain/records.js';
import { batchGet, batchWrite, type WriteRequest } from '../table/batch.js';
import { mapLimit } from '../table/concurrency.js';
import { reserveIds } from '../table/counters.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { sameJson } from '../../domain/json.js';
import { offerIdOfSortKey, offerKey, offerLookupKey } from '../table/keys.js';
import { OFFER_SCHEMA_VERSION, offerCell, storedOffer, type StoredOffer } from './list.js';
import { isConditionFailure } from '../table/conditions.js';
import { nowIso } from '../../config/clock.js';

/**
 * Writes canonical offers: each a single small item under its product, plus, for a new offer,
 * its lookup item (marketplace id -> numeric id and product). Nothing else: listings and
 * counts follow from the change stream (data/offers/maintenance.ts), so a write costs the same
 * whatever the tenant's size, and writers of one tenant never wait for one another.
 */
export interface OfferInput extends OfferFields {
  readonly product_code: string;
  readonly connector?: string;
  /** What its writer computed it from; absent: the input is a statement of its own (an import line). Never stored. */
  readonly basis?: OfferBasis;
}

/**
 * The copy of an offer a writer read and computed its input from. A write with a basis replaces
 * only that copy: when another writer changed the offer since, nothing is written and the offer
 * comes back to be computed again from what is stored then, so no writer puts back older data.
 */
export interface OfferBasis {
  /** The `updated_at` of the copy read; null: there was none (the write creates the offer). */
  readonly readVersion: string | null;
  /**
   * The writer looked at the offer's price itself just now (a sync, or a page that showed a price
   * other than the one believed live): `price_at` becomes the write's time even when the price
   * is the one stored, so the look counts as newer than any earlier confirmation.
   */
  readonly priceSeen?: boolean;
}

export interface OfferOwner {
  readonly clientId: string;
  /** The client's own seller id: offers with it are "own" offers. */
  readonly sellerId: string;
  /** The connector of offers whose line names none. */
  readonly defaultConnector: string;
}

export interface OfferWriteSummary {
  readonly written: number;
  readonly unchanged: number;
}

export const offerLookup = z.object({
  id: z.int().positive(),
  productCode: z.string(),
  /** The cell the offer is listed in, as the list maintainer last placed it (or its first expected place). */
  listedCell: z.string().optional(),
});
export type OfferLookup = z.infer<typeof offerLookup>;

export const readLookups = async (clientId: string, offerIds: readonly string[]): Promise<Map<string, OfferLookup>> => {
  const items = await batchGet(offerIds.map((id) => offerLookupKey(clientId, id)));
  return new Map(items.map((item) => [decodeURIComponent(String(item.sk)), offerLookup.parse(item)]));
};

/**
 * Claims the lookup of each new offer with a fresh id; an offer another writer created
 * meanwhile keeps that writer's id.
 */
const claimLookups = async (clientId: string, fresh: readonly { offerId: string; productCode: string; cell: string }[]): Promise<Map<string, OfferLookup>> => {
  const claimed = new Map<string, OfferLookup>();
  if (fresh.length === 0) return claimed;
  let next = await reserveIds('offer', fresh.length);
  const lost: string[] = [];
  await mapLimit(fresh, async ({ offerId, productCode, cell }) => {
    const lookup: OfferLookup = { id: next++, productCode, listedCell: cell };
    try {
      await documentClient.send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...offerLookupKey(clientId, offerId), entity: 'offerLookup', ...lookup },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      claimed.set(offerId, lookup);
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      lost.push(offerId);
    }
  });
  for (const [offerId, lookup] of await readLookups(clientId, lost)) claimed.set(offerId, lookup);
  return claimed;
};

const sameOffer = (a: StoredOffer, b: Omit<StoredOffer, 'created_at' | 'updated_at'>) =>
  a.product_code === b.product_code && a.connector === b.connector && a.scope === b.scope && sameJson(a.fields, b.fields);

/**
 * The writes an upsert of `inputs` needs, and what it counts: offers without a canonical item
 * are created, changed ones updated, the rest unchanged (not rewritten). Planning reads, and
 * claims the lookups (ids) of new offers, which a later plan of the same offers finds again.
 */
export interface OfferWritePlan {
  readonly clientId: string;
  readonly requests: readonly WriteRequest[];
  /**
   * Per put of `requests`, the `updated_at` of the item it replaces (null: none): a guarded write
   * replaces only that version, so two writers of one offer never lose each other's fields.
   */
  readonly replaces: ReadonlyMap<WriteRequest, string | null>;
  readonly moved: readonly { offerId: string; productCode: string }[];
  /** Offers whose writer read a copy other than the one stored now: not written, to be computed again. */
  readonly stale: readonly string[];
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
}

export const planOffers = async (owner: OfferOwner, inputs: readonly OfferInput[], now = nowIso()): Promise<OfferWritePlan> => {
  const { clientId } = owner;
  const lookups = await readLookups(
    clientId,
    inputs.map((input) => input.offer_id),
  );
  const existing = new Map(
    (await batchGet([...lookups].map(([offerId, lookup]) => offerKey(clientId, lookup.productCode, offerId)))).map((item) => {
      const offer = storedOffer.parse(item);
      return [offer.fields.offer_id, offer] as const;
    }),
  );
  const scopeOf = (input: Pick<OfferInput, 'seller_id'>): StoredOffer['scope'] => (input.seller_id === owner.sellerId ? 'own' : 'other');
  const claimed = await claimLookups(
    clientId,
    inputs
      .filter((input) => !lookups.has(input.offer_id))
      .map((input) => ({ offerId: input.offer_id, productCode: input.product_code, cell: offerCell(scopeOf(input), input.competitiveness) })),
  );

  const requests: WriteRequest[] = [];
  const replaces = new Map<WriteRequest, string | null>();
  const moved: { offerId: string; productCode: string }[] = [];
  const stale: string[] = [];
  let unchanged = 0;
  let created = 0;
  for (const { product_code, connector, basis, ...fields } of inputs) {
    const lookup = lookups.get(fields.offer_id) ?? claimed.get(fields.offer_id);
    if (!lookup) throw new Error(`Offer ${fields.offer_id} has no lookup`);
    const before = existing.get(fields.offer_id);
    // Computed from another copy than the one stored: writing it would put back what its writer did not see.
    if (basis && basis.readVersion !== (before?.updated_at ?? null)) {
      stale.push(fields.offer_id);
      continue;
    }
    const next: Omit<StoredOffer, 'created_at' | 'updated_at'> = {
      entity: 'offer',
      sv: OFFER_SCHEMA_VERSION,
      id: lookup.id,
      product_code,
      connector: connector ?? before?.connector ?? owner.defaultConnector,
      scope: scopeOf(fields),
      fields,
    };
    const keptPriceAt = before && before.fields.offer_price === fields.offer_price ? (before.price_at ?? before.updated_at) : undefined;
    // A look at the price newer than the one stored is news even when the price is the same.
    const lookedAnew = basis?.priceSeen === true && (keptPriceAt === undefined || keptPriceAt < now);
    if (before && sameOffer(before, next) && !lookedAnew) {
      unchanged++;
      continue;
    }
    if (!before) created++;
    // Always later than the version it replaces, so a guard on `updated_at` tells every version apart.
    const updatedAt = before && before.updated_at >= now ? new Date(Date.parse(before.updated_at) + 1).toISOString() : now;
    // The price's own time: a write of other fields (a page's buy box) leaves it as it was seen.
    const priceAt = keptPriceAt !== undefined && !lookedAnew ? keptPriceAt : now;
    const put: WriteRequest = {
      put: { ...offerKey(clientId, product_code, fields.offer_id), ...next, created_at: before?.created_at ?? now, updated_at: updatedAt, price_at: priceAt },
    };
    requests.push(put);
    // A move writes a new item under another product: nothing there to replace.
    replaces.set(put, before && lookup.productCode === product_code ? before.updated_at : null);
    if (lookup.productCode !== product_code) {
      moved.push({ offerId: fields.offer_id, productCode: product_code });
      if (before) requests.push({ delete: offerKey(clientId, lookup.productCode, fields.offer_id) });
    }
  }
  return { clientId, requests, replaces, moved, stale, created, updated: inputs.length - unchanged - created - stale.length, unchanged };
};

/**
 * Writes a plan: re-writing one that was already (partly) written changes nothing. Guarded, each
 * put replaces only the version its writer read (the input's basis; without one, the version the
 * plan read), or creates where there was none, and the ids of the offers another writer changed
 * since are returned, unwritten, to be computed again from what is stored now: the market sync's
 * two writers (own offers, storefront pages) each keep the other's fields.
 */
export const writeOfferPlan = async (
  { clientId, requests, replaces, moved, stale }: OfferWritePlan,
  options: { readonly guarded?: boolean } = {},
): Promise<string[]> => {
  // The lookup names the new product before the offer moves there, so a reader never misses it.
  await mapLimit(moved, ({ offerId, productCode }) =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: offerLookupKey(clientId, offerId),
        UpdateExpression: 'SET productCode = :code',
        ExpressionAttributeValues: { ':code': productCode },
      }),
    ),
  );
  if (!options.guarded) {
    await batchWrite(requests);
    return [...stale];
  }
  const puts = requests.flatMap((request) => ('put' in request ? [request] : []));
  await batchWrite(requests.filter((request) => !('put' in request)));
  const conflicts = await mapLimit(puts, async (request) => {
    const item = request.put;
    const replaced = replaces.get(request) ?? null;
    try {
      await documentClient.send(
        new PutCommand({
          TableName: tableName(),
          Item: item,
          ...(replaced === null
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : { ConditionExpression: 'updated_at = :replaced', ExpressionAttributeValues: { ':replaced': replaced } }),
        }),
      );
      return undefined;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return offerIdOfSortKey(String(item.sk));
    }
  });
  return [...stale, ...conflicts.filter((offerId): offerId is string => offerId !== undefined)];
};

/**
 * Upserts offers by marketplace offer id (unique within one call). An unchanged offer is not
 * rewritten; an offer whose line names another product moves to it.
 */
export const upsertOffers = async (owner: OfferOwner, inputs: readonly OfferInput[], now = nowIso()): Promise<OfferWriteSummary> => {
  const plan = await planOffers(owner, inputs, now);
  await writeOfferPlan(plan);
  return { written: plan.created + plan.updated, unchanged: plan.unchanged };
};

/** Deletes offers by marketplace id; their listings follow from the change stream. */
export const deleteOffers = async (clientId: string, offerIds: readonly string[]): Promise<number> => {
  const lookups = await readLookups(clientId, offerIds);
  await batchWrite([...lookups].map(([offerId, lookup]) => ({ delete: offerKey(clientId, lookup.productCode, offerId) })));
  return lookups.size;
};
