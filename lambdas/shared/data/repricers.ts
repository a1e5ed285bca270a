import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { repricerRecord, type Repricer } from '../domain/records.js';
import { reserveIds } from './counters.js';
import { documentClient, tableName } from './dynamo.js';
import { repricerKey, repricerSlotKey } from './keys.js';
import { cancellationReasons } from './transactions.js';

export const storedRepricer = z.object({ record: repricerRecord });

export type NewRepricer = Omit<Repricer, 'id' | 'uid' | 'created_at' | 'updated_at'>;

export type CreateRepricerResult =
  | { readonly created: true; readonly repricer: Repricer }
  | { readonly created: false; readonly existingId: number };

/**
 * Creates a repricer and claims its (product, connector) slot in one transaction: either both
 * are written or neither. A taken slot reports the id of the repricer holding it.
 */
export const createRepricer = async (clientId: string, input: NewRepricer, now = new Date().toISOString()): Promise<CreateRepricerResult> => {
  const id = await reserveIds('repricer');
  const repricer: Repricer = { id, uid: crypto.randomUUID(), ...input, created_at: now, updated_at: now };
  const slot = repricerSlotKey(clientId, input.product.code, input.connector_type.uid);
  try {
    await documentClient.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: { ...repricerKey(clientId, id), entity: 'repricer', record: repricer },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: { ...slot, entity: 'repricerSlot', repricerId: id },
              ConditionExpression: 'attribute_not_exists(pk)',
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          },
        ],
      }),
    );
    return { created: true, repricer };
  } catch (error) {
    const holder = cancellationReasons(error)?.[1];
    if (holder?.Code === 'ConditionalCheckFailed') {
      // Errors are not unmarshalled by the document client: the item arrives in wire format.
      const existingId = z.object({ repricerId: z.object({ N: z.string() }) }).parse(holder.Item ?? {}).repricerId.N;
      return { created: false, existingId: Number(existingId) };
    }
    throw error;
  }
};
