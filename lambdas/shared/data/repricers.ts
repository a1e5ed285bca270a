import * as z from 'zod';
import type { Repricer } from '../domain/records.js';
import { reserveIds } from './counters.js';
import { tableName } from './dynamo.js';
import { slotItem, slotKeyOf, type StoredRepricer } from './repricer-items.js';
import { commitRepricerChange } from './repricer-transaction.js';

export type NewRepricer = Omit<Repricer, 'id' | 'uid' | 'created_at' | 'updated_at'>;

export type CreateRepricerResult =
  | { readonly created: true; readonly repricer: Repricer; readonly version: number }
  | { readonly created: false; readonly existingId: number };

/**
 * Creates a repricer, claims its (product, connector) slot, and lists it in its views in one
 * transaction: all of it is written or none. A taken slot reports the id of the repricer holding it.
 */
export const createRepricer = async (clientId: string, input: NewRepricer, now = new Date().toISOString()): Promise<CreateRepricerResult> => {
  const id = await reserveIds('repricer');
  const repricer: Repricer = { id, uid: crypto.randomUUID(), ...input, created_at: now, updated_at: now };
  const result = await commitRepricerChange(clientId, {
    after: { record: repricer, version: 1 },
    slot: {
      Put: {
        TableName: tableName(),
        Item: slotItem(clientId, repricer),
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
  });
  if (result.committed) return { created: true, repricer, version: 1 };
  if (result.failed !== 1) throw result.error;
  // Errors are not unmarshalled by the document client: the item arrives in wire format.
  const existingId = z.object({ repricerId: z.object({ N: z.string() }) }).parse(result.reason.Item ?? {}).repricerId.N;
  return { created: false, existingId: Number(existingId) };
};

/**
 * Replaces a repricer's record if it is still at the version it was read at, moving it between
 * views and directories as needed. Undefined when another write got there first.
 */
export const replaceRepricer = async (clientId: string, current: StoredRepricer, record: Repricer): Promise<StoredRepricer | undefined> => {
  const next = { record, version: current.version + 1 };
  const result = await commitRepricerChange(clientId, { before: current, after: next });
  if (result.committed) return next;
  if (result.failed === 0) return undefined;
  throw result.error;
};

/**
 * Deletes a repricer still at the version it was read at, with its views, and frees its slot
 * (only if the slot still names it). `false` when another write got there first.
 */
export const deleteRepricer = async (clientId: string, current: StoredRepricer): Promise<boolean> => {
  const result = await commitRepricerChange(clientId, {
    before: current,
    slot: {
      Delete: {
        TableName: tableName(),
        Key: slotKeyOf(clientId, current.record),
        ConditionExpression: 'repricerId = :id',
        ExpressionAttributeValues: { ':id': current.record.id },
      },
    },
  });
  if (result.committed) return true;
  if (result.failed === 0) return false;
  throw result.error;
};
