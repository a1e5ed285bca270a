import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { PRICE_SENDING } from '../../config/price-sending.js';
import { TTL_ATTRIBUTE } from '../../config/table-schema.js';
import type { PriceChange, PriceChangeStatus } from '../../domain/records.js';
import { connectionKey, part, priceChangePartition, pushCountKey, pushedBatchKey, breakerWindowKey, sentBatchKey } from '../table/keys.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { PRICE_CHANGE_LIST } from './list.js';
import { PRICE_CHANGE_SK_PREFIX } from '../table/keys.js';
import type { PriceChangeRef } from './status.js';
import { readRankedPage } from '../lists/ranked/read-page.js';
import { REPRICER_LIST, repricerCell } from '../repricers/list.js';
import { isConditionFailure } from '../table/conditions.js';

/**
 * What the price sender reads and writes besides the price changes themselves: which decision
 * is an offer's latest, the per-offer daily push count, the circuit breaker's window, the
 * changes a batch carried, the batch a push token became, and the changes of a connection
 * waiting in one status (from the tenant's price-change list). The connection's seller-API
 * hold is in seller-api-hold.ts.
 */
const expiresIn = (nowMs: number, days: number) => Math.floor(nowMs / 1000) + days * 86_400;

/** One of the latest decisions of a repricer for an offer: where it is, and whether a push of it is in doubt. */
export interface OfferDecision {
  readonly sk: string;
  /** Pending with a push token: a push that may have reached the marketplace, not told yet. */
  readonly inDoubt: boolean;
}

/**
 * The newest decisions of this repricer for this offer, newest first: a pending one older than
 * the first is superseded, and none goes while an older one's push is in doubt.
 */
export const latestOfferDecisions = async (clientId: string, change: PriceChange, limit = 10): Promise<OfferDecision[]> => {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: {
        ':pk': priceChangePartition(clientId, change.product_code),
        ':prefix': `${PRICE_CHANGE_SK_PREFIX}${change.repricer_id}#${part(change.offer_id)}#`,
      },
      ScanIndexForward: false,
      Limit: limit,
      ConsistentRead: true,
      ProjectionExpression: 'sk, pushToken, #r.#status',
      ExpressionAttributeNames: { '#r': 'record', '#status': 'status' },
    }),
  );
  return (result.Items ?? []).flatMap((item) => {
    const sk: unknown = item.sk;
    const status = (item.record as { status?: unknown } | undefined)?.status;
    return typeof sk === 'string' ? [{ sk, inDoubt: typeof item.pushToken === 'string' && status === 'pending' }] : [];
  });
};

/**
 * Counts one push of an offer on the day; false (and nothing counted) when the day's cap is
 * reached. Counted before the push, so pushes in flight hold their place under the cap; one
 * the marketplace is known not to have taken is given back (`givePushBack`).
 */
export const countPush = async (clientId: string, productCode: string, offerId: string, day: string, cap: number, nowMs: number): Promise<boolean> => {
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: pushCountKey(clientId, productCode, offerId, day),
        UpdateExpression: 'ADD pushes :one SET #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(pushes) OR pushes < :cap',
        ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
        ExpressionAttributeValues: { ':one': 1, ':cap': cap, ':ttl': expiresIn(nowMs, PRICE_SENDING.pushCountRetentionDays) },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/** Gives back a push counted on the day that the marketplace did not take (never below zero). */
export const givePushBack = async (clientId: string, productCode: string, offerId: string, day: string): Promise<void> => {
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: pushCountKey(clientId, productCode, offerId, day),
        UpdateExpression: 'ADD pushes :minus',
        ConditionExpression: 'pushes > :zero',
        ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

/** Notes an offer's sharp drop in the breaker's window; the number of distinct offers that dropped sharply in it. */
export const noteSharpDrop = async (clientId: string, connector: string, window: string, offerId: string, nowMs: number): Promise<number> => {
  const result = await documentClient.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: breakerWindowKey(clientId, connector, window),
      UpdateExpression: 'ADD offers :offer SET #ttl = :ttl',
      ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
      ExpressionAttributeValues: { ':offer': new Set([offerId]), ':ttl': expiresIn(nowMs, 1) },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const offers = result.Attributes?.offers as Set<string> | undefined;
  return offers?.size ?? 1;
};

/**
 * The client's enabled repricers: the offers it reprices, as the breaker counts them. From the
 * repricer list's counts (one small read however many there are), so only when a drop is sharp.
 */
export const enabledRepricerCount = async (clientId: string): Promise<number> => {
  const enabled = repricerCell(true);
  const page = await readRankedPage(clientId, REPRICER_LIST, {
    order: 'id',
    direction: 'ASC',
    filter: { cells: (cell) => cell === enabled },
    start: 0,
    limit: 1,
  });
  return page.total;
};

const sentBatch = z.object({ refs: z.array(z.object({ productCode: z.string(), sk: z.string() })) });

/** Which price changes a batch carried: what its outcome is applied to, however it arrives (a poll, an event, a sweep). */
export const saveSentBatch = async (clientId: string, connector: string, batchId: string, refs: readonly PriceChangeRef[], nowMs: number): Promise<void> => {
  await documentClient.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...sentBatchKey(clientId, connector, batchId),
        entity: 'sentBatch',
        refs,
        [TTL_ATTRIBUTE]: expiresIn(nowMs, PRICE_SENDING.batchRetentionDays),
      },
    }),
  );
};

