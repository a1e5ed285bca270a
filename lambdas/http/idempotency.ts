/**
 * `Idempotency-Key` for POSTs (draft-ietf-httpapi-idempotency-key-header): a client that retries
 * a POST with the same key and request gets the original 2xx response again instead of a second
 * effect (a second resource, a 409 for a change already made).
 *
 * - Which routes: every POST a client makes that changes something (isIdempotentRoute in
 *   lambdas/config/routes.ts), each handler adding this one middleware to the shared chain; a
 *   unit test (test/unit/http/idempotent-routes.test.ts) holds every such route's handler to it.
 *   Not in the shared chain itself: the store and KMS would weigh on every GET's bundle.
 * - The key is 1-128 printable ASCII characters; anything else is a 400.
 * - It is scoped per client, across operations: the stored record is keyed by the hash of
 *   (clientId, key), and the request it answered is the route, its path and query parameters and
 *   its body. The same key with another request is a 422; while the first request is still
 *   running, a 409.
 * - Only 2xx responses are stored, for 24 hours; an error frees the key for a retry.
 * - A response that shows a secret (SEALED_REPLAY_ROUTES) is stored sealed, never in clear.
 * - Without the header the request runs as usual.
 */
import { cleanupMiddlewares } from '@aws-lambda-powertools/commons';
import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { makeHandlerIdempotent } from '@aws-lambda-powertools/idempotency/middleware';
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import * as z from 'zod';
import { tenantOf } from '../auth/tenant.js';
import { SEALED_REPLAY_ROUTES } from '../config/routes.js';
import { open, seal, sealedValue } from '../crypto/envelope.js';
import { keyProvider } from '../crypto/key-provider.js';
import { idempotencyStore } from '../data/table/idempotency-store.js';
import { logger } from '../observability/logger.js';
import { hasIdempotencyKey, IDEMPOTENCY_HEADER, IDEMPOTENCY_TTL_SECONDS, idempotencyKeyInProgress, idempotencyKeyReused } from './idempotency-key.js';
import { routeNameOf } from './route-name.js';

export { IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_TTL_SECONDS } from './idempotency-key.js';

/** One namespace of keys per client for every idempotent route: a key reused on another operation is another request (422). */
export const IDEMPOTENCY_SCOPE = 'POST';

const SEALED = new Set<string>(SEALED_REPLAY_ROUTES);

/** Where a request keeps the Powertools middleware that owns its in-progress record, if any. */
const OWNED_RECORD = 'repricer.idempotency.ownedRecord';

type ApiRequest = Request<APIGatewayProxyEvent, APIGatewayProxyResult>;

/**
 * What Powertools hashes: `key` names the record, `request` is what a retry must repeat. The
 * route and its parameters count as much as the body: the same key on another price change's
 * apply, or with another `import_type`, is not a retry of the first.
 */
interface IdempotencyEvent {
  readonly key: readonly [clientId: string, key: string];
  readonly request: { readonly route: string; readonly path: unknown; readonly query: unknown; readonly body: unknown };
}

const idempotencyEvent = (route: string, event: APIGatewayProxyEvent): IdempotencyEvent => ({
  key: [tenantOf(event).clientId, event.headers[IDEMPOTENCY_HEADER] as string],
  request: {
    route,
    path: event.pathParameters ?? null,
    query: event.multiValueQueryStringParameters ?? event.queryStringParameters ?? null,
    body: event.body ?? null,
  },
});

/** Powertools' errors as problems; a store failure surfaces as its cause (a throttle becomes a 503). */
const asProblem = (error: unknown): unknown => {
  const name = error instanceof Error ? error.name : '';
  if (name === 'IdempotencyValidationError') return idempotencyKeyReused();
  if (name === 'IdempotencyAlreadyInProgressError') return idempotencyKeyInProgress();
  if (name === 'IdempotencyPersistenceLayerError' && error instanceof Error && error.cause !== undefined) return error.cause;
  return error;
};

const isSuccess = (response: APIGatewayProxyResult | null | undefined): response is APIGatewayProxyResult =>
  response != null && response.statusCode >= 200 && response.statusCode < 300;

/**
 * A response kept sealed: the whole response under a fresh data key, bound to its purpose and
 * client, so the record holds no secret in clear and does not open for another tenant.
 */
const sealedResponse = z.strictObject({ sealedResponse: sealedValue });
const sealContext = (clientId: string) => ({ purpose: 'idempotent-response', clientId });

/**
 * Powertools runs on a request of its own: on a replay it would run the other Powertools
 * middlewares' cleanup (the metrics flush among them) before the response is set.
 */
interface Owned {
  /** Powertools' middleware takes any Middy-like request: an API request is one, uncast. */
  readonly middleware: ReturnType<typeof makeHandlerIdempotent>;
  readonly request: Request<IdempotencyEvent>;
  readonly clientId: string;
  readonly sealed: boolean;
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

/** The response as kept in the record. */
const storable = async (owned: Owned, response: APIGatewayProxyResult): Promise<unknown> =>
  owned.sealed ? { sealedResponse: await seal(keyProvider(), JSON.stringify(response), sealContext(owned.clientId)) } : response;

/** The response a replay answers: a sealed one opened again. */
const replayed = async (owned: Owned, stored: unknown): Promise<APIGatewayProxyResult> => {
  const sealed = sealedResponse.safeParse(stored);
  if (!sealed.success) return stored as APIGatewayProxyResult;
  return JSON.parse(await open(keyProvider(), sealed.data.sealedResponse, sealContext(owned.clientId))) as APIGatewayProxyResult;
};

/**
 * Added after `httpHandler` (lambdas/http/handler.ts), so it runs after the body parser and the
 * request check compares parsed JSON, not bytes. The route is found from the event.
 */
export const idempotentRequests = (): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> => {
  const config = new IdempotencyConfig({
    eventKeyJmesPath: 'key',
    payloadValidationJmesPath: 'request',
    expiresAfterSeconds: IDEMPOTENCY_TTL_SECONDS,
  });
  const powertools = () => makeHandlerIdempotent({ persistenceStore: idempotencyStore(IDEMPOTENCY_SCOPE), config, keyPrefix: IDEMPOTENCY_SCOPE });

  return {
    before: async (request) => {
      if (!hasIdempotencyKey(request.event)) return undefined;
      const name = routeNameOf(request.event);
      const event = idempotencyEvent(name, request.event);
      const owned: Owned = {
        middleware: powertools(),
        request: { ...request, event, internal: {} } as unknown as Request<IdempotencyEvent>,
        clientId: event.key[0],
        sealed: SEALED.has(name),
      };
      let replay: unknown;
      try {
        replay = await owned.middleware.before?.(owned.request);
      } catch (error) {
        throw asProblem(error);
      }
      if (replay !== undefined) {
        request.response = await replayed(owned, replay);
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
        const response = await storable(owned, request.response);
        await owned.middleware.after?.({ ...owned.request, response } as typeof owned.request);
      } catch (error) {
        // The effect happened: answering 5xx now would only make the client retry into a 409.
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
