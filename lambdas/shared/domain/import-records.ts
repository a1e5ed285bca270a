import * as z from 'zod';
import { connectorTypeFields, connectorUid, offerFields, productCode, productFields } from './records.js';

/**
 * One line of an import file (NDJSON): `{ "type": ..., "data": { ...fields } }`. The record's
 * fields sit under `data` because a product has a field of its own named `type`.
 */
export const importRecord = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('connector_type'), data: connectorTypeFields }),
  z.strictObject({ type: z.literal('product'), data: productFields }),
  // `connector`: the connector the offer is sold on (default: the client's default connector).
  z.strictObject({ type: z.literal('offer'), data: offerFields.extend({ product_code: productCode, connector: connectorUid.optional() }).strict() }),
]);
export type ImportRecord = z.input<typeof importRecord>;
export type ParsedImportRecord = z.output<typeof importRecord>;

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

/**
 * Validates every record before anything is written: schema errors and keys repeated within
 * the file are reported by line. References to products are checked by the caller, which can
 * also look in the table.
 */
export const validateImport = (inputs: readonly unknown[]): { records: ParsedImportRecord[]; problems: ImportProblem[] } => {
  const records: ParsedImportRecord[] = [];
  const problems: ImportProblem[] = [];
  const firstSeen = new Map<string, number>();
  inputs.forEach((input, index) => {
    const line = index + 1;
    if (input instanceof UnreadableLine) {
      problems.push({ line, message: input.reason });
      return;
    }
    const result = importRecord.safeParse(input);
    if (!result.success) {
      const detail = result.error.issues.map((i) => `${i.path.map(String).join('.') || '(record)'}: ${i.message}`).join('; ');
      problems.push({ line, message: detail });
      return;
    }
    const key = identity(result.data);
    const earlier = firstSeen.get(key);
    if (earlier !== undefined) problems.push({ line, message: `${key} repeats line ${earlier}` });
    else firstSeen.set(key, line);
    records.push(result.data);
  });
  return { records, problems };
};
