import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { sealedValue, type SealedValue } from '../../crypto/envelope.js';
import { connectionRecord, type Connection, type ConnectionMode, type ConnectionSafety } from '../../domain/connections.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { CONNECTION_SK_PREFIX, connectionDirectoryEntry, connectionKey, connectionPartition, connectionUidKey } from '../table/keys.js';
import { cancellationReasons } from '../table/transactions.js';
import { isConditionFailure } from '../table/conditions.js';
import { nowIso } from '../../config/clock.js';

/**
 * Marketplace connections. The item holds the record and the sealed secrets (the API key, the
 * webhook secret): a role that can read the item cannot read them without the KMS key, which
 * only the functions that talk to the marketplace may use. No response or log line holds them.
 * Beside each connection, outside the tenant, a lookup item from its uid to the tenant and the
 * connector, for the public marketplace-events route; both are written and deleted together.
 */
const storedConnection = z.object({
  entity: z.literal('connection'),
  record: connectionRecord,
  sealedKey: sealedValue,
  sealedWebhookSecret: sealedValue.optional(),
  /** Before seller ids were stated: one guessed from a storefront SKU. Read, never trusted (the record's seller_id is). */
  sellerId: z.string().optional(),
  /** The price sender waits until then: the marketplace asked it to slow down for longer than a run waits. */
  sendHoldUntil: z.string().optional(),
  /** When the client last resumed the connection: decisions made before it were accepted, the breaker no longer counts them. */
  breakerClearedAt: z.string().optional(),
  /** `POST .../sync`: the recent accepted times and whether one waits to run (lambdas/data/connections/sync-requests.ts). */
  syncRequests: z.object({ acceptedAt: z.array(z.number()), pending: z.boolean(), version: z.number().int() }).optional(),
});
export type StoredConnection = z.infer<typeof storedConnection>;
export const parseStoredConnection = (item: unknown): StoredConnection => storedConnection.parse(item);

const connectionLookup = z.object({ entity: z.literal('connectionUid'), clientId: z.string().min(1), connector: z.string().min(1) });

export const getConnection = async (clientId: string, connector: string): Promise<StoredConnection | undefined> => {
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: connectionKey(clientId, connector), ConsistentRead: true }));
  return result.Item ? storedConnection.parse(result.Item) : undefined;
};

export const listConnections = async (clientId: string): Promise<StoredConnection[]> => {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': connectionPartition(clientId), ':prefix': CONNECTION_SK_PREFIX },
      // One connection per connector type: a handful of small items, far below one page.
      ConsistentRead: true,
    }),
  );
  return (result.Items ?? []).map((item) => storedConnection.parse(item));
};

export type SaveConnectionResult = { readonly saved: true; readonly record: Connection } | { readonly saved: false };

/**
 * Writes the connection as `record` says, when the stored one is still `before`: none (then the
 * connection and its uid lookup are created in one transaction), or the same uid, `updated_at`
 * (which only the client's PUT and PATCH change) and status. A new key replaces only what the
 * PUT names (the key, the webhook secret, the mode, the seller id, the limits, and the status with
 * its reason as `record` has them); everything else the item holds stays as it is at the write:
 * the counters, the sync times, the seller-API hold, the breaker's resume marker. Another
 * writer's change in between makes this one `saved: false`, never lost. The record as stored.
 */
export const saveConnection = async (
  clientId: string,
  record: Connection,
  secrets: { readonly sealedKey: SealedValue; readonly sealedWebhookSecret?: SealedValue | undefined },
  before: Connection | undefined,
): Promise<SaveConnectionResult> => {
  try {
    if (before) return { saved: true, record: await replaceConnection(clientId, record, secrets, before) };
    const item: StoredConnection = {
      entity: 'connection',
      record,
      sealedKey: secrets.sealedKey,
      ...(secrets.sealedWebhookSecret ? { sealedWebhookSecret: secrets.sealedWebhookSecret } : {}),
    };
    const put = { TableName: tableName(), Item: { ...connectionKey(clientId, record.connector), ...item }, ConditionExpression: 'attribute_not_exists(pk)' };
    const lookup = {
      TableName: tableName(),
      Item: { ...connectionUidKey(record.uid), ...connectionDirectoryEntry(record.uid), entity: 'connectionUid', clientId, connector: record.connector },
      ConditionExpression: 'attribute_not_exists(pk)',
    };
    await documentClient.send(new TransactWriteCommand({ TransactItems: [{ Put: put }, { Put: lookup }] }));
    return { saved: true, record };
  } catch (error) {
    if (isConditionFailure(error) || cancellationReasons(error)?.some((reason) => reason.Code === 'ConditionalCheckFailed')) return { saved: false };
    throw error;
  }
};

