import * as z from 'zod';
import type { NewRepricer } from '../../domain/create-repricer.js';
import type { Repricer } from '../../domain/records.js';
import { reserveIds } from '../table/counters.js';
import { tableName } from '../table/dynamo.js';
import { repricerKey, repricerSlotKey } from '../table/keys.js';
import { commitTransactional } from '../lists/ranked/apply-transactional.js';
import type { TransactItem } from '../lists/ranked/node-store.js';
import { placeOf } from '../lists/ranked/ranked-list.js';
import { REPRICER_LIST, REPRICER_SCHEMA_VERSION, repricerSourceDigest, type StoredRepricer } from './list.js';
import { getRepricer } from './read.js';
import { AGAIN, ContentionError, retrying } from '../table/retry.js';
import { nowIso } from '../../config/clock.js';

export type { NewRepricer } from '../../domain/create-repricer.js';

export type CreateRepricerResult =
  { readonly created: true; readonly repricer: Repricer; readonly version: number } | { readonly created: false; readonly existingId: number };

const canonicalItem = (clientId: string, stored: StoredRepricer) => ({ ...repricerKey(clientId, stored.record.id), ...stored });

/** The slot: one repricer per (product, connector), and what a repricing decision needs of it. */
const slotItem = (clientId: string, record: Repricer) => ({
  ...repricerSlotKey(clientId, record.product.code, record.connector_type.uid),
  entity: 'repricerSlot',
  repricerId: record.id,
  enabled: record.enabled,
  connector: record.connector_type.uid,
  repricer_approach: record.repricer_approach,
  min_price: record.min_price,
  preferred_price: record.preferred_price,
  buybox_approach: record.buybox_approach,
  exclude_seller_ids: record.exclude_seller_ids,
  min_competitor_rating: record.min_competitor_rating,
  competitor_stock: record.competitor_stock,
  max_competitor_leadtime_days: record.max_competitor_leadtime_days,
  price_war_guard: record.price_war_guard,
});
const slotKeyOf = (clientId: string, record: Repricer) => repricerSlotKey(clientId, record.product.code, record.connector_type.uid);

const listed = (stored: StoredRepricer) => ({ place: placeOf(REPRICER_LIST, stored), record: stored.record, src: repricerSourceDigest(stored) });

/**
 * Creates a repricer, claims its (product, connector) slot and lists it, in one transaction:
 * all of it is written or none. A taken slot reports the id of the repricer holding it.
 */
export const createRepricer = async (clientId: string, input: NewRepricer, now = nowIso()): Promise<CreateRepricerResult> => {
  const id = await reserveIds('repricer');
  const stored: StoredRepricer = {
    entity: 'repricer',
    sv: REPRICER_SCHEMA_VERSION,
    version: 1,
    record: { id, uid: crypto.randomUUID(), ...input, created_at: now, updated_at: now },
  };
  const own: TransactItem[] = [
    { Put: { TableName: tableName(), Item: canonicalItem(clientId, stored), ConditionExpression: 'attribute_not_exists(pk)' } },
    {
      Put: {
        TableName: tableName(),
        Item: slotItem(clientId, stored.record),
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
  ];
  const outcome = await retrying('Creating a repricer', async () => {
    const result = await commitTransactional(clientId, REPRICER_LIST, { after: listed(stored) }, own);
    return !result.committed && result.failed === 'race' ? AGAIN : result;
  });
  if (outcome.committed) return { created: true, repricer: stored.record, version: 1 };
  if (outcome.failed !== 1) throw new Error('A new repricer id was already taken');
  // Cancellation reasons are not unmarshalled by the document client: the item arrives in wire format.
  const existingId = z.object({ repricerId: z.object({ N: z.string() }) }).parse(outcome.reason.Item ?? {}).repricerId.N;
  return { created: false, existingId: Number(existingId) };
};

export type ChangeOutcome<T> = { readonly kind: 'done'; readonly value: T } | { readonly kind: 'missing' } | { readonly kind: 'contended' };

/**
 * Reads the repricer, lets `decide` compute its next record (it may throw, e.g. on a failed
 * If-Match), and writes it on condition that nothing changed it since the read; a lost race
 * re-reads and decides again.
 */
export const updateRepricer = async (
  clientId: string,
  id: number,
  decide: (current: StoredRepricer) => Promise<Repricer>,
): Promise<ChangeOutcome<StoredRepricer>> => {
  try {
    return await retrying('Updating a repricer', async () => {
      const current = await getRepricer(clientId, id);
      if (!current) return { kind: 'missing' } as const;
      const next: StoredRepricer = { ...current, version: current.version + 1, record: await decide(current) };
      const own: TransactItem[] = [
        {
          Put: {
            TableName: tableName(),
            Item: canonicalItem(clientId, next),
            ConditionExpression: 'version = :version',
            ExpressionAttributeValues: { ':version': current.version },
          },
        },
        {
          Put: {
            TableName: tableName(),
            Item: slotItem(clientId, next.record),
            ConditionExpression: 'repricerId = :id',
            ExpressionAttributeValues: { ':id': id },
          },
        },
      ];
      const outcome = await commitTransactional(clientId, REPRICER_LIST, { before: placeOf(REPRICER_LIST, current), after: listed(next) }, own);
      return outcome.committed ? ({ kind: 'done', value: next } as const) : AGAIN;
    });
  } catch (error) {
    if (error instanceof ContentionError) return { kind: 'contended' };
    throw error;
  }
};

/** Deletes the repricer, its listing and its slot in one transaction, on the same terms as `updateRepricer`. */
export const deleteRepricer = async (clientId: string, id: number, check: (current: StoredRepricer) => void): Promise<ChangeOutcome<true>> => {
  try {
    return await retrying('Deleting a repricer', async () => {
      const current = await getRepricer(clientId, id);
      if (!current) return { kind: 'missing' } as const;
      check(current);
      const own: TransactItem[] = [
        {
          Delete: {
            TableName: tableName(),
            Key: repricerKey(clientId, id),
            ConditionExpression: 'version = :version',
            ExpressionAttributeValues: { ':version': current.version },
          },
        },
        {
          Delete: {
            TableName: tableName(),
            Key: slotKeyOf(clientId, current.record),
            ConditionExpression: 'repricerId = :id',
            ExpressionAttributeValues: { ':id': id },
          },
        },
      ];
      const outcome = await commitTransactional(clientId, REPRICER_LIST, { before: placeOf(REPRICER_LIST, current) }, own);
      return outcome.committed ? ({ kind: 'done', value: true } as const) : AGAIN;
    });
  } catch (error) {
    if (error instanceof ContentionError) return { kind: 'contended' };
    throw error;
  }
};
