/**
 * `Idempotency-Key` for POSTs (draft-ietf-httpapi-idempotency-key-header): a client that retries
 * a create with the same key and body gets the original 2xx response again instead of a second
 * resource or a 409.
 *
 * - The key is 1-128 printable ASCII characters; anything else is a 400.
 * - It is scoped per client: the stored record is keyed by the hash of (clientId, key).
 * - The same key with another body is a 422; while the first request is still running, a 409.
 * - Only 2xx responses are stored, for 24 hours; an error frees the key for a retry.
 * - Without the header the request runs as usual.
 */
import { cleanupMiddlewares } from '@aws-lambda-powertools/commons';
import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { makeHandlerIdempotent } from '@aws-lambda-powertools/idempotency/middleware';
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { idempotencyStore } from '../data/table/idempotency-store.js';
import { logger } from '../observability/logger.js';
import { conflict, unprocessable } from './errors.js';
import { hasIdempotencyKey, IDEMPOTENCY_HEADER, IDEMPOTENCY_TTL_SECONDS } from './idempotency-key.js';

export { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_TTL_SECONDS } from './idempotency-key.js';

/** Null without the header, so Powertools skips the request; else the client id and the key. */
const KEY_PATH = `headers."${IDEMPOTENCY_HEADER}" && [requestContext.authorizer.clientId, headers."${IDEMPOTENCY_HEADER}"]`;

/** Where a request keeps the Powertools middleware that owns its in-progress record, if any. */
const OWNED_RECORD = 'repricer.idempotency.ownedRecord';

type ApiRequest = Request<APIGatewayProxyEvent, APIGatewayProxyResult>;

/** Powertools' errors as problems; a store failure surfaces as its cause (a throttle becomes a 503). */
const asProblem = (error: unknown): unknown => {
  const name = error instanceof Error ? error.name : '';
  if (name === 'IdempotencyValidationError') {
    return unprocessable('This Idempotency-Key was already used with a different request body.');
  }
  if (name === 'IdempotencyAlreadyInProgressError') {
    return conflict('A request with this Idempotency-Key is still being processed; retry it later.');
  }
  if (name === 'IdempotencyPersistenceLayerError' && error instanceof Error && error.cause !== undefined) return error.cause;
  return error;
};

const isSuccess = (response: APIGatewayProxyResult | null | undefined): boolean => response != null && response.statusCode >= 200 && response.statusCode < 300;

/**
 * Powertools runs on a request of its own: on a replay it would run the other Powertools
 * middlewares' cleanup (the metrics flush among them) before the response is set.
 */
interface Owned {
  /** Powertools' middleware takes any Middy-like request: an API request is one, uncast. */
  readonly middleware: ReturnType<typeof makeHandlerIdempotent>;
  readonly request: ApiRequest;
}

const ownedRecord = (request: ApiRequest): Owned | undefined => (request.internal as Record<string, Owned | undefined>)[OWNED_RECORD];

/** Frees the key after a failure; the request's own outcome matters more than this cleanup. */
const release = async ({ middleware, request }: Owned): Promise<void> => {
  try {
    await middleware.onError?.(request);
  } catch (error) {
    logger.warn('Could not release an idempotency record', { errorName: (error as Error).name });
  }
};

/** Register it after the body parser, so the payload check compares parsed JSON, not bytes. */
export const idempotentRequests = (scope: string): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => {
  const config = new IdempotencyConfig({
    eventKeyJmesPath: KEY_PATH,
    payloadValidationJmesPath: 'body',
    expiresAfterSeconds: IDEMPOTENCY_TTL_SECONDS,
  });
  const powertools = () => makeHandlerIdempotent({ persistenceStore: idempotencyStore(scope), config, keyPrefix: scope });

  return {
    before: async (request) => {
      if (!hasIdempotencyKey(request.event)) return undefined;
      const owned: Owned = { middleware: powertools(), request: { ...request, internal: {} } };
      let replay: unknown;
      try {
        replay = await owned.middleware.before?.(owned.request);
      } catch (error) {
        throw asProblem(error);
      }
      if (replay !== undefined) {
        request.response = replay as APIGatewayProxyResult;
        await cleanupMiddlewares(request);
        return request.response;
      }
      (request.internal as Record<string, unknown>)[OWNED_RECORD] = owned;
      return undefined;
    },
    after: async (request) => {
      const owned = ownedRecord(request);
      if (!owned) return;
      if (!isSuccess(request.response)) {
        await release(owned);
        return;
      }
      try {
        await owned.middleware.after?.({ ...owned.request, response: request.response });
      } catch (error) {
        // The resource exists: answering 5xx now would only make the client retry into a 409.
        logger.warn('Could not store an idempotent response', { errorName: (error as Error).name });
        await release(owned);
      }
    },
    onError: async (request) => {
      const owned = ownedRecord(request);
      if (owned) await release(owned);
    },
  };
};
