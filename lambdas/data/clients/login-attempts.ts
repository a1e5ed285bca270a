import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { TTL_ATTRIBUTE } from '../../config/table-schema.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { LOGIN_ATTEMPTS_PREFIX, loginAttemptsKey, loginAttemptsPartition } from '../table/keys.js';
import { isConditionFailure } from '../table/conditions.js';

/**
 * Password checks of one user name from one source address in one fixed window, counted before
 * each check (data model: docs/data-model.md; policy: auth/authorize.ts).
 *
 * Item `{ pk: CLIENT#<username>, sk: LOGIN#<source>#<window> }`, `entity: 'loginAttempts'`:
 * - `attempts`: checks reserved in the window and not given back: the ones still running plus
 *   the failed ones. A reservation adds 1 only while `attempts` is below the limit, in one
 *   conditional UpdateItem, so however many requests arrive at once, no more than the limit
 *   are ever checked against a password hash.
 * - `failures`: the wrong passwords among them since the last right one.
 * - `expiresAt`: the table's TTL attribute, an hour after the window ends.
 */
export interface LoginAttemptsSlot {
  readonly username: string;
  /** A fixed-width digest of the source address (auth/source-address.ts). */
  readonly source: string;
  /** The window's number: epoch milliseconds divided by the window length, rounded down. */
  readonly window: number;
  /** Epoch seconds at which DynamoDB may delete the item. */
  readonly expiresAt: number;
}

export type Reservation =
  /** A check may run; `failures` is the count of wrong passwords the reservation saw. */
  | { readonly kind: 'reserved'; readonly failures: number }
  /** `failures` reached the limit: no check until the window ends (or a password is set). */
  | { readonly kind: 'limited'; readonly failures: number }
  /** The limit is taken by checks still running: try again shortly. */
  | { readonly kind: 'busy'; readonly failures: number };

const NAMES = { '#attempts': 'attempts', '#failures': 'failures', '#entity': 'entity', '#expiresAt': TTL_ATTRIBUTE } as const;

const counters = z.object({ attempts: z.number().int().optional(), failures: z.number().int().optional() });

/** The item a failed condition returned (ReturnValuesOnConditionCheckFailure), still in wire format. */
const wireCounters = z.object({
  attempts: z.object({ N: z.string() }).optional(),
  failures: z.object({ N: z.string() }).optional(),
});

const failuresIn = (wireItem: unknown): number => {
  const parsed = wireCounters.safeParse(wireItem ?? {});
  return parsed.success ? Number(parsed.data.failures?.N ?? 0) : 0;
};

/**
 * Reserves one password check, unless `limit` checks are already reserved. One conditional
 * UpdateItem: the count and the limit are checked and moved together.
 */
export const reserveLoginAttempt = async (slot: LoginAttemptsSlot, limit: number): Promise<Reservation> => {
  try {
    const { Attributes } = await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: loginAttemptsKey(slot.username, slot.source, slot.window),
        UpdateExpression: 'ADD #attempts :one SET #entity = :entity, #expiresAt = :expiresAt',
        ConditionExpression: 'attribute_not_exists(#attempts) OR #attempts < :limit',
        ExpressionAttributeNames: { '#attempts': NAMES['#attempts'], '#entity': NAMES['#entity'], '#expiresAt': NAMES['#expiresAt'] },
        ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':entity': 'loginAttempts', ':expiresAt': slot.expiresAt },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { kind: 'reserved', failures: counters.parse(Attributes ?? {}).failures ?? 0 };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const failures = failuresIn(error.Item);
    return { kind: failures >= limit ? 'limited' : 'busy', failures };
  }
};

/** A reserved check found a wrong password: it stays counted. The new failure count. */
export const recordLoginFailure = async (slot: LoginAttemptsSlot): Promise<number | undefined> => {
  try {
    const { Attributes } = await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: loginAttemptsKey(slot.username, slot.source, slot.window),
        UpdateExpression: 'ADD #failures :one',
        // Never recreates an item the TTL removed: it would have no expiry.
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#failures': NAMES['#failures'] },
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return counters.parse(Attributes ?? {}).failures;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
};

/**
 * A reserved check found the right password: gives its reservation back and forgives the
 * failures the reservation saw. When more failures were recorded since, only the reservation
 * is given back (they stay counted until the next right password).
 */
export const releaseLoginAttempt = async (slot: LoginAttemptsSlot, failuresSeen: number): Promise<void> => {
  const Key = loginAttemptsKey(slot.username, slot.source, slot.window);
  if (failuresSeen > 0) {
    try {
      await documentClient.send(
        new UpdateCommand({
          TableName: tableName(),
          Key,
          UpdateExpression: 'SET #attempts = #attempts - :released REMOVE #failures',
          ConditionExpression: 'attribute_exists(pk) AND #failures = :seen',
          ExpressionAttributeNames: { '#attempts': NAMES['#attempts'], '#failures': NAMES['#failures'] },
          ExpressionAttributeValues: { ':released': failuresSeen + 1, ':seen': failuresSeen },
        }),
      );
      return;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key,
        UpdateExpression: 'ADD #attempts :minusOne',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#attempts': NAMES['#attempts'] },
        ExpressionAttributeValues: { ':minusOne': -1 },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

/** Administration: forgets every login-attempt counter of a user name (e.g. with a new password). */
export const clearLoginAttempts = async (username: string): Promise<number> => {
  let cleared = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': loginAttemptsPartition(username), ':prefix': LOGIN_ATTEMPTS_PREFIX },
        ProjectionExpression: 'pk, sk',
        ConsistentRead: true,
        ...(ExclusiveStartKey ? { ExclusiveStartKey } : {}),
      }),
    );
    for (const item of page.Items ?? []) {
      await documentClient.send(new DeleteCommand({ TableName: tableName(), Key: { pk: String(item.pk), sk: String(item.sk) } }));
      cleared++;
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return cleared;
};
