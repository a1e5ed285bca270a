import type { APIGatewayProxyEvent } from 'aws-lambda';
import * as z from 'zod';
import { storable } from '../domain/text.js';
import { conflict, unprocessable, validationFailed } from './errors.js';

/**
 * The `Idempotency-Key` header's rules, apart from the middleware that acts on it, so the
 * OpenAPI document can quote them without loading the persistence layer.
 */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const IDEMPOTENCY_KEY_MAX_LENGTH = 128;
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

/** Printable ASCII, so it is well-formed and fits a header and a log line as it is. */
const idempotencyKey = storable(z.string().regex(new RegExp(`^[\\x20-\\x7e]{1,${IDEMPOTENCY_KEY_MAX_LENGTH}}$`)));

/** Throws a 400 for a malformed or repeated key; false when there is none. Expects lower-cased header names. */
export const hasIdempotencyKey = (event: APIGatewayProxyEvent): boolean => {
  const values = event.multiValueHeaders?.[IDEMPOTENCY_HEADER] ?? [];
  const value = event.headers?.[IDEMPOTENCY_HEADER];
  if (value === undefined && values.length === 0) return false;
  if (values.length > 1 || value === undefined || !idempotencyKey.safeParse(value).success) {
    throw validationFailed(
      [{ field: 'Idempotency-Key', message: `Must be given once, as 1-${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters.` }],
      'The request headers are not valid.',
    );
  }
  return true;
};

/** The same key with another request: another body, path, query or operation. */
export const idempotencyKeyReused = () => unprocessable('This Idempotency-Key was already used with a different request (another body, path or operation).');

/** A request with the key is still running: its outcome is not known yet. */
export const idempotencyKeyInProgress = () => conflict('A request with this Idempotency-Key is still being processed; retry it later.');
