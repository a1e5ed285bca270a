import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { connectorTypeRecord, type ConnectorType, type ConnectorTypeFields } from '../domain/records.js';
import { batchGet } from './batch.js';
import { reserveIds } from './counters.js';
import { documentClient, tableName } from './dynamo.js';
import { sameJson } from './json.js';
import { connectorKey } from './keys.js';

/** Connector types are global reference data: shared by every client. */
const storedConnector = z.object({ record: connectorTypeRecord });

export const getConnectorType = async (uid: string): Promise<ConnectorType | undefined> => {
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: connectorKey(uid) }));
  return result.Item ? storedConnector.parse(result.Item).record : undefined;
};

/** Upserts by uid; an unchanged connector is not rewritten. Returns how many were written. */
export const upsertConnectorTypes = async (inputs: readonly ConnectorTypeFields[], now = new Date().toISOString()): Promise<number> => {
  const existing = new Map(
    (await batchGet(inputs.map((c) => connectorKey(c.uid)))).map((item) => {
      const record = storedConnector.parse(item).record;
      return [record.uid, record] as const;
    }),
  );
  let written = 0;
  for (const input of inputs) {
    const before = existing.get(input.uid);
    if (before && sameJson({ ...before, id: 0, created_at: '', updated_at: '' }, { ...input, id: 0, created_at: '', updated_at: '' })) continue;
    const record: ConnectorType = {
      id: before?.id ?? (await reserveIds('connector')),
      ...input,
      created_at: before?.created_at ?? now,
      updated_at: now,
    };
    await documentClient.send(new PutCommand({ TableName: tableName(), Item: { ...connectorKey(input.uid), entity: 'connectorType', record } }));
    existing.set(input.uid, record);
    written++;
  }
  return written;
};
