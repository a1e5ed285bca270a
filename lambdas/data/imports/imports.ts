import { gunzipSync, gzipSync } from 'node:zlib';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { importError, importJobRecord, type ImportJob, type ImportQuery, type ImportStatus, type ImportType } from '../../domain/import-jobs.js';
import type { ImportProblem } from '../../domain/import-records.js';
import { mapLimit } from '../table/concurrency.js';
import { reserveTimedIds } from '../table/counters.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { importBodyKey, importKey, importsPartition } from '../table/keys.js';
import { idKey, MAX_ID } from '../table/sort-keys.js';
import { nowIso } from '../../config/clock.js';

/**
 * Import jobs: one item per job under the tenant's `IMP` partition (`entity: 'import'`, the
 * API record under `record`), and its NDJSON body in gzipped chunks of its own partition.
 * Every change of a job's status is a change of that item on the table's stream.
 */
export const IMPORT_RETENTION_DAYS = 90;
/** The body is needed only until the job ends; DynamoDB's TTL removes it for free. */
const BODY_RETENTION_DAYS = 7;
/** Raw bytes per body chunk: gzipped, far below DynamoDB's 400 KB item limit even for incompressible text. */
const BODY_CHUNK_BYTES = 300 * 1024;

/** A chunk being written: what it will count, saved before its writes so a redelivery counts it once. */
export const pendingChunk = z.object({ to: z.int().min(0), created: z.int().min(0), updated: z.int().min(0), skipped: z.int().min(0) });
export type PendingChunk = z.infer<typeof pendingChunk>;

export const storedImportJob = z.object({
  entity: z.literal('import'),
  record: importJobRecord,
  /** Deliveries of the job to a worker so far. */
  attempts: z.int().min(0),
  /** Whether the references of its lines (products, connectors) were checked before the first write. */
  checked: z.boolean(),
  bodyChunks: z.int().min(0),
  /** What the worker needs of the client (it may not read client items): offers with this seller id are own offers. */
  owner: z.object({ sellerId: z.string(), defaultConnector: z.string() }),
  pending: pendingChunk.optional(),
});
export type StoredImportJob = z.infer<typeof storedImportJob>;

const expiry = (at: string, days: number) => Math.floor(Date.parse(at) / 1000) + days * 86_400;
const jobKey = (clientId: string, id: number) => importKey(clientId, idKey(id));

/** A fresh job id, with a creation time later than every earlier job's: id order is creation order. */
export const reserveImportId = async (): Promise<{ id: number; at: string }> => {
  const { first, at } = await reserveTimedIds('import', 1);
  return { id: first, at };
};

/** Stores an NDJSON body in gzipped chunks; returns how many. */
export const storeImportBody = async (clientId: string, id: number, body: Buffer, now = nowIso()): Promise<number> => {
  const count = Math.max(1, Math.ceil(body.byteLength / BODY_CHUNK_BYTES));
  await mapLimit(
    Array.from({ length: count }, (_, n) => n),
    (n) =>
      documentClient.send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...importBodyKey(clientId, id, n),
            entity: 'importBody',
            data: gzipSync(body.subarray(n * BODY_CHUNK_BYTES, (n + 1) * BODY_CHUNK_BYTES)),
            expiresAt: expiry(now, BODY_RETENTION_DAYS),
          },
        }),
      ),
  );
  return count;
};

export const loadImportBody = async (clientId: string, id: number, chunks: number): Promise<string> => {
  const parts = await mapLimit(
    Array.from({ length: chunks }, (_, n) => n),
    async (n) => {
      const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: importBodyKey(clientId, id, n), ConsistentRead: true }));
      const data = z.object({ data: z.instanceof(Uint8Array) }).parse(result.Item).data;
      return gunzipSync(data);
    },
  );
  return Buffer.concat(parts).toString('utf8');
};

export interface NewImportJob {
  readonly id: number;
  readonly at: string;
  readonly importType: ImportType;
  readonly trigger: ImportJob['trigger_type'];
  readonly total: number;
  readonly status: ImportStatus;
  readonly bodyChunks?: number;
  readonly owner: StoredImportJob['owner'];
  /** A job that failed validation: its bad lines (it is created `failed`, with nothing written). */
  readonly problems?: { readonly invalid: number; readonly errors: readonly ImportProblem[] };
}

export const createImportJob = async (clientId: string, job: NewImportJob): Promise<ImportJob> => {
  const ended = job.status === 'failed' || job.status === 'completed';
  const record: ImportJob = {
    id: job.id,
    uid: crypto.randomUUID(),
    import_type: job.importType,
    status: job.status,
    trigger_type: job.trigger,
    total: job.total,
    processed: 0,
    created: 0,
    updated: 0,
    skipped: 0,
    invalid: job.problems?.invalid ?? 0,
    errors: [...(job.problems?.errors ?? [])],
    start_time: job.status === 'pending' ? null : job.at,
    end_time: ended ? job.at : null,
    created_at: job.at,
    updated_at: job.at,
  };
  const stored: StoredImportJob = { entity: 'import', record, attempts: 0, checked: false, bodyChunks: job.bodyChunks ?? 0, owner: job.owner };
  await documentClient.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...jobKey(clientId, job.id), ...stored, expiresAt: expiry(job.at, IMPORT_RETENTION_DAYS) },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return record;
};

export const getImportJob = async (clientId: string, id: number): Promise<StoredImportJob | undefined> => {
  if (!Number.isSafeInteger(id) || id < 1 || id > MAX_ID) return undefined;
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: jobKey(clientId, id), ConsistentRead: true }));
  return result.Item ? storedImportJob.parse(result.Item) : undefined;
};

