import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { newRepricer, type CreateRepricerError, type NewRepricer } from '../../domain/create-repricer.js';
import type { ImportType, OfferLine, ProductLine, RepricerLine } from '../../domain/import-jobs.js';
import type { ImportProblem } from '../../domain/import-records.js';
import type { ConnectorType, Repricer } from '../../domain/records.js';
import { preferencesOf } from '../../domain/repricer-preferences.js';
import { applyRepricerPatch } from '../../domain/update-repricer.js';
import { mapLimit } from '../table/concurrency.js';
import { getConnectorType } from '../connections/connectors.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { repricerSlotKey } from '../table/keys.js';
import { planOffers, writeOfferPlan, type OfferOwner } from '../offers/write.js';
import { getProducts, planProducts, writeProductPlan } from '../offers/products.js';
import { createRepricer, updateRepricer } from '../repricers/write.js';
import { getRepricer } from '../repricers/read.js';

/**
 * The writes of every import, the CLI's and the API's import jobs alike: the same upserts
 * (products by code, offers by offer id, repricers by product and connector), planned a chunk
 * at a time so a job can save what a chunk counts before writing it.
 */
export interface ChunkCounts {
  readonly created: number;
  readonly updated: number;
  readonly skipped: number;
}

export interface PlannedChunk {
  readonly counts: ChunkCounts;
  /** Idempotent: writing a chunk again (after a crash) leaves the same state. */
  write(): Promise<void>;
}

export type ImportOwner = OfferOwner;

/** Lines per chunk: offers share rank-directory work per call; repricers are written one by one. */
export const CHUNK_LINES: Readonly<Record<ImportType, number>> = { products: 100, offers: 200, repricers: 25 };

// ---- references: checked for the whole file before anything is written ----------------------

/** Offers must name a product of the client, in the same file (the CLI's) or already loaded. */
export const offerReferenceProblems = async (
  clientId: string,
  offers: readonly { line: number; productCode: string }[],
  inFile: ReadonlySet<string> = new Set(),
): Promise<ImportProblem[]> => {
  const referenced = offers.filter((o) => !inFile.has(o.productCode));
  if (referenced.length === 0) return [];
  const known = await getProducts(
    clientId,
    referenced.map((r) => r.productCode),
  );
  return referenced
    .filter((r) => !known.has(r.productCode))
    .map(({ line, productCode }) => ({ line, message: `offer names product_code "${productCode}", which is neither in the file nor loaded` }));
};

type Resolved = { readonly ok: true; readonly repricer: NewRepricer } | { readonly ok: false; readonly message: string };

const messageOf = (error: CreateRepricerError) => (error.kind === 'invalid' ? `${error.field}: ${error.message}` : error.message);

/** What `POST /v1/repricers/` does before its write, line by line: the product, then the same use case. */
const resolveRepricers = async (owner: ImportOwner, lines: readonly RepricerLine[]): Promise<Resolved[]> => {
  const products = await getProducts(
    owner.clientId,
    lines.map((l) => l.product_code),
  );
  // Each connector type is read once for the whole chunk.
  const connectorTypes = new Map<string, Promise<ConnectorType | undefined>>();
  const connectorTypeOf = (uid: string) => {
    const read = connectorTypes.get(uid) ?? getConnectorType(uid);
    connectorTypes.set(uid, read);
    return read;
  };
  return Promise.all(
    lines.map(async (line): Promise<Resolved> => {
      const product = products.get(line.product_code);
      if (!product) return { ok: false, message: `No product with code "${line.product_code}" exists for this client.` };
      const built = await newRepricer({ body: line, product, defaultConnector: owner.defaultConnector }, connectorTypeOf);
      return built.ok ? built : { ok: false, message: messageOf(built.error) };
    }),
  );
};

export const repricerReferenceProblems = async (owner: ImportOwner, lines: readonly RepricerLine[]): Promise<ImportProblem[]> => {
  const problems: ImportProblem[] = [];
  const firstSeen = new Map<string, number>();
  (await resolveRepricers(owner, lines)).forEach((resolved, index) => {
    const line = index + 1;
    if (!resolved.ok) {
      problems.push({ line, message: resolved.message });
      return;
    }
    const slot = `repricer for product_code "${resolved.repricer.product.code}" and connector "${resolved.repricer.connector_type.uid}"`;
    const earlier = firstSeen.get(slot);
    if (earlier !== undefined) problems.push({ line, message: `${slot} repeats line ${earlier}` });
    else firstSeen.set(slot, line);
  });
  return problems;
};

