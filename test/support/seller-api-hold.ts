import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from '../../lambdas/data/table/dynamo.js';
import { connectionKey } from '../../lambdas/data/table/keys.js';

/**
 * A connection's seller-API hold written or read as it is stored (`sendHoldUntil` on the
 * connection item), for tests that hold the runtime's own sender while they drive a sender of
 * their own with a later clock, or that lift a hold early (the service only ever lengthens one).
 */
export const setSellerApiHold = async (clientId: string, connector: string, until: string): Promise<void> => {
  await documentClient.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: connectionKey(clientId, connector),
      UpdateExpression: 'SET sendHoldUntil = :until',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':until': until },
    }),
  );
};

export const sellerApiHoldOf = async (clientId: string, connector: string): Promise<string | undefined> => {
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: connectionKey(clientId, connector), ConsistentRead: true }));
  const until: unknown = result.Item?.sendHoldUntil;
  return typeof until === 'string' ? until : undefined;
};
