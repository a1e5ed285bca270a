import * as z from 'zod';
import { connectorTypeFields, connectorUid, offerFields, priceStep, productCode, productFields } from './records.js';
import { toStorableText } from './text.js';

/**
 * One line of an import file (NDJSON): `{ "type": ..., "data": { ...fields } }`. The record's
 * fields sit under `data` because a product has a field of its own named `type`.
 *
 * Two imports read these lines: a client's catalogue (products and offers, written under that
 * client only) and the operator's reference data (connector types, shared by every client).
 * A connector type in a client's file is refused: importing for one client must never change
 * what every other client sees.
 */
// `price_step`: the connector's price increment for repricing (default 1.00); stored, never in the API record.
const connectorTypeLine = z.strictObject({
  type: z.literal('connector_type'),
  data: connectorTypeFields.extend({ price_step: priceStep.optional() }).strict(),
});
const productLine = z.strictObject({ type: z.literal('product'), data: productFields });
// `connector`: the connector the offer is sold on (default: the client's default connector).
const offerLine = z.strictObject({
  type: z.literal('offer'),
  data: offerFields.extend({ product_code: productCode, connector: connectorUid.optional() }).strict(),
});

export const importRecord = z.discriminatedUnion('type', [connectorTypeLine, productLine, offerLine]);
export type ImportRecord = z.input<typeof importRecord>;
export type ParsedImportRecord = z.output<typeof importRecord>;

/** What each import accepts. */
export type ImportKind = 'catalogue' | 'connectors';
const LINE_SCHEMAS = {
  catalogue: z.discriminatedUnion('type', [productLine, offerLine]),
  connectors: connectorTypeLine,
} as const satisfies Record<ImportKind, z.ZodType<ParsedImportRecord>>;

/** The command that loads reference data (bin/cli.ts). */
export const CONNECTOR_IMPORT_COMMAND = 'npm run cli -- connectors import <file.ndjson>';

/** Why a line of the wrong import is refused, before any schema detail. */
const misplaced = (kind: ImportKind, input: unknown): string | undefined => {
  const type = typeof input === 'object' && input !== null ? (input as { type?: unknown }).type : undefined;
  if (kind === 'catalogue' && type === 'connector_type') {
    return `connector types are reference data shared by every client: an operator loads them with "${CONNECTOR_IMPORT_COMMAND}", not with a client's import`;
  }
  if (kind === 'connectors' && (type === 'product' || type === 'offer')) {
    return `a ${type} belongs to one client: load it with "npm run cli -- import <file.ndjson> --client <username>"`;
  }
  return undefined;
};

export interface ImportProblem {
  /** 1-based line (or record) number. */
  readonly line: number;
  readonly message: string;
}

/** A line that could not even be read as JSON; validation reports it by number. */
export class UnreadableLine {
  constructor(readonly reason: string) {}
}

const identity = (record: ParsedImportRecord): string => {
  switch (record.type) {
    case 'connector_type':
      return `connector_type uid "${record.data.uid}"`;
    case 'product':
      return `product code "${record.data.code}"`;
    case 'offer':
      return `offer_id "${record.data.offer_id}"`;
  }
};

export type LineCheck<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

/**
 * A problem's message as it is kept: storable text (an unknown key is echoed as the input
 * spelled it, which may hold characters no queue or table carries) cut at a length that keeps
 * the import record a small item, never inside a character.
 */
export const MAX_PROBLEM_MESSAGE = 500;
export const problemMessage = (message: string): string => toStorableText(message, MAX_PROBLEM_MESSAGE);

/** A zod result as a line check, with every issue named by its path. */
export const schemaCheck = <T>(schema: z.ZodType<T, unknown>, input: unknown): LineCheck<T> => {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  // Stop joining once the message is past its cut: a line of thousands of unknown keys costs no more than a short one.
  let message = '';
  for (const issue of result.error.issues) {
    if (message.length > MAX_PROBLEM_MESSAGE) break;
    message += `${message === '' ? '' : '; '}${issue.path.map(String).join('.') || '(record)'}: ${issue.message.slice(0, MAX_PROBLEM_MESSAGE + 1)}`;
  }
  return { ok: false, message };
};

export interface ValidatedLines<T> {
  readonly records: T[];
  /** The first `keep` problems, in line order, each message storable and cut short. */
  readonly problems: ImportProblem[];
  /** Every bad line, counted past the ones kept. */
  readonly invalidLines: number;
}

/**
 * The one line-by-line validator of every import (the CLI's files and the API's import jobs):
 * unreadable lines, lines `check` refuses and keys (`identity`) repeated within the file are
 * reported by their 1-based number. Past `keep` problems, bad lines are only counted: the
 * memory a body of bad lines takes stays bounded by `keep`, not by the body.
 */
export const validateLines = <T>(
  inputs: readonly unknown[],
  check: (input: unknown) => LineCheck<T>,
  identity: (record: T) => string | undefined,
  keep = Number.POSITIVE_INFINITY,
): ValidatedLines<T> => {
  const records: T[] = [];
  const problems: ImportProblem[] = [];
  let invalidLines = 0;
  const report = (line: number, message: () => string) => {
    invalidLines += 1;
    if (problems.length < keep) problems.push({ line, message: problemMessage(message()) });
  };
  const firstSeen = new Map<string, number>();
  inputs.forEach((input, index) => {
    const line = index + 1;
    if (input instanceof UnreadableLine) {
      report(line, () => input.reason);
      return;
    }
    const result = check(input);
    if (!result.ok) {
      report(line, () => result.message);
      return;
    }
    const key = identity(result.value);
    const earlier = key === undefined ? undefined : firstSeen.get(key);
    if (earlier !== undefined) report(line, () => `${key} repeats line ${earlier}`);
    else if (key !== undefined) firstSeen.set(key, line);
    records.push(result.value);
  });
  return { records, problems, invalidLines };
};

/**
 * Validates every record before anything is written: schema errors, records that belong to
 * the other import, and keys repeated within the file are reported by line. References to
 * products are checked by the caller, which can also look in the table.
 */
export const validateImport = (inputs: readonly unknown[], kind: ImportKind = 'catalogue'): ValidatedLines<ParsedImportRecord> =>
  validateLines(
    inputs,
    (input): LineCheck<ParsedImportRecord> => {
      const wrongImport = misplaced(kind, input);
      return wrongImport !== undefined ? { ok: false, message: wrongImport } : schemaCheck<ParsedImportRecord>(LINE_SCHEMAS[kind], input);
    },
    identity,
  );
