import { ScanCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from './dynamo.js';
import { tenantPrefix } from './keys.js';

type Key = Record<string, NativeAttributeValue>;

export interface TenantKeysPage {
  readonly keys: readonly { readonly pk: string; readonly sk: string }[];
  /** Items the page read, the tenant's and others': what the Scan cost. */
  readonly scanned: number;
}

/**
 * Every key of one tenant, a page at a time, from one segment of a parallel Scan. Only the
 * operator's account purge uses it: a tenant's partitions include listing cells and rank nodes
 * named from its data, so no index lists them all, and a purge must miss none. Request paths
 * never Scan.
 */
export async function* scanTenantKeys(clientId: string, segment: number, totalSegments: number): AsyncGenerator<TenantKeysPage> {
  let start: Key | undefined;
  do {
    const page = await documentClient.send(
      new ScanCommand({
        TableName: tableName(),
        Segment: segment,
        TotalSegments: totalSegments,
        ProjectionExpression: 'pk, sk',
        FilterExpression: 'begins_with(pk, :prefix)',
        ExpressionAttributeValues: { ':prefix': tenantPrefix(clientId) },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    yield {
      keys: (page.Items ?? []).map((item) => ({ pk: String(item.pk), sk: String(item.sk) })),
      scanned: page.ScannedCount ?? 0,
    };
    start = page.LastEvaluatedKey;
  } while (start);
}
