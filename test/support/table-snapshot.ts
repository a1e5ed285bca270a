/**
 * Every item of a test's table, for before/after comparisons. Scans are allowed here: tests
 * inspect the whole table, request paths never do.
 */
import { ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { createLocalDynamoClient } from '../../tools/local/dynamodb-local.js';

export type TableItem = Record<string, AttributeValue>;
/** Items by `pk␀sk`, each as JSON text with sorted attributes, so snapshots compare with toEqual. */
export type TableSnapshot = Map<string, string>;

export interface TableScanner {
  scan(): Promise<TableSnapshot>;
  close(): void;
}

const keyOf = (item: TableItem): string => `${item.pk?.S ?? ''}\u0000${item.sk?.S ?? ''}`;

export const tableScanner = (tableName: string): TableScanner => {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('DYNAMODB_ENDPOINT is not set');
  const client = createLocalDynamoClient(endpoint);
  return {
    async scan() {
      const items: TableSnapshot = new Map();
      let start: TableItem | undefined;
      do {
        const page = await client.send(new ScanCommand({ TableName: tableName, ConsistentRead: true, ...(start ? { ExclusiveStartKey: start } : {}) }));
        for (const item of page.Items ?? []) {
          items.set(keyOf(item), JSON.stringify(Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b)))));
        }
        start = page.LastEvaluatedKey;
      } while (start);
      return items;
    },
    close: () => client.destroy(),
  };
};

export const scanTable = async (tableName: string): Promise<TableSnapshot> => {
  const scanner = tableScanner(tableName);
  try {
    return await scanner.scan();
  } finally {
    scanner.close();
  }
};

/** The snapshot's items whose partition key starts with `prefix`. */
export const itemsUnder = (snapshot: TableSnapshot, prefix: string): TableSnapshot => new Map([...snapshot].filter(([key]) => key.startsWith(prefix)));
