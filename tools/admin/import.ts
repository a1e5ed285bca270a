import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { getClient } from '../../lambdas/data/clients/clients.js';
import { upsertConnectorTypes } from '../../lambdas/data/connections/connectors.js';
import { upsertOffers, type OfferInput } from '../../lambdas/data/offers/write.js';
import { upsertProducts } from '../../lambdas/data/offers/products.js';
import { CHUNK_LINES, offerReferenceProblems, type ImportOwner } from '../../lambdas/data/imports/writes.js';
import { runImportJob } from '../../lambdas/imports/run-job.js';
import { createImportJob, finishImportJob, getImportJob, reserveImportId } from '../../lambdas/data/imports/imports.js';
import { invalidJobCounters, type ImportJob } from '../../lambdas/domain/import-jobs.js';
import { UnreadableLine, validateImport, type ImportProblem } from '../../lambdas/domain/import-records.js';

/** Offers written per call of the offer writer: the chunk of import jobs, large enough to share rank-directory writes. */
const OFFER_CHUNK = CHUNK_LINES.offers;

export type { ImportRecord } from '../../lambdas/domain/import-records.js';

export class ImportValidationError extends Error {
  constructor(readonly problems: readonly ImportProblem[]) {
    super(`${problems.length} invalid record(s); nothing was written:\n${problems.map((p) => `  line ${p.line}: ${p.message}`).join('\n')}`);
    this.name = 'ImportValidationError';
  }
}

export interface ImportSummary {
  readonly products: number;
  readonly offers: number;
  readonly unchangedOffers: number;
  readonly seconds: number;
  /** The import records written (`jobRecords`): one per kind of line in the file, products first. */
  readonly jobs: readonly ImportJob[];
}

export interface ImportOptions {
  readonly username: string;
  /** Called after each chunk of offers with the number of offers processed so far. */
  readonly onProgress?: (done: number, total: number) => void;
  /**
   * Writes import records (`trigger_type: cli`), as `GET /v1/imports` lists them, and counts
   * each chunk in them as the API's worker does (the CLI's command does; benchmarks that
   * measure what one offer change writes do not).
   */
  readonly jobRecords?: boolean;
}

export interface ConnectorImportSummary {
  readonly connectorTypes: number;
  readonly unchangedConnectorTypes: number;
  readonly seconds: number;
}

const now = () => new Date().toISOString();

/** Records a CLI import that failed validation: nothing was written, each bad line listed. */
const recordInvalidImport = async (clientId: string, owner: ImportOwnerFields, inputs: readonly unknown[], problems: readonly ImportProblem[]) => {
  const hasOffers = inputs.some((input) => (input as { type?: unknown } | null)?.type === 'offer');
  const { id, at } = await reserveImportId();
  return createImportJob(clientId, {
    id,
    at,
    importType: hasOffers ? 'offers' : 'products',
    trigger: 'cli',
    total: inputs.length,
    status: 'failed',
    owner,
    problems: invalidJobCounters(inputs.length, problems),
  });
};

type ImportOwnerFields = { readonly sellerId: string; readonly defaultConnector: string };

/** Runs one kind of line as a CLI import job: the worker's chunked writes and counters. */
const runAsJob = async (owner: ImportOwner, importType: 'products' | 'offers', lines: readonly unknown[], onProgress?: (job: ImportJob) => void) => {
  const { id, at } = await reserveImportId();
  await createImportJob(owner.clientId, {
    id,
    at,
    importType,
    trigger: 'cli',
    total: lines.length,
    status: 'running',
    owner: { sellerId: owner.sellerId, defaultConnector: owner.defaultConnector },
  });
  const job = await getImportJob(owner.clientId, id);
  if (!job) throw new Error(`Import ${id} vanished`);
  try {
    return (await runImportJob(owner, job, lines, onProgress ? { onProgress } : {})).record;
  } catch (error) {
    // No worker will resume a CLI import: it ends failed, at the line it could not get past.
    const current = await getImportJob(owner.clientId, id);
    const line = (current?.record.processed ?? 0) + 1;
    await finishImportJob(owner.clientId, id, { status: 'failed', errors: [{ line, message: `The import stopped: ${(error as Error).message}` }] }, now());
    throw error;
  }
};