export const readSentBatch = async (clientId: string, connector: string, batchId: string): Promise<PriceChangeRef[] | undefined> => {
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: sentBatchKey(clientId, connector, batchId), ConsistentRead: true }));
  const parsed = sentBatch.safeParse(result.Item);
  return parsed.success ? parsed.data.refs : undefined;
};

/** Which batch a push token became, written as soon as the marketplace answers the push (one item per batch). */
export const savePushedBatch = async (clientId: string, connector: string, pushToken: string, batchId: string, nowMs: number): Promise<void> => {
  await documentClient.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...pushedBatchKey(clientId, connector, pushToken),
        entity: 'pushedBatch',
        batchId,
        [TTL_ATTRIBUTE]: expiresIn(nowMs, PRICE_SENDING.batchRetentionDays),
      },
    }),
  );
};

export const readPushedBatch = async (clientId: string, connector: string, pushToken: string): Promise<string | undefined> => {
  const result = await documentClient.send(
    new GetCommand({ TableName: tableName(), Key: pushedBatchKey(clientId, connector, pushToken), ConsistentRead: true }),
  );
  const batchId: unknown = result.Item?.batchId;
  return typeof batchId === 'string' ? batchId : undefined;
};

/** Adds sent prices to the connection's `prices_sent` count (its record's counter). */
export const countPricesSent = async (clientId: string, connector: string, sent: number): Promise<void> => {
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: connectionKey(clientId, connector),
        UpdateExpression: 'SET #r.prices_sent = #r.prices_sent + :n',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#r': 'record' },
        ExpressionAttributeValues: { ':n': sent },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

/**
 * A connection's price changes listed in one status (the tenant's list, cells `status|reason`),
 * oldest first, from position `start` of the tenant's changes in that status, with where each
 * canonical item is, and how many the tenant has in it (every connection's). The list follows
 * the table's stream, so what it names is read again before anything is done with it.
 */
export const statusPage = async (
  clientId: string,
  connector: string,
  status: PriceChangeStatus,
  start: number,
  limit: number,
): Promise<{ refs: PriceChangeRef[]; total: number }> => {
  const page = await readRankedPage(clientId, PRICE_CHANGE_LIST, {
    order: 'id',
    direction: 'ASC',
    filter: { cells: (cell) => cell.startsWith(`${status}|`) },
    start,
    limit,
  });
  const refs = page.records.flatMap((record, index) => {
    const origin = page.origins[index];
    return record.connector === connector && origin ? [{ productCode: record.product_code, sk: origin.sk }] : [];
  });
  return { refs, total: page.total };
};

/** The first `limit` of a connection's price changes in one status, oldest first. */
export const changesInStatus = async (clientId: string, connector: string, status: PriceChangeStatus, limit: number): Promise<PriceChangeRef[]> =>
  (await statusPage(clientId, connector, status, 0, limit)).refs;
