import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { DIRECTORY_INDEX } from '../../config/table-schema.js';
import { documentClient, tableName } from './dynamo.js';

/**
 * Every value listed under one partition of the keys-only `directory` index (a tenant's product
 * codes, the clients' usernames, every connection's uid), in index order: the one way any of
 * them is read.
 */
export const directoryValues = async (partition: string): Promise<string[]> => {
  const values: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: DIRECTORY_INDEX.indexName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': DIRECTORY_INDEX.partitionKey },
        ExpressionAttributeValues: { ':pk': partition },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    values.push(...(page.Items ?? []).map((item) => String(item[DIRECTORY_INDEX.sortKey])));
    start = page.LastEvaluatedKey;
  } while (start);
  return values;
};
