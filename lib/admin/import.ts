import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { getClient } from '../../lambdas/shared/data/clients.js';
import { upsertConnectorTypes } from '../../lambdas/shared/data/connectors.js';
import { upsertOffers, type OfferInput } from '../../lambdas/shared/data/offers-write.js';
import { getProducts, upsertProducts } from '../../lambdas/shared/data/products.js';
import { UnreadableLine, validateImport, type ImportProblem } from '../../lambdas/shared/domain/import-records.js';

export type { ImportRecord } from '../../lambdas/shared/domain/import-records.js';

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
}

export interface ImportOptions {
  readonly username: string;
  /** Called after each chunk of offers with the number of offers processed so far. */
  readonly onProgress?: (done: number, total: number) => void;
}

/** Offers written per call of the offer writer: large enough to share rank-directory writes. */
const OFFER_CHUNK = 200;

export interface ConnectorImportSummary {
  readonly connectorTypes: number;
  readonly unchangedConnectorTypes: number;
  readonly seconds: number;
}

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
  const referenced = records.flatMap((r, i) => (r.type === 'offer' && !fileProducts.has(r.data.product_code) ? [{ code: r.data.product_code, line: i + 1 }] : []));
  if (referenced.length > 0) {
    const known = await getProducts(client.clientId, referenced.map((r) => r.code));
    for (const { code, line } of referenced) {
      if (!known.has(code)) problems.push({ line, message: `offer names product_code "${code}", which is neither in the file nor loaded` });
    }
  }
  if (problems.length > 0) throw new ImportValidationError(problems.sort((a, b) => a.line - b.line));

  const products = await upsertProducts(client.clientId, records.flatMap((r) => (r.type === 'product' ? [r.data] : [])));
  const offers: OfferInput[] = records.flatMap((r) => (r.type === 'offer' ? [r.data] : []));
  const owner = { clientId: client.clientId, sellerId: client.sellerId, defaultConnector: client.defaultConnector };
  let written = 0;
  let unchanged = 0;
  for (let i = 0; i < offers.length; i += OFFER_CHUNK) {
    const summary = await upsertOffers(owner, offers.slice(i, i + OFFER_CHUNK));
    written += summary.written;
    unchanged += summary.unchanged;
    options.onProgress?.(Math.min(i + OFFER_CHUNK, offers.length), offers.length);
  }
  return { products, offers: written, unchangedOffers: unchanged, seconds: (performance.now() - started) / 1000 };
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
