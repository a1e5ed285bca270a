/**
 * The route table: one entry per API operation. The CDK stack creates one API Gateway method
 * and one Lambda function per entry; the local server dispatches with the same table, so the
 * two cannot disagree about paths, handlers or who needs a write grant.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteDefinition {
  /** Stable id, used for the function's construct id and logical names. */
  readonly name: string;
  readonly method: HttpMethod;
  /** API Gateway resource path, with `{param}` placeholders, without trailing slash. */
  readonly path: string;
  /** Handler module, relative to the project root; it exports `handler`. */
  readonly entry: string;
  /** Table access the function is granted: least privilege; `none` also withholds the table's name. */
  readonly tableAccess: 'none' | 'read' | 'readWrite';
  /** Whether the Basic-auth authorizer guards the route. */
  readonly authorized: boolean;
  /** Files, relative to the project root, the stack copies next to the function's bundle (read at run time). */
  readonly bundledFiles?: readonly string[];
}

export const ROUTES: readonly RouteDefinition[] = [
  {
    name: 'CreateRepricer',
    method: 'POST',
    path: '/v1/repricers',
    entry: 'lambdas/functions/create-repricer/handler.ts',
    tableAccess: 'readWrite',
    authorized: true,
  },
  {
    name: 'ListRepricers',
    method: 'GET',
    path: '/v1/repricers',
    entry: 'lambdas/functions/list-repricers/handler.ts',
    tableAccess: 'read',
    authorized: true,
  },
  {
    name: 'GetRepricer',
    method: 'GET',
    path: '/v1/repricers/{id}',
    entry: 'lambdas/functions/get-repricer/handler.ts',
    tableAccess: 'read',
    authorized: true,
  },
  {
    name: 'UpdateRepricer',
    method: 'PATCH',
    path: '/v1/repricers/{id}',
    entry: 'lambdas/functions/update-repricer/handler.ts',
    tableAccess: 'readWrite',
    authorized: true,
  },
  {
    name: 'DeleteRepricer',
    method: 'DELETE',
    path: '/v1/repricers/{id}',
    entry: 'lambdas/functions/delete-repricer/handler.ts',
    tableAccess: 'readWrite',
    authorized: true,
  },
  {
    name: 'ListRepricerPriceChanges',
    method: 'GET',
    path: '/v1/repricers/{id}/price-changes',
    entry: 'lambdas/functions/list-price-changes/handler.ts',
    tableAccess: 'read',
    authorized: true,
  },
  {
    name: 'PreviewRepricer',
    method: 'GET',
    path: '/v1/repricers/{id}/preview',
    entry: 'lambdas/functions/preview-repricer/handler.ts',
    tableAccess: 'read',
    authorized: true,
  },
  {
    name: 'PreviewNewRepricer',
    method: 'POST',
    path: '/v1/repricers/preview',
    entry: 'lambdas/functions/preview-repricer/what-if-handler.ts',
    tableAccess: 'read',
    authorized: true,
  },
  {
    name: 'GetRepricerStats',
    method: 'GET',
    path: '/v1/repricers/{id}/stats',
    entry: 'lambdas/functions/get-repricer-stats/handler.ts',
    tableAccess: 'read',
    authorized: true,
  },
  {
    name: 'ListPriceChanges',
    method: 'GET',
    path: '/v1/price-changes',
    entry: 'lambdas/functions/list-price-changes/handler.ts',
    tableAccess: 'read',
    authorized: true,
  },
  {
    name: 'GetPriceChange',
    method: 'GET',
    path: '/v1/price-changes/{id}',
    entry: 'lambdas/functions/get-price-change/handler.ts',
    tableAccess: 'read',
    authorized: true,
  },
  {
    name: 'ApplyPriceChange',
    method: 'POST',
    path: '/v1/price-changes/{id}/apply',
    entry: 'lambdas/functions/apply-price-change/handler.ts',
    tableAccess: 'readWrite',
    authorized: true,
  },
  {
    name: 'ListOffers',
    method: 'GET',
    path: '/v1/offers',
    entry: 'lambdas/functions/list-offers/handler.ts',
    tableAccess: 'read',
    authorized: true,
  },
  {
    name: 'GetOffer',
    method: 'GET',
    path: '/v1/offers/{id}',
    entry: 'lambdas/functions/get-offer/handler.ts',
    tableAccess: 'read',
    authorized: true,
  },
  {
    name: 'GetProduct',
    method: 'GET',
    path: '/v1/products/{code}',
    entry: 'lambdas/functions/get-product/handler.ts',
    tableAccess: 'read',
    authorized: true,
  },
  {
    name: 'CreateImport',
    method: 'POST',
    path: '/v1/imports',
    entry: 'lambdas/functions/create-import/handler.ts',
    tableAccess: 'readWrite',
    authorized: true,
  },
  {
    name: 'ListImports',
    method: 'GET',
    path: '/v1/imports',
    entry: 'lambdas/functions/list-imports/handler.ts',
    tableAccess: 'read',
    authorized: true,
  },
  {
    name: 'GetImport',
    method: 'GET',
    path: '/v1/imports/{id}',
    entry: 'lambdas/functions/get-import/handler.ts',
    tableAccess: 'read',
    authorized: true,
  },
  {
    name: 'Ping',
    method: 'GET',
    path: '/v1/ping',
    entry: 'lambdas/functions/ping/handler.ts',
    tableAccess: 'none',
    authorized: true,
  },
  {
    name: 'GetOpenApi',
    method: 'GET',
    path: '/v1/openapi.json',
    entry: 'lambdas/functions/get-openapi/handler.ts',
    tableAccess: 'none',
    authorized: false,
    // The API reference page's renderer: the function also serves GET /docs (lib/constructs/docs-page.ts).
    bundledFiles: ['node_modules/swagger-ui-dist/swagger-ui.css', 'node_modules/swagger-ui-dist/swagger-ui-bundle.js'],
  },
  {
    name: 'CreateWebhook',
    method: 'POST',
    path: '/v1/webhooks',
    entry: 'lambdas/functions/create-webhook/handler.ts',
    tableAccess: 'readWrite',
    authorized: true,
  },
  {
    name: 'ListWebhooks',
    method: 'GET',
    path: '/v1/webhooks',
    entry: 'lambdas/functions/list-webhooks/handler.ts',
    tableAccess: 'read',
    authorized: true,
  },
  {
    name: 'GetWebhook',
    method: 'GET',
    path: '/v1/webhooks/{id}',
    entry: 'lambdas/functions/get-webhook/handler.ts',
    tableAccess: 'read',
    authorized: true,
  },
  {
    name: 'DeleteWebhook',
    method: 'DELETE',
    path: '/v1/webhooks/{id}',
    entry: 'lambdas/functions/delete-webhook/handler.ts',
    tableAccess: 'readWrite',
    authorized: true,
  },
  {
    name: 'ListWebhookDeliveries',
    method: 'GET',
    path: '/v1/webhooks/{id}/deliveries',
    entry: 'lambdas/functions/list-webhook-deliveries/handler.ts',
    tableAccess: 'read',
    authorized: true,
  },
  // Connections to marketplaces (docs/connections.md). PUT and DELETE also write the uid lookup
  // outside the tenant (TABLE_GRANTS.connectionLookup, added by the stack), and PUT seals the key.
  {
    name: 'PutConnection',
    method: 'PUT',
    path: '/v1/connections/{connector}',
    entry: 'lambdas/functions/put-connection/handler.ts',
    tableAccess: 'readWrite',
    authorized: true,
  },
  {
    name: 'ListConnections',
    method: 'GET',
    path: '/v1/connections',
    entry: 'lambdas/functions/list-connections/handler.ts',
    tableAccess: 'read',
    authorized: true,
  },
  {
    name: 'GetConnection',
    method: 'GET',
    path: '/v1/connections/{connector}',
    entry: 'lambdas/functions/get-connection/handler.ts',
    tableAccess: 'read',
    authorized: true,
  },
  // The kill switch: mode and limits without the key or the marketplace.
  {
    name: 'PatchConnection',
    method: 'PATCH',
    path: '/v1/connections/{connector}',
    entry: 'lambdas/functions/patch-connection/handler.ts',
    tableAccess: 'readWrite',
    authorized: true,
  },
  {
    name: 'DeleteConnection',
    method: 'DELETE',
    path: '/v1/connections/{connector}',
    entry: 'lambdas/functions/delete-connection/handler.ts',
    tableAccess: 'readWrite',
    authorized: true,
  },
  {
    name: 'SyncConnection',
    method: 'POST',
    path: '/v1/connections/{connector}/sync',
    entry: 'lambdas/functions/sync-connection/handler.ts',
    tableAccess: 'readWrite',
    authorized: true,
  },
  {
    name: 'ResumeConnection',
    method: 'POST',
    path: '/v1/connections/{connector}/resume',
    entry: 'lambdas/functions/resume-connection/handler.ts',
    tableAccess: 'readWrite',
    authorized: true,
  },
  // Called by the marketplace, which cannot do Basic auth: each request is signed with the
  // connection's webhook secret instead (docs/connections.md, "Marketplace events"). It reads the
  // uid lookup outside the tenant, opens the secret and puts one dedup item under the tenant.
  {
    name: 'ReceiveMarketplaceEvent',
    method: 'POST',
    path: '/v1/marketplace-events/{uid}',
    entry: 'lambdas/functions/receive-marketplace-event/handler.ts',
    tableAccess: 'readWrite',
    authorized: false,
  },
];

