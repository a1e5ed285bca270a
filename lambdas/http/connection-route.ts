import type { APIGatewayProxyEvent } from 'aws-lambda';
import { syncRequestLimit } from '../config/sync-requests.js';
import { connectorUid } from '../domain/records.js';
import { conflict, HttpProblem, notFound, unprocessable } from './errors.js';
import { pathParameter } from './path.js';
import { problem } from './problem.js';

/**
 * What the connection routes share: the `{connector}` path parameter, and the answers other
 * routes do not give. A connector type that does not exist and a connection that does not (or
 * is another client's) are both plain 404s.
 */

/** The connector uid of the path, or undefined when it cannot name one (then: 404). */
export const connectorParameter = (event: APIGatewayProxyEvent): string | undefined => {
  const value = pathParameter(event, 'connector');
  return value !== undefined && connectorUid.safeParse(value).success ? value : undefined;
};

export const connectionNotFound = () => notFound('No connection to this connector exists for this client.');
export const connectorNotFound = () => notFound('No connector with this uid exists.');

export const connectorNotConnectable = () => unprocessable('This connector cannot be connected: the service does not talk to its marketplace.');

export const keyRejected = () =>
  unprocessable('The marketplace refused this API key; nothing was stored.', [{ field: 'api_key', message: 'The marketplace refused this key.' }]);

/** When the marketplace gives no hint of its own. */
export const MARKETPLACE_RETRY_AFTER_SECONDS = 30;

/** The marketplace could not check the key now (down, slow, rate limiting, or not set up on this stage): nothing was stored. */
export const marketplaceUnavailable = (retryAfterSeconds = MARKETPLACE_RETRY_AFTER_SECONDS) =>
  new HttpProblem(problem(503, 'The marketplace could not check the API key now; nothing was stored. Try again later.'), {
    'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });

/** `POST .../sync` beyond its limit per connection: nothing was queued. */
export const syncLimited = (retryAfterSeconds: number) =>
  new HttpProblem(
    problem(
      429,
      `A connection may ask for ${syncRequestLimit().perWindow} full syncs within ${syncRequestLimit().windowMs / 60_000} minutes; nothing was queued. Retry after the indicated delay.`,
    ),
    {
      'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))),
    },
  );

export const connectionChanged = () => conflict('The connection was changed by another request meanwhile; nothing was stored. Try again.');
