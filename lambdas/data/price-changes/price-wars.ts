import { PutCommand, QueryCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { warState, type WarState } from '../../domain/price-war.js';
import { mapLimit } from '../table/concurrency.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { productPartition, WAR_SK_PREFIX, warKey } from '../table/keys.js';
import { now } from '../../config/clock.js';

/**
 * The price-war guard's state (domain/price-war.ts): one small item per repricer and own offer
 * in the product's partition, so the evaluator's one Query of the partition reads it with the
 * rest. It expires a day after its last write or the end of its hold, whichever is later: an
 * item whose repricer or offer is gone does not stay.
 */
const WAR_ENTITY = 'priceWar';
const KEEP_AFTER_MS = 86_400_000;

export const warStateId = (repricerId: number, offerId: string) => `${repricerId}#${offerId}`;

export const storedWarState = z.object({
  entity: z.literal(WAR_ENTITY),
  repricerId: z.int().positive(),
  offerId: z.string(),
  productCode: z.string(),
  connector: z.string(),
  state: warState,
});
export type StoredWarState = z.infer<typeof storedWarState>;

/** The war states among a partition's items, by `warStateId`; an unreadable one counts as none (the guard starts afresh). */
export const warStatesOf = (items: readonly Record<string, NativeAttributeValue>[]): Map<string, WarState> =>
  new Map(
    items
      .filter((item) => item.entity === WAR_ENTITY)
      .flatMap((item) => {
        const parsed = storedWarState.safeParse(item);
        return parsed.success ? [[warStateId(parsed.data.repricerId, parsed.data.offerId), parsed.data.state] as const] : [];
      }),
  );

export interface WarStateWrite {
  readonly repricerId: number;
  readonly offerId: string;
  readonly connector: string;
  readonly state: WarState;
}

export const writeWarStates = async (clientId: string, code: string, writes: readonly WarStateWrite[], nowMs = now()): Promise<void> => {
  await mapLimit(writes, async (write) => {
    const item: StoredWarState = {
      entity: WAR_ENTITY,
      repricerId: write.repricerId,
      offerId: write.offerId,
      productCode: code,
      connector: write.connector,
      state: write.state,
    };
    const expiresAt = Math.floor((Math.max(nowMs, write.state.hold?.until ?? 0) + KEEP_AFTER_MS) / 1000);
    await documentClient.send(
      new PutCommand({ TableName: tableName(), Item: { ...warKey(clientId, code, write.repricerId, write.offerId), ...item, expiresAt } }),
    );
  });
};

/** One repricer's war states in the product's partition, by own offer id (the price-change list reads them on its own). */
export const readWarStates = async (clientId: string, code: string, repricerId: number): Promise<Map<string, WarState>> => {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :war)',
      ExpressionAttributeValues: { ':pk': productPartition(clientId, code), ':war': `${WAR_SK_PREFIX}${repricerId}#` },
      ConsistentRead: true,
    }),
  );
  return new Map(
    (result.Items ?? []).flatMap((item) => {
      const parsed = storedWarState.safeParse(item);
      return parsed.success ? [[parsed.data.offerId, parsed.data.state] as const] : [];
    }),
  );
};