const replaceConnection = async (
  clientId: string,
  record: Connection,
  secrets: { readonly sealedKey: SealedValue; readonly sealedWebhookSecret?: SealedValue | undefined },
  before: Connection,
): Promise<Connection> => {
  const fields: Record<string, unknown> = {
    key_last4: record.key_last4,
    webhook_secret_set: record.webhook_secret_set,
    mode: record.mode,
    status: record.status,
    last_error: record.last_error,
    safety: record.safety,
    updated_at: record.updated_at,
    // A seller id is written only when the PUT changes it: one the marketplace told meanwhile stays.
    ...(record.seller_id !== before.seller_id || record.seller_id_source !== before.seller_id_source
      ? { seller_id: record.seller_id, seller_id_source: record.seller_id_source }
      : {}),
  };
  const entries = Object.entries(fields);
  const sets = ['sealedKey = :sealedKey', ...entries.map((_entry, n) => `#record.#f${n} = :v${n}`)];
  if (secrets.sealedWebhookSecret) sets.push('sealedWebhookSecret = :sealedWebhookSecret');
  const result = await documentClient.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: connectionKey(clientId, record.connector),
      UpdateExpression: `SET ${sets.join(', ')}${secrets.sealedWebhookSecret ? '' : ' REMOVE sealedWebhookSecret'}`,
      ConditionExpression: '#record.#uid = :uid AND #record.updated_at = :updatedAt AND #record.#status = :seenStatus',
      ExpressionAttributeNames: {
        '#record': 'record',
        '#uid': 'uid',
        '#status': 'status',
        ...Object.fromEntries(entries.map(([field], n) => [`#f${n}`, field])),
      },
      ExpressionAttributeValues: {
        ':uid': before.uid,
        ':updatedAt': before.updated_at,
        ':seenStatus': before.status,
        ':sealedKey': secrets.sealedKey,
        ...(secrets.sealedWebhookSecret ? { ':sealedWebhookSecret': secrets.sealedWebhookSecret } : {}),
        ...Object.fromEntries(entries.map(([, value], n) => [`:v${n}`, value])),
      },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return storedConnection.parse(result.Attributes).record;
};

export type PutConnectionOutcome =
  | { readonly kind: 'created' | 'replaced'; readonly record: Connection }
  /** Another PUT, a PATCH or a DELETE changed the connection between this one's read and write. */
  | { readonly kind: 'changed' };

/**
 * A PUT's write: reads the connection, builds its new record from what it read (`build`), and
 * writes it on the condition that nothing changed meanwhile. When only the status moved (the
 * breaker paused the connection, a sync saw a fault), it reads again and builds again, so a pause
 * and its reason are never overwritten; a change by the client (another PUT, a PATCH, a DELETE)
 * is `changed`.
 */
export const putConnection = async (
  clientId: string,
  connector: string,
  secrets: { readonly sealedKey: SealedValue; readonly sealedWebhookSecret?: SealedValue | undefined },
  build: (before: Connection | undefined) => Connection | Promise<Connection>,
): Promise<PutConnectionOutcome> => {
  let before = (await getConnection(clientId, connector))?.record;
  for (let attempt = 1; attempt <= CONNECTION_WRITE_ATTEMPTS; attempt++) {
    const result = await saveConnection(clientId, await build(before), secrets, before);
    if (result.saved) return { kind: before ? 'replaced' : 'created', record: result.record };
    const fresh = (await getConnection(clientId, connector))?.record;
    if (!before || !fresh || fresh.uid !== before.uid || fresh.updated_at !== before.updated_at) return { kind: 'changed' };
    before = fresh;
  }
  return { kind: 'changed' };
};

/** Writes of a connection that lost a race to a status change read again and try this often in all. */
const CONNECTION_WRITE_ATTEMPTS = 4;