/**
 * One page of a tenant's jobs. The partition holds only the jobs of the retention period
 * (90 days; each one a request of the client's daily quota), read in id order with the
 * filters applied while reading, so `meta.total` is exact and the read is bounded by that
 * partition, not by the tenant's catalogue. Ids are reserved in time order, so `created_at`
 * is the id order.
 */
export const listImportJobs = async (clientId: string, query: ImportQuery): Promise<{ total: number; imports: ImportJob[] }> => {
  const names: Record<string, string> = { '#r': 'record' };
  const values: Record<string, NativeAttributeValue> = { ':pk': importsPartition(clientId) };
  const filters: string[] = [];
  if (query.importType) {
    Object.assign(names, { '#type': 'import_type' });
    values[':type'] = query.importType;
    filters.push('#r.#type = :type');
  }
  if (query.status) {
    Object.assign(names, { '#status': 'status' });
    values[':status'] = query.status;
    filters.push('#r.#status = :status');
  }
  const matching: ImportJob[] = [];
  let startKey: Record<string, NativeAttributeValue> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
        ProjectionExpression: '#r',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ScanIndexForward: query.sort.direction === 'ASC',
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    for (const item of page.Items ?? []) matching.push(importJobRecord.parse(item.record));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { total: matching.length, imports: matching.slice(query.start, query.start + query.limit) };
};

const recordUpdate = (fields: Record<string, unknown>) => {
  const names: Record<string, string> = { '#r': 'record' };
  const values: Record<string, unknown> = {};
  const sets = Object.entries(fields).map(([field, value], i) => {
    names[`#f${i}`] = field;
    values[`:f${i}`] = value;
    return `#r.#f${i} = :f${i}`;
  });
  return { sets, names, values };
};

const update = async (
  clientId: string,
  id: number,
  parts: { sets: string[]; removes?: string[]; names: Record<string, string>; values: Record<string, NativeAttributeValue>; condition: string },
): Promise<StoredImportJob> => {
  const expression = [`SET ${parts.sets.join(', ')}`, parts.removes?.length ? `REMOVE ${parts.removes.join(', ')}` : ''].join(' ').trim();
  const result = await documentClient.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: jobKey(clientId, id),
      UpdateExpression: expression,
      ConditionExpression: parts.condition,
      ...(Object.keys(parts.names).length > 0 ? { ExpressionAttributeNames: parts.names } : {}),
      ExpressionAttributeValues: parts.values,
      ReturnValues: 'ALL_NEW',
    }),
  );
  return storedImportJob.parse(result.Attributes);
};

/**
 * Counts a delivery of the job to a worker and marks it running; conditioned on the attempts
 * read, so two deliveries racing for one job cannot both count the same one.
 */
export const beginImportAttempt = (clientId: string, job: StoredImportJob, now: string): Promise<StoredImportJob> => {
  const { sets, names, values } = recordUpdate({ status: 'running', start_time: job.record.start_time ?? now, updated_at: now });
  return update(clientId, job.record.id, {
    sets: [...sets, 'attempts = :next'],
    names,
    values: { ...values, ':next': job.attempts + 1, ':attempts': job.attempts },
    condition: 'attempts = :attempts',
  });
};

export const markImportChecked = (clientId: string, id: number): Promise<StoredImportJob> =>
  update(clientId, id, { sets: ['checked = :yes'], names: {}, values: { ':yes': true }, condition: 'attribute_exists(pk)' });

/** Saves what a chunk starting at `from` will count, before any of its writes. */
export const savePendingChunk = (clientId: string, id: number, from: number, pending: PendingChunk, now: string): Promise<StoredImportJob> => {
  const { sets, names, values } = recordUpdate({ updated_at: now });
  return update(clientId, id, {
    sets: [...sets, 'pending = :pending'],
    names: { ...names, '#processed': 'processed' },
    values: { ...values, ':pending': pending, ':from': from },
    condition: '#r.#processed = :from',
  });
};

/** Adds a written chunk's counts and moves `processed` past it, once: conditioned on where it started. */
export const commitPendingChunk = (clientId: string, id: number, from: number, pending: PendingChunk, now: string): Promise<StoredImportJob> =>
  update(clientId, id, {
    sets: [
      '#r.#processed = :to',
      '#r.#created = #r.#created + :created',
      '#r.#updated = #r.#updated + :updated',
      '#r.#skipped = #r.#skipped + :skipped',
      '#r.#at = :now',
    ],
    removes: ['pending'],
    names: { '#r': 'record', '#processed': 'processed', '#created': 'created', '#updated': 'updated', '#skipped': 'skipped', '#at': 'updated_at' },
    values: { ':to': pending.to, ':created': pending.created, ':updated': pending.updated, ':skipped': pending.skipped, ':now': now, ':from': from },
    condition: '#r.#processed = :from',
  });

/** Ends a job that has not ended: `completed`, or `failed` with the lines that say why. */
export const finishImportJob = (
  clientId: string,
  id: number,
  outcome: { status: 'completed' } | { status: 'failed'; invalid?: number; errors: readonly z.infer<typeof importError>[] },
  now: string,
): Promise<StoredImportJob> => {
  const fields: Record<string, NativeAttributeValue> = { status: outcome.status, end_time: now, updated_at: now };
  if (outcome.status === 'failed') {
    fields.errors = [...outcome.errors];
    if (outcome.invalid !== undefined) fields.invalid = outcome.invalid;
  }
  const { sets, names, values } = recordUpdate(fields);
  return update(clientId, id, {
    sets,
    names: { ...names, '#status': 'status' },
    values: { ...values, ':pending': 'pending', ':running': 'running' },
    condition: '#r.#status IN (:pending, :running)',
  });
};