/**
 * Every POST a client makes that changes something honours `Idempotency-Key`
 * (lambdas/http/idempotency.ts): a rule on the table rather than a list, so a new one does too.
 * Not the what-if preview (it changes nothing: a retry computes again) nor the marketplace's
 * events (no client sends them; each is deduplicated by its own event id).
 */
export const isIdempotentRoute = (route: RouteDefinition): boolean => route.method === 'POST' && route.authorized && route.tableAccess === 'readWrite';

/**
 * Idempotent routes whose answer shows a secret once (the webhook's signing secret): the answer
 * kept for replays is sealed (lambdas/crypto/envelope.ts), so these may also open data keys.
 */
export const SEALED_REPLAY_ROUTES = ['CreateWebhook'] as const;

/** The routes that create or delete a connection's uid lookup (outside the tenant's keys). */
export const CONNECTION_LOOKUP_WRITERS = ['PutConnection', 'DeleteConnection'] as const;
/** The routes that seal a connection's secrets (KMS GenerateDataKey) and talk to the marketplace (its base URLs). */
export const CONNECTION_SEALERS = ['PutConnection'] as const;
/**
 * The routes that receive marketplace events: each reads the uid lookup (`CONNUID#`, GetItem
 * only), opens the connection's webhook secret (KMS Decrypt) and asks the registry for the
 * connector's adapter (its base URLs, though verifying calls neither).
 */
export const MARKETPLACE_EVENT_RECEIVERS = ['ReceiveMarketplaceEvent'] as const;

/** The Lambda REQUEST authorizer: HTTP Basic against the client items of the table. */
export const AUTHORIZER = {
  entry: 'lambdas/functions/authorizer/handler.ts',
  identityHeader: 'Authorization',
  /** Short cache: a password change or a disable takes effect within this many seconds. */
  resultsCacheTtlSeconds: 60,
} as const;