/**
 * Loads one client's catalogue, products and offers: validates everything first and writes
 * nothing when any record is bad (a connector type among them included: reference data is
 * the operator's, see importConnectorTypes); then upserts products, then offers.
 */
export const importRecords = async (inputs: readonly unknown[], options: ImportOptions): Promise<ImportSummary> => {
  const started = performance.now();
  const client = await getClient(options.username);
  if (!client) throw new Error(`No client named "${options.username}"`);
  const { records, problems } = validateImport(inputs, 'catalogue');

  const fileProducts = new Set(records.flatMap((r) => (r.type === 'product' ? [r.data.code] : [])));
  const referenced = records.flatMap((r, i) => (r.type === 'offer' ? [{ productCode: r.data.product_code, line: i + 1 }] : []));
  problems.push(...(await offerReferenceProblems(client.clientId, referenced, fileProducts)));
  const owner = { clientId: client.clientId, sellerId: client.sellerId, defaultConnector: client.defaultConnector };
  if (problems.length > 0) {
    if (options.jobRecords) await recordInvalidImport(client.clientId, owner, inputs, problems);
    throw new ImportValidationError(problems.sort((a, b) => a.line - b.line));
  }

  const productLines = records.flatMap((r) => (r.type === 'product' ? [r.data] : []));
  const offers: OfferInput[] = records.flatMap((r) => (r.type === 'offer' ? [r.data] : []));
  if (options.jobRecords) {
    const jobs: ImportJob[] = [];
    if (productLines.length > 0) jobs.push(await runAsJob(owner, 'products', productLines));
    if (offers.length > 0) jobs.push(await runAsJob(owner, 'offers', offers, (job) => options.onProgress?.(job.processed, job.total)));
    const [productJob, offerJob] = [jobs.find((j) => j.import_type === 'products'), jobs.find((j) => j.import_type === 'offers')];
    return {
      products: (productJob?.created ?? 0) + (productJob?.updated ?? 0),
      offers: (offerJob?.created ?? 0) + (offerJob?.updated ?? 0),
      unchangedOffers: offerJob?.skipped ?? 0,
      seconds: (performance.now() - started) / 1000,
      jobs,
    };
  }

  const products = await upsertProducts(client.clientId, productLines);
  let written = 0;
  let unchanged = 0;
  for (let i = 0; i < offers.length; i += OFFER_CHUNK) {
    const summary = await upsertOffers(owner, offers.slice(i, i + OFFER_CHUNK));
    written += summary.written;
    unchanged += summary.unchanged;
    options.onProgress?.(Math.min(i + OFFER_CHUNK, offers.length), offers.length);
  }
  return { products, offers: written, unchangedOffers: unchanged, seconds: (performance.now() - started) / 1000, jobs: [] };
};

/**
 * The operator's command for reference data: upserts connector types by uid, for every client
 * at once. Validates the whole file first and writes nothing when any line is bad (a product
 * or an offer among them included).
 */
export const importConnectorTypes = async (inputs: readonly unknown[]): Promise<ConnectorImportSummary> => {
  const started = performance.now();
  const { records, problems } = validateImport(inputs, 'connectors');
  if (problems.length > 0) throw new ImportValidationError(problems);
  const connectors = records.flatMap((r) => (r.type === 'connector_type' ? [r.data] : []));
  const written = await upsertConnectorTypes(connectors);
  return { connectorTypes: written, unchangedConnectorTypes: connectors.length - written, seconds: (performance.now() - started) / 1000 };
};

/** Reads an NDJSON file; a line that is not JSON is reported like any other invalid record. */
export const readNdjson = async (path: string): Promise<unknown[]> => {
  const lines: unknown[] = [];
  const reader = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  for await (const line of reader) {
    if (line.trim() === '') {
      lines.push(new UnreadableLine('empty line'));
      continue;
    }
    try {
      lines.push(JSON.parse(line));
    } catch {
      lines.push(new UnreadableLine('not valid JSON'));
    }
  }
  return lines;
};

export type { ImportProblem };
