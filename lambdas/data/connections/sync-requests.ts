import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { syncRequestLimit } from '../../config/sync-requests.js';
import type { Connection } from '../../domain/connections.js';
import { fullSyncWanted } from '../../domain/market-schedule.js';
import { decideSync, noSyncRequests, syncRan, type SyncDecision, type SyncLimit, type SyncRequests } from '../../domain/read-planner/sync-limit.js';
import { isConditionFailure } from '../table/conditions.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { connectionKey } from '../table/keys.js';
import { getConnection, parseStoredConnection, type StoredConnection } from './connections.js';

/**
 * `POST /v1/connections/{connector}/sync`, rate-limited and coalesced per connection
 * (docs/connections.md): the connection item keeps `syncRequests`, the times of the syncs
 * accepted within the window and whether one has not run yet, with a version every write
 * conditions on, so two concurrent requests never both pass the limit.
 */
/** Lost races before the request is answered 409: each retry reads the connection again. */
const ATTEMPTS = 5;

/**
 * What is stored, with `pending` only while the record still waits for a full sync: a sync that
 * ran without marking it (a request accepted while it ran) never holds later requests forever.
 */
const requestsOf = (stored: StoredConnection): SyncRequests => {
  const kept = stored.syncRequests;
  if (!kept) return noSyncRequests;
  return { acceptedAt: kept.acceptedAt, pending: kept.pending && fullSyncWanted(stored.record) };
};

export type SyncAdmission =
  { readonly kind: 'missing' } | { readonly kind: 'changed' } | { readonly kind: 'decided'; readonly decision: SyncDecision; readonly record: Connection };

const conditionOn = (stored: StoredConnection) =>
  stored.syncRequests
    ? { expression: '#record.#uid = :uid AND syncRequests.version = :version', values: { ':version': stored.syncRequests.version } }
    : { expression: '#record.#uid = :uid AND attribute_not_exists(syncRequests)', values: {} };

/**
 * Decides a sync request now: accepted (recorded with `sync_requested_at`, which the market
 * schedule takes as a request for a full sync), coalesced into the one accepted and not run yet
 * (nothing written, nothing more queued) or rejected beyond the limit.
 */
export const admitSync = async (clientId: string, connector: string, nowMs: number, limit: SyncLimit = syncRequestLimit()): Promise<SyncAdmission> => {
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const stored = await getConnection(clientId, connector);
    if (!stored) return { kind: 'missing' };
    const { decision, state } = decideSync(requestsOf(stored), nowMs, limit);
    if (decision.decision !== 'accept') return { kind: 'decided', decision, record: stored.record };
    const condition = conditionOn(stored);
    try {
      const result = await documentClient.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: connectionKey(clientId, connector),
          UpdateExpression: 'SET syncRequests = :requests, #record.sync_requested_at = :now',
          ConditionExpression: condition.expression,
          ExpressionAttributeNames: { '#record': 'record', '#uid': 'uid' },
          ExpressionAttributeValues: {
            ':uid': stored.record.uid,
            ':requests': { ...state, acceptedAt: [...state.acceptedAt], version: (stored.syncRequests?.version ?? 0) + 1 },
            ':now': new Date(nowMs).toISOString(),
            ...condition.values,
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { kind: 'decided', decision, record: parseStoredConnection(result.Attributes).record };
    } catch (error) {
      // Another request (or the sync worker) wrote first: decide again on what it left.
      if (!isConditionFailure(error)) throw error;
    }
  }
  return { kind: 'changed' };
};

/**
 * The sync worker ran the full sync a request asked for: the next request may start another.
 * Only while nothing was accepted since the worker read the connection (the newer request stays
 * pending); false when nothing was written.
 */
export const markSyncRan = async (clientId: string, seen: StoredConnection): Promise<boolean> => {
  const kept = seen.syncRequests;
  if (!kept?.pending) return false;
  const ran = syncRan({ acceptedAt: kept.acceptedAt, pending: kept.pending });
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: connectionKey(clientId, seen.record.connector),
        UpdateExpression: 'SET syncRequests = :requests',
        ConditionExpression: '#record.#uid = :uid AND syncRequests.version = :version',
        ExpressionAttributeNames: { '#record': 'record', '#uid': 'uid' },
        ExpressionAttributeValues: {
          ':uid': seen.record.uid,
          ':version': kept.version,
          ':requests': { acceptedAt: [...ran.acceptedAt], pending: ran.pending, version: kept.version + 1 },
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};
