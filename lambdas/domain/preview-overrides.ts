import type * as z from 'zod';
import { repricerPatchFields, type UpdateRepricerBody } from './update-repricer.js';

/**
 * The query overrides of `GET /v1/repricers/{id}/preview` (docs/repricing.md, "What-if
 * previews"): any preference a create body takes, as text, checked by the same rules as
 * `POST /v1/repricers` and PATCH, so a value refused there is refused here, naming the field.
 * Query values are text, so each is read as the value it spells: `true`/`false`, a number,
 * `null` (or empty) for a filter turned off, a comma-separated list for a list field
 * (`exclude_seller_ids=a,b`; empty: no seller excluded), and JSON for an object setting
 * (`price_war_guard={"undercuts":3,"cooldown_minutes":60}`).
 */
export interface OverrideError {
  readonly field: string;
  readonly message: string;
}

export type PreviewOverrides =
  { readonly ok: true; readonly overrides: UpdateRepricerBody } | { readonly ok: false; readonly errors: readonly OverrideError[] };

/** Fields of a repricer that a preview cannot override, and why: they say which repricer it is, or follow from the others. */
const NOT_OVERRIDABLE: Readonly<Record<string, string>> = {
  product_code: "The product is the repricer's own; preview another product with POST /v1/repricers/preview.",
  connector: "The connector is the repricer's own; preview another connector with POST /v1/repricers/preview.",
  min_price: 'min_price is computed from preferred_price, preferred_profit and min_profit: override those.',
  fixed_fulfilment_fee: "fixed_fulfilment_fee is computed from the product's fee estimates.",
};

const NUMBER = /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/** What a query value may spell, most specific first; the text itself is always last. */
const readings = (value: string): unknown[] => {
  const scalar: unknown[] = [];
  if (value === '' || value === 'null') scalar.push(null);
  if (value === 'true' || value === 'false') scalar.push(value === 'true');
  if (NUMBER.test(value)) scalar.push(Number(value));
  // An object setting (the price-war guard) is spelled as JSON.
  if (value.startsWith('{')) {
    try {
      scalar.push(JSON.parse(value) as unknown);
    } catch {
      // Not JSON: the text reading below gets the rule's complaint.
    }
  }
  return [...scalar, value, value === '' ? [] : value.split(',')];
};

/**
 * The first reading the field's rule accepts; else the rule's complaint about the reading of the
 * right type but a wrong value (a number out of range, a list too long), or about the text.
 */
const readField = (rule: z.ZodType, value: string): { ok: true; value: unknown } | { ok: false; message: string } => {
  const failures: z.core.$ZodIssue[] = [];
  for (const reading of readings(value)) {
    const parsed = rule.safeParse(reading);
    if (parsed.success) return { ok: true, value: parsed.data };
    failures.push(...parsed.error.issues);
  }
  const issue =
    failures.find((candidate) => candidate.code !== 'invalid_type' && candidate.code !== 'invalid_value') ??
    failures.find((candidate) => candidate.code === 'invalid_value') ??
    failures[0];
  return { ok: false, message: issue?.message ?? 'Invalid value.' };
};

export const parsePreviewOverrides = (query: Readonly<Record<string, string>>): PreviewOverrides => {
  const shape = repricerPatchFields.shape as Record<string, z.ZodType>;
  const errors: OverrideError[] = [];
  const overrides: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(query)) {
    const rule = Object.hasOwn(shape, field) ? shape[field] : undefined;
    if (!rule) {
      // Own keys only: a parameter named like an object's inherited member (`constructor`) is unknown, not that member.
      const why = Object.hasOwn(NOT_OVERRIDABLE, field) ? NOT_OVERRIDABLE[field] : undefined;
      errors.push({ field: field.toWellFormed(), message: why ?? 'Unknown field; it is not accepted here.' });
      continue;
    }
    const read = readField(rule, value);
    if (read.ok) overrides[field] = read.value;
    else errors.push({ field, message: read.message });
  }
  if (errors.length > 0) return { ok: false, errors };
  // Each field passed its own rule; the object's rule (strict, the same fields) cannot refuse it now.
  return { ok: true, overrides: repricerPatchFields.parse(overrides) };
};