/**
 * The kill switch and the limits (PATCH): sets the mode and the named limits, and nothing else,
 * without the key or the marketplace. Conditional on the connection being the one read (same
 * uid) and its limits as read (a map, or none on a connection stored before there were limits);
 * a write that loses to a replaced connection reads again. The record as it now is; undefined
 * when there is no connection.
 */
export const patchConnection = async (
  clientId: string,
  connector: string,
  patch: { readonly mode?: ConnectionMode | undefined; readonly safety?: Partial<ConnectionSafety> | undefined },
  now = nowIso(),
): Promise<Connection | undefined | 'changed'> => {
  for (let attempt = 1; attempt <= CONNECTION_WRITE_ATTEMPTS; attempt++) {
    const read = await documentClient.send(new GetCommand({ TableName: tableName(), Key: connectionKey(clientId, connector), ConsistentRead: true }));
    if (!read.Item) return undefined;
    const stored = storedConnection.parse(read.Item);
    const rawRecord = read.Item.record as Record<string, unknown>;
    const hasSafety = typeof rawRecord.safety === 'object' && rawRecord.safety !== null;
    const limits = Object.entries(patch.safety ?? {}).filter(([, value]) => value !== undefined);
    const sets = ['#record.updated_at = :now'];
    const names: Record<string, string> = { '#record': 'record', '#uid': 'uid' };
    const values: Record<string, unknown> = { ':uid': stored.record.uid, ':now': now };
    if (patch.mode !== undefined) {
      sets.push('#record.#mode = :mode');
      names['#mode'] = 'mode';
      values[':mode'] = patch.mode;
    }
    if (limits.length > 0) {
      names['#safety'] = 'safety';
      if (hasSafety) {
        limits.forEach(([limit, value], n) => {
          sets.push(`#record.#safety.#l${n} = :l${n}`);
          names[`#l${n}`] = limit;
          values[`:l${n}`] = value;
        });
      } else {
        // Stored before there were limits: the defaults it read with, the named ones changed.
        sets.push('#record.#safety = :safety');
        values[':safety'] = { ...stored.record.safety, ...Object.fromEntries(limits) };
      }
    }
    try {
      const result = await documentClient.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: connectionKey(clientId, connector),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: [
            '#record.#uid = :uid',
            ...(limits.length > 0 ? [hasSafety ? 'attribute_exists(#record.#safety)' : 'attribute_not_exists(#record.#safety)'] : []),
          ].join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return storedConnection.parse(result.Attributes).record;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  return 'changed';
};

/** Deletes the connection and its uid lookup; false when there was none. */
export const deleteConnection = async (clientId: string, connector: string): Promise<boolean> => {
  const stored = await getConnection(clientId, connector);
  if (!stored) return false;
  try {
    await documentClient.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              TableName: tableName(),
              Key: connectionKey(clientId, connector),
              ConditionExpression: '#record.#uid = :uid',
              ExpressionAttributeNames: { '#record': 'record', '#uid': 'uid' },
              ExpressionAttributeValues: { ':uid': stored.record.uid },
            },
          },
          { Delete: { TableName: tableName(), Key: connectionUidKey(stored.record.uid) } },
        ],
      }),
    );
    return true;
  } catch (error) {
    // Deleted (or replaced by a new connection) meanwhile: what this request named is gone.
    if (cancellationReasons(error)?.[0]?.Code === 'ConditionalCheckFailed') return false;
    throw error;
  }
};

/** The tenant and connector of a connection uid (for the public marketplace-events route), or undefined. */
export const findConnectionByUid = async (uid: string): Promise<{ readonly clientId: string; readonly connector: string } | undefined> => {
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: connectionUidKey(uid) }));
  if (!result.Item) return undefined;
  const lookup = connectionLookup.parse(result.Item);
  return { clientId: lookup.clientId, connector: lookup.connector };
};

/** What a sync or the sender changes on a connection's record: its status, last error, sync time and counts. */
export type SyncOutcome = Partial<Pick<Connection, 'status' | 'last_error' | 'last_sync_at' | 'offers_synced' | 'seller_id' | 'seller_id_source'>>;

