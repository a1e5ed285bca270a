import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { connectorTypeRecord, DEFAULT_PRICE_STEP, priceStep, type ConnectorType, type ConnectorTypeFields } from '../../domain/records.js';
import { batchGet } from '../table/batch.js';
import { reserveIds } from '../table/counters.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { sameJson } from '../../domain/json.js';
import { connectorKey } from '../table/keys.js';
import { now, nowIso } from '../../config/clock.js';

/**
 * Connector types are global reference data: shared by every client. Beside the API record the
 * item keeps `priceStep`, the operator's price increment for repricing (priceStepOf below reads
 * it); an item written before it existed has the default.
 */
const storedConnector = z.object({ record: connectorTypeRecord, priceStep: z.number().positive().optional() });

/** A connector type line of the operator's import: the record's fields and the optional `price_step`. */
export type ConnectorTypeInput = ConnectorTypeFields & { readonly price_step?: number | undefined };

export const getConnectorType = async (uid: string): Promise<ConnectorType | undefined> => {
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: connectorKey(uid) }));
  return result.Item ? storedConnector.parse(result.Item).record : undefined;
};

/** Upserts by uid; an unchanged connector (record and price step) is not rewritten. Returns how many were written. */
export const upsertConnectorTypes = async (inputs: readonly ConnectorTypeInput[], now = nowIso()): Promise<number> => {
  const existing = new Map(
    (await batchGet(inputs.map((c) => connectorKey(c.uid)))).map((item) => {
      const stored = storedConnector.parse(item);
      return [stored.record.uid, { record: stored.record, priceStep: stored.priceStep ?? DEFAULT_PRICE_STEP }] as const;
    }),
  );
  let written = 0;
  for (const { price_step, ...fields } of inputs) {
    const priceStep = price_step ?? DEFAULT_PRICE_STEP;
    const before = existing.get(fields.uid);
    const sameRecord = before && sameJson({ ...before.record, id: 0, created_at: '', updated_at: '' }, { ...fields, id: 0, created_at: '', updated_at: '' });
    if (before && sameRecord && before.priceStep === priceStep) continue;
    const record: ConnectorType = {
      id: before?.record.id ?? (await reserveIds('connector')),
      ...fields,
      created_at: before?.record.created_at ?? now,
      // The price step is not in the record: changing only it leaves the record as it was.
      updated_at: before && sameRecord ? before.record.updated_at : now,
    };
    await documentClient.send(new PutCommand({ TableName: tableName(), Item: { ...connectorKey(fields.uid), entity: 'connectorType', record, priceStep } }));
    existing.set(fields.uid, { record, priceStep });
    written++;
  }
  return written;
};

const stepCache = new Map<string, { step: number; at: number }>();
const STEP_CACHE_MS = 60_000;

/** A connector type's price increment (an operator setting of the connector type; 1.00 when unset). */
export const priceStepOf = async (connector: string): Promise<number> => {
  const cached = stepCache.get(connector);
  if (cached && now() - cached.at < STEP_CACHE_MS) return cached.step;
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: connectorKey(connector) }));
  const stored = priceStep.safeParse(result.Item?.priceStep);
  const step = stored.success ? stored.data : DEFAULT_PRICE_STEP;
  stepCache.set(connector, { step, at: now() });
  return step;
};
