import * as z from 'zod';
import { createRepricerBody, type CreateRepricerBody } from './create-repricer.js';
import {
  CONNECTOR_IMPORT_COMMAND,
  MAX_PROBLEM_MESSAGE,
  problemMessage,
  schemaCheck,
  UnreadableLine,
  validateLines,
  type ImportProblem,
  type ValidatedLines,
} from './import-records.js';
import { DEFAULT_LIMIT, limitText, sortText, startText, type SortDirection } from './list-parameters.js';
import { connectorUid, offerFields, productCode, productFields, timestamp, type ProductFields } from './records.js';

/**
 * Import jobs (docs/imports.md): `POST /v1/imports?import_type=...` with one record a line,
 * the fields of the CLI's `data`, processed asynchronously; the CLI's import writes the same
 * record. Everything here is pure: the line schemas, the job record and its list parameters.
 */
export const IMPORT_TYPES = ['products', 'offers', 'repricers'] as const;
export type ImportType = (typeof IMPORT_TYPES)[number];
export const IMPORT_STATUSES = ['pending', 'running', 'completed', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];
export const TRIGGER_TYPES = ['public_api', 'cli'] as const;

/**
 * The body limit of `POST /v1/imports`. The body reaches the function inside its invocation
 * payload, which Lambda caps at 6 MB: sent as binary (the stack lists the NDJSON media type
 * among the API's binary types), it arrives base64-encoded, 4/3 of its size whatever it holds
 * (as JSON-escaped text a body of quotes or control characters would double or grow sixfold).
 * 4 MiB is 5.6 MB encoded, leaving room for the event's headers and context.
 */
export const MAX_IMPORT_BODY_BYTES = 4 * 1024 * 1024;
/** Lines of one import at most: validation time and memory grow with lines, whatever their length. */
export const MAX_IMPORT_LINES = 50_000;
/** Bytes of one line at most (a product of 20 long image URLs and many fee estimates fits); a longer line is a bad line, not parsed. */
export const MAX_LINE_BYTES = 64 * 1024;
/** The record lists the first bad lines only, each message cut short, so it stays a small item (a line of many unknown keys names them all). */
export const MAX_LISTED_ERRORS = 100;
export const MAX_ERROR_MESSAGE = MAX_PROBLEM_MESSAGE;

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

/**
 * Validates every line of an import job with the CLI's schemas; repeated keys are bad lines too.
 * Only the first `MAX_LISTED_ERRORS` problems are kept (the record lists no more); the rest are counted.
 */
export const validateJobLines = <T extends ImportType>(type: T, inputs: readonly unknown[]): ValidatedLines<ImportLine<T>> => {
  const rules = LINE_RULES[type] as unknown as { schema: z.ZodType<ImportLine<T>, unknown>; identity: (record: ImportLine<T>) => string | undefined };
  return validateLines(
    inputs,
    (input) => (isConnectorTypeLine(input) ? { ok: false, message: CONNECTOR_TYPES_REFUSED } : schemaCheck(rules.schema, input)),
    rules.identity,
    MAX_LISTED_ERRORS,
  );
};

/** A line in the CLI's wrapped form carrying a connector type: said plainly, not as schema errors. */
const isConnectorTypeLine = (input: unknown): boolean =>
  typeof input === 'object' && input !== null && (input as { type?: unknown }).type === 'connector_type' && 'data' in input;
export const CONNECTOR_TYPES_REFUSED = `connector types are reference data shared by every client: only an operator loads them, with "${CONNECTOR_IMPORT_COMMAND}"`;

/** Whether NDJSON text holds more than `max` lines, counted without splitting it (a final line break ends the last line). */
export const hasMoreLinesThan = (text: string, max: number): boolean => {
  let lines = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < text.length - 1; at = text.indexOf('\n', at + 1)) {
    if (++lines >= max) return true;
  }
  return text.length > 0 && lines + 1 > max;
};

const LINE_TOO_LONG = `line longer than ${MAX_LINE_BYTES} bytes`;
const isTooLong = (line: string) => line.length > MAX_LINE_BYTES || (line.length * 3 > MAX_LINE_BYTES && Buffer.byteLength(line, 'utf8') > MAX_LINE_BYTES);

/**
 * The lines of an NDJSON body, parsed: a line that is not JSON (or is empty, or too long to
 * read) is an unreadable line, reported by number like any other bad line. A final line break
 * ends the last line.
 */
export const parseNdjson = (text: string): unknown[] => {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => {
    if (line.trim() === '') return new UnreadableLine('empty line');
    if (isTooLong(line)) return new UnreadableLine(LINE_TOO_LONG);
    try {
      return JSON.parse(line) as unknown;
    } catch {
      return new UnreadableLine('not valid JSON');
    }
  });
};

export type ImportBodyCheck<T extends ImportType> =
  { readonly ok: false; readonly message: string } | ({ readonly ok: true; readonly total: number } & ValidatedLines<ImportLine<T>>);

/**
 * The whole of an import body's validation, in time and memory bounded by its caps: more than
 * `MAX_IMPORT_LINES` lines is refused before anything is parsed; otherwise every line is
 * validated, the first `MAX_LISTED_ERRORS` problems kept and the others counted.
 */
export const checkImportBody = <T extends ImportType>(type: T, text: string): ImportBodyCheck<T> => {
  if (hasMoreLinesThan(text, MAX_IMPORT_LINES))
    return { ok: false, message: `The body holds more than ${MAX_IMPORT_LINES} lines: split it into several imports.` };
  const inputs = parseNdjson(text);
  return { ok: true, total: inputs.length, ...validateJobLines(type, inputs) };
};

/**
 * The counters of a job that failed validation: nothing written, the first bad lines listed.
 * `invalidLines` counts the bad lines past those kept, when the validator stopped keeping them.
 */
export const invalidJobCounters = (total: number, problems: readonly ImportProblem[], invalidLines?: number) => {
  const badLines = new Set(problems.map((p) => p.line));
  return {
    total,
    invalid: Math.max(badLines.size, invalidLines ?? 0),
    errors: [...problems]
      .sort((a, b) => a.line - b.line)
      .slice(0, MAX_LISTED_ERRORS)
      .map(({ line, message }) => ({ line, message: problemMessage(message) })),
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