/** The reference problems of an API import job's lines (products reference nothing). */
export const jobReferenceProblems = async (owner: ImportOwner, type: ImportType, lines: readonly unknown[]): Promise<ImportProblem[]> => {
  if (type === 'offers')
    return offerReferenceProblems(
      owner.clientId,
      (lines as OfferLine[]).map((o, i) => ({ line: i + 1, productCode: o.product_code })),
    );
  if (type === 'repricers') return repricerReferenceProblems(owner, lines as RepricerLine[]);
  return [];
};

// ---- chunks ---------------------------------------------------------------------------------

const slotRepricerId = z.object({ repricerId: z.int().positive() });

const readSlot = async (clientId: string, code: string, connector: string): Promise<number | undefined> => {
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: repricerSlotKey(clientId, code, connector), ConsistentRead: true }));
  return result.Item ? slotRepricerId.parse(result.Item).repricerId : undefined;
};

const sameRepricer = (a: Repricer, b: Repricer) => JSON.stringify({ ...a, updated_at: '' }) === JSON.stringify({ ...b, updated_at: '' });

/** The repricer in a taken slot with a line's preferences (its repricer as built), recomputed as a PATCH recomputes it. */
const patchedBy = (current: Repricer, wanted: NewRepricer, now: string) => applyRepricerPatch(current, preferencesOf(wanted), wanted.product, now);

/** Updates the repricer in the slot to the line's preferences; false when that changes nothing. */
const updateFromLine = async (owner: ImportOwner, id: number, wanted: NewRepricer, now: string): Promise<boolean> => {
  let changed = false;
  const outcome = await updateRepricer(owner.clientId, id, (current) => {
    const patched = patchedBy(current.record, wanted, now);
    if (!patched.ok) return Promise.reject(new Error(`Repricer ${id}: ${patched.reason}`));
    changed = !sameRepricer(current.record, patched.record);
    // An unchanged repricer is not rewritten: the decision is thrown away below.
    if (!changed) return Promise.reject(new Unchanged());
    return Promise.resolve(patched.record);
  }).catch((error: unknown) => {
    if (error instanceof Unchanged) return { kind: 'done' as const };
    throw error;
  });
  if (outcome.kind === 'contended') throw new Error(`Repricer ${id} kept changing under the import`);
  return changed && outcome.kind === 'done';
};

class Unchanged extends Error {}

/**
 * Repricers, upserted by (product code, connector) with the computed fields of a create: a
 * free slot gets a new repricer; a taken one has its preferences replaced by the line's.
 */
const planRepricers = async (owner: ImportOwner, lines: readonly RepricerLine[], now: string): Promise<PlannedChunk> => {
  const resolved = await resolveRepricers(owner, lines);
  const plans = await mapLimit(
    resolved,
    async (r) => {
      if (!r.ok) throw new Error(`A repricer line became invalid after validation: ${r.message}`);
      const { repricer } = r;
      const existingId = await readSlot(owner.clientId, repricer.product.code, repricer.connector_type.uid);
      if (existingId === undefined) return { kind: 'created' as const, repricer };
      const current = await getRepricer(owner.clientId, existingId);
      const patched = current && patchedBy(current.record, repricer, now);
      const unchanged = current !== undefined && patched !== undefined && patched.ok && sameRepricer(current.record, patched.record);
      return { kind: unchanged ? ('skipped' as const) : ('updated' as const), repricer };
    },
    8,
  );
  const count = (kind: string) => plans.filter((p) => p.kind === kind).length;
  return {
    counts: { created: count('created'), updated: count('updated'), skipped: count('skipped') },
    async write() {
      await mapLimit(
        plans,
        async ({ repricer }) => {
          const existingId = await readSlot(owner.clientId, repricer.product.code, repricer.connector_type.uid);
          if (existingId !== undefined) {
            await updateFromLine(owner, existingId, repricer, now);
            return;
          }
          const result = await createRepricer(owner.clientId, repricer, now);
          // Taken meanwhile (by an earlier delivery of this chunk, or a concurrent POST): update that one.
          if (!result.created) await updateFromLine(owner, result.existingId, repricer, now);
        },
        8,
      );
    },
  };
};

/** Plans one chunk of an import's lines: reads, claims ids, and counts; `write` does the writes. */
export const planChunk = async (owner: ImportOwner, type: ImportType, lines: readonly unknown[], now: string): Promise<PlannedChunk> => {
  if (type === 'products') {
    const plan = await planProducts(owner.clientId, lines as ProductLine[], now);
    return { counts: { created: plan.created, updated: plan.updated, skipped: plan.unchanged }, write: () => writeProductPlan(plan) };
  }
  if (type === 'offers') {
    const plan = await planOffers(owner, lines as OfferLine[], now);
    return {
      counts: { created: plan.created, updated: plan.updated, skipped: plan.unchanged },
      write: async () => {
        await writeOfferPlan(plan);
      },
    };
  }
  return planRepricers(owner, lines as RepricerLine[], now);
};
