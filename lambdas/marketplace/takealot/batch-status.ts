import * as z from 'zod';
import { toStorableText } from '../../domain/text.js';
import type { BatchStatus } from '../port.js';
import { id, lenient, skuText } from './schemas.js';

/**
 * `GET /offers/batch/{batch_id}`. The v1 status is not documented; two shapes are reported and
 * both are read: `results[{ offer_id | sku, status, message }]` (v1-like) and v2's
 * `result[{ offer: { offer_id, ... }, validation_errors[{ message, code }] }]`. Only a body whose
 * batch state cannot be read is malformed; a result entry that cannot be read is left out.
 */

/** Batch states as reported in either case (`SUCCESS`, `success`, ...); anything else is malformed. */
const BATCH_STATES: Readonly<Record<string, BatchStatus['state']>> = {
  pending: 'pending',
  processing: 'pending',
  in_progress: 'pending',
  queued: 'pending',
  success: 'succeeded',
  succeeded: 'succeeded',
  completed: 'succeeded',
  failure: 'failed',
  failed: 'failed',
};
const batchState = z
  .string()
  .transform((value) => BATCH_STATES[value.trim().toLowerCase()])
  .pipe(z.enum(['pending', 'succeeded', 'failed']));

type OfferResult = BatchStatus['results'][number];

const MAX_MESSAGE_LENGTH = 500;
const message = (value: string): string => toStorableText(value, MAX_MESSAGE_LENGTH);

const v1Result = z
  .looseObject({ offer_id: lenient(id), sku: lenient(skuText), status: z.string(), message: lenient(z.string()) })
  .refine((result) => result.offer_id !== undefined || result.sku !== undefined)
  .transform((result): OfferResult => ({
    offerId: (result.offer_id ?? result.sku)!,
    ok: /^success/i.test(result.status),
    ...(result.message === undefined ? {} : { message: message(result.message) }),
  }));

const validationError = z.looseObject({ message: lenient(z.string()), code: lenient(z.string()) });

/** v2: ok when the marketplace listed no validation error for the offer. */
const v2Result = z
  .looseObject({
    offer: z.looseObject({ offer_id: lenient(id), sku: lenient(skuText) }),
    validation_errors: z.array(validationError).nullish(),
  })
  .refine((result) => result.offer.offer_id !== undefined || result.offer.sku !== undefined)
  .transform((result): OfferResult => {
    const errors = result.validation_errors ?? [];
    const said = errors.map((error) => error.message ?? error.code).filter((text): text is string => text !== undefined && text !== '');
    return {
      offerId: (result.offer.offer_id ?? result.offer.sku)!,
      ok: errors.length === 0,
      ...(errors.length > 0 ? { message: message(said.length > 0 ? said.join('; ') : 'refused') } : {}),
    };
  });

const readable = <T>(schema: z.ZodType<T>, list: readonly unknown[] | undefined): T[] =>
  (list ?? []).flatMap((entry) => {
    const parsed = schema.safeParse(entry);
    return parsed.success ? [parsed.data] : [];
  });

/** The status; `batchId` is absent when the body does not name its batch (the caller knows which it asked for). */
export const batchStatusBody = z
  .looseObject({
    batch_id: lenient(id),
    status: batchState,
    results: lenient(z.array(z.unknown())),
    result: lenient(z.array(z.unknown())),
  })
  .transform((body): Omit<BatchStatus, 'batchId'> & { batchId?: string } => ({
    ...(body.batch_id === undefined ? {} : { batchId: body.batch_id }),
    state: body.status,
    results: [...readable(v1Result, body.results), ...readable(v2Result, body.result)],
  }));