/**
 * Applies a sync's outcome to the connection it ran for: only while it is still that
 * connection with that key (same uid and `updated_at`, which only the client's PUT and PATCH change), so a key put
 * meanwhile is never marked `unauthorized` by a sync that ran with the old one. A status or a
 * last error is written only while the status is still the one the writer read: a breaker's
 * pause (and its reason) is never lifted or hidden by a sync that read the connection before it,
 * and the status and its reason always move together. False when the connection changed or is
 * gone. `updated_at` is the client's: a sync leaves it as it was.
 */
export const recordSyncOutcome = async (clientId: string, seen: Connection, outcome: SyncOutcome): Promise<boolean> => {
  const entries = Object.entries(outcome).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return true;
  const guardsStatus = outcome.status !== undefined || outcome.last_error !== undefined;
  // A seller id the marketplace told is kept only where nobody has said one yet.
  const learnsSeller = outcome.seller_id_source === 'marketplace';
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: connectionKey(clientId, seen.connector),
        UpdateExpression: `SET ${entries.map((_entry, n) => `#record.#f${n} = :v${n}`).join(', ')}`,
        ConditionExpression: [
          '#record.#uid = :uid AND #record.updated_at = :updatedAt',
          ...(guardsStatus ? ['#record.#status = :seenStatus'] : []),
          ...(learnsSeller ? ['(attribute_not_exists(#record.seller_id) OR #record.seller_id = :null)'] : []),
        ].join(' AND '),
        ExpressionAttributeNames: {
          '#record': 'record',
          '#uid': 'uid',
          ...(guardsStatus ? { '#status': 'status' } : {}),
          ...Object.fromEntries(entries.map(([field], n) => [`#f${n}`, field])),
        },
        ExpressionAttributeValues: {
          ':uid': seen.uid,
          ':updatedAt': seen.updated_at,
          ...(guardsStatus ? { ':seenStatus': seen.status } : {}),
          ...(learnsSeller ? { ':null': null } : {}),
          ...Object.fromEntries(entries.map(([, value], n) => [`:v${n}`, value])),
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/**
 * The circuit breaker's pause, with its reason: conditional on the status read like every status
 * write, and read again when another writer moved the status meanwhile (a sync's `error`, say),
 * so a trip is never lost to a race. Already paused: nothing to do. False when the connection is
 * gone or was replaced.
 */
export const pauseConnection = async (clientId: string, seen: Connection, reason: string): Promise<boolean> => {
  let current = seen;
  for (let attempt = 1; attempt <= 3; attempt++) {
    if (current.status === 'paused') return true;
    if (await recordSyncOutcome(clientId, current, { status: 'paused', last_error: reason })) return true;
    const fresh = await getConnection(clientId, seen.connector);
    if (!fresh || fresh.record.uid !== seen.uid) return false;
    current = fresh.record;
  }
  return false;
};

/**
 * Counts entries of marketplace answers that were left out (no seller id, no price, no offer
 * id): one ADD, so readers and syncs running at once never lose each other's counts.
 */
export const countSkippedEntries = async (clientId: string, connector: string, skipped: number): Promise<void> => {
  if (skipped <= 0) return;
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: connectionKey(clientId, connector),
        UpdateExpression: 'ADD #record.entries_skipped :n',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#record': 'record' },
        ExpressionAttributeValues: { ':n': skipped },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

/**
 * Resumes a connection the circuit breaker paused: `connected` again, its last error cleared,
 * and the decisions made until now accepted (the breaker does not count them again when the
 * sender takes the ones it held). The record as it now is; undefined when there is none, `not_paused` when it was not paused.
 */
export const resumeConnection = async (clientId: string, connector: string, now = nowIso()): Promise<Connection | undefined | 'not_paused'> => {
  const stored = await getConnection(clientId, connector);
  if (!stored) return undefined;
  if (stored.record.status !== 'paused') return 'not_paused';
  try {
    const result = await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: connectionKey(clientId, connector),
        UpdateExpression: 'SET #record.#status = :connected, #record.last_error = :null, breakerClearedAt = :now',
        ConditionExpression: '#record.#status = :paused AND #record.#uid = :uid',
        ExpressionAttributeNames: { '#record': 'record', '#status': 'status', '#uid': 'uid' },
        ExpressionAttributeValues: { ':connected': 'connected', ':paused': 'paused', ':null': null, ':uid': stored.record.uid, ':now': now },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return storedConnection.parse(result.Attributes).record;
  } catch (error) {
    if (isConditionFailure(error)) return 'not_paused';
    throw error;
  }
};
