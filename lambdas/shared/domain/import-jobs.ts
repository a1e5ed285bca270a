import * as z from 'zod';
import { createRepricerBody, type CreateRepricerBody } from './create-repricer.js';
import { CONNECTOR_IMPORT_COMMAND, schemaCheck, UnreadableLine, validateLines, type ImportProblem } from './import-records.js';
import { DEFAULT_LIMIT, limitText, sortText, startText, type SortDirection } from './list-parameters.js';
import { connectorUid, offerFields, productCode, productFields, timestamp, type ProductFields } from './records.js';

/**
 * Import jobs (DESIGN section 5): `POST /v1/imports?import_type=...` with one record a line,
 * the fields of the CLI's `data`, processed asynchronously; the CLI's import writes the same
 * record. Everything here is pure: the line schemas, the job record and its list parameters.
 */
export const IMPORT_TYPES = ['products', 'offers', 'repricers'] as const;
export type ImportType = (typeof IMPORT_TYPES)[number];
export const IMPORT_STATUSES = ['pending', 'running', 'completed', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];
export const TRIGGER_TYPES = ['public_api', 'cli'] as const;

/** The body limit of `POST /v1/imports` (API Gateway's own is 10 MB). */
export const MAX_IMPORT_BODY_BYTES = 5 * 1024 * 1024;
/** The record lists the first bad lines only, each message cut short, so it stays a small item (a line of many unknown keys names them all). */
export const MAX_LISTED_ERRORS = 100;
export const MAX_ERROR_MESSAGE = 500;

export const importError = z.strictObject({ line: z.int().min(0), message: z.string() });

export const importJobRecord = z.strictObject({
  id: z.int().positive(),
  uid: z.uuid(),
  import_type: z.enum(IMPORT_TYPES),
  status: z.enum(IMPORT_STATUSES),
  trigger_type: z.enum(TRIGGER_TYPES),
  total: z.int().min(0),
  processed: z.int().min(0),
  created: z.int().min(0),
  updated: z.int().min(0),
  skipped: z.int().min(0),
  invalid: z.int().min(0),
  errors: z.array(importError),
  start_time: timestamp.nullable(),
  end_time: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
export type ImportJob = z.infer<typeof importJobRecord>;

const offerLine = offerFields.extend({ product_code: productCode, connector: connectorUid.optional() }).strict();
export type OfferLine = z.output<typeof offerLine>;

/** A repricer line: the body of `POST /v1/repricers/`, upserted by (product code, connector). */
export type RepricerLine = CreateRepricerBody;
export type ProductLine = ProductFields;
export type ImportLine<T extends ImportType> = T extends 'products' ? ProductFields : T extends 'offers' ? OfferLine : RepricerLine;

const LINE_RULES = {
  products: { schema: productFields, identity: (p: ProductFields) => `product code "${p.code}"` },
  offers: { schema: offerLine, identity: (o: OfferLine) => `offer_id "${o.offer_id}"` },
  // Without a named connector the line's connector is known only from its product: the caller checks those pairs.
  repricers: {
    schema: createRepricerBody,
    identity: (r: RepricerLine) => (r.connector === undefined ? undefined : `repricer for product_code "${r.product_code}" and connector "${r.connector}"`),
  },
} as const;

/** Validates every line of an import job with the CLI's schemas; repeated keys are bad lines too. */
export const validateJobLines = <T extends ImportType>(type: T, inputs: readonly unknown[]): { records: ImportLine<T>[]; problems: ImportProblem[] } => {
  const rules = LINE_RULES[type] as unknown as { schema: z.ZodType<ImportLine<T>, unknown>; identity: (record: ImportLine<T>) => string | undefined };
  return validateLines(
    inputs,
    (input) => (isConnectorTypeLine(input) ? { ok: false, message: CONNECTOR_TYPES_REFUSED } : schemaCheck(rules.schema, input)),
    rules.identity,
  );
};

/** A line in the CLI's wrapped form carrying a connector type: said plainly, not as schema errors. */
const isConnectorTypeLine = (input: unknown): boolean =>
  typeof input === 'object' && input !== null && (input as { type?: unknown }).type === 'connector_type' && 'data' in input;
export const CONNECTOR_TYPES_REFUSED = `connector types are reference data shared by every client: only an operator loads them, with "${CONNECTOR_IMPORT_COMMAND}"`;

/**
 * The lines of an NDJSON body, parsed: a line that is not JSON (or is empty) is an unreadable
 * line, reported by number like any other bad line. A final line break ends the last line.
 */
export const parseNdjson = (text: string): unknown[] => {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => {
    if (line.trim() === '') return new UnreadableLine('empty line');
    try {
      return JSON.parse(line) as unknown;
    } catch {
      return new UnreadableLine('not valid JSON');
    }
  });
};

/** The counters of a job that failed validation: nothing written, the first bad lines listed. */
export const invalidJobCounters = (total: number, problems: readonly ImportProblem[]) => {
  const badLines = new Set(problems.map((p) => p.line));
  return {
    total,
    invalid: badLines.size,
    errors: [...problems]
      .sort((a, b) => a.line - b.line)
      .slice(0, MAX_LISTED_ERRORS)
      .map(({ line, message }) => ({ line, message: message.length > MAX_ERROR_MESSAGE ? `${message.slice(0, MAX_ERROR_MESSAGE - 1)}…` : message })),
  };
};

// ---- GET /v1/imports -------------------------------------------------------------------------

export const IMPORT_SORT_FIELDS = ['id', 'created_at'] as const;

export interface ImportQuery {
  readonly importType?: ImportType;
  readonly status?: ImportStatus;
  readonly sort: { readonly field: (typeof IMPORT_SORT_FIELDS)[number]; readonly direction: SortDirection };
  readonly limit: number;
  readonly start: number;
}

export const importQueryParameters = z.strictObject({
  _limit: limitText.optional(),
  _start: startText.optional(),
  _sort: sortText(IMPORT_SORT_FIELDS).optional(),
  import_type: z.enum(IMPORT_TYPES, { message: `import_type must be one of ${IMPORT_TYPES.join(', ')}.` }).optional(),
  status: z.enum(IMPORT_STATUSES, { message: `status must be one of ${IMPORT_STATUSES.join(', ')}.` }).optional(),
});

export const planImportQuery = (params: z.output<typeof importQueryParameters>): ImportQuery => ({
  ...(params.import_type === undefined ? {} : { importType: params.import_type }),
  ...(params.status === undefined ? {} : { status: params.status }),
  sort: params._sort ?? { field: 'id', direction: 'ASC' },
  limit: params._limit ?? DEFAULT_LIMIT,
  start: params._start ?? 0,
});

/** `POST /v1/imports`: the one query parameter. */
export const createImportParameters = z.strictObject({
  import_type: z.enum(IMPORT_TYPES, { message: `import_type must be one of ${IMPORT_TYPES.join(', ')}.` }),
});

export const importsPage = z.strictObject({
  meta: z.strictObject({ total: z.int().min(0), limit: z.int().min(1), start: z.int().min(0) }),
  imports: z.array(importJobRecord),
});
