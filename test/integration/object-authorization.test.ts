/**
 * Object-level authorization, route by route from ROUTES: client A naming one of client B's
 * product codes, repricer ids or offer ids (B's real ones, and the ids A would guess next to its
 * own, since ids come from one global counter) gets exactly what A gets for one that does not
 * exist: the same status, headers of note and body, once the echoed identifier is masked.
 * A route with a path parameter this test cannot place fails here until it is taught.
 */
import { putConnectionRoute } from '../../lambdas/functions/put-connection/handler.js';
import { ROUTES, type RouteDefinition } from '../../lambdas/config/routes.js';
import { httpHandler } from '../../lambdas/http/handler.js';
import type { MarketplacePort } from '../../lambdas/marketplace/port.js';
import { connectorRecord } from '../support/fixtures.js';
import { startTestApi, type ApiResponse, type TestApi } from '../support/local-api.js';
import { itemsUnder, scanTable } from '../support/table-snapshot.js';
import { B_MARKERS, seedTwoTenants, type SeededTenant } from '../support/two-tenants.js';
import { takealotMarketplace } from '../../lambdas/marketplace/takealot/marketplace.js';

type IdentifierKind = 'repricerId' | 'offerId' | 'productCode' | 'importId' | 'webhookId' | 'connector' | 'connectionUid' | 'priceChangeId';

/** What a path parameter names, by the collection it sits under. */
const KIND_BY_COLLECTION: Record<string, IdentifierKind> = {
  repricers: 'repricerId',
  offers: 'offerId',
  products: 'productCode',
  imports: 'importId',
  webhooks: 'webhookId',
  connections: 'connector',
  'price-changes': 'priceChangeId',
  /** The public marketplace-events route names a connection by its uid. */
  'marketplace-events': 'connectionUid',
};
/** Query parameters that name a resource, tried on every GET route (one that refuses them must refuse both alike). */
const QUERY_IDENTIFIERS: Record<string, IdentifierKind> = { product_code: 'productCode' };
/** Identifiers no client has. */
const UNKNOWN: Record<IdentifierKind, string> = {
  repricerId: '987654321',
  offerId: '987654322',
  productCode: 'NO-SUCH-CODE',
  importId: '987654323',
  webhookId: '987654324',
  connector: 'no-such-connector',
  connectionUid: '00000000-0000-4000-8000-000000000000',
  priceChangeId: '987654325',
};

/**
 * Each tenant connects to a marketplace of its own (connector types are shared reference data;
 * a connection is the client's): B's connector is the foreign identifier A tries. A marketplace
 * that accepts every key stands in for the adapters, so connecting needs no marketplace.
 */
const CONNECTORS = { a: 'alpha-market', b: 'tenant-b-market' } as const;
/** The uid of each tenant's connection (what the marketplace-events route names). */
const connectionUids = { a: '', b: '' };
const acceptingMarketplace = { checkKey: async () => 'accepted' } as unknown as MarketplacePort;

const pathParams = (route: RouteDefinition): { name: string; kind: IdentifierKind }[] =>
  [...route.path.matchAll(/\/([^/{}]+)\/\{(\w+)\}/g)].map(([, collection, name]) => {
    const kind = KIND_BY_COLLECTION[collection!];
    if (!kind) throw new Error(`${route.name}: no identifier kind is known for {${name}} under /${collection}; add it to KIND_BY_COLLECTION`);
    return { name: name!, kind };
  });

/** A valid body for each write, so the identifier is the only thing that can fail. */
const bodyFor = (route: RouteDefinition, productCode: string): unknown => {
  // A valid PUT only ever writes the caller's own connection (B's items stay as they were: the last test);
  // an invalid one must be refused alike whether or not B is connected there.
  if (route.method === 'PUT') return { api_key: 'short' };
  // A valid PATCH of a connection: B's must be a 404 like an unknown one, and stay as it was.
  if (route.method === 'PATCH' && route.path.startsWith('/v1/connections/')) return { mode: 'live' };
  if (route.path.startsWith('/v1/connections/') || route.path.startsWith('/v1/price-changes/')) return undefined;
  if (route.method === 'POST') return { product_code: productCode, preferred_price: 100, preferred_profit: 20 };
  if (route.method === 'PATCH') return { preferred_price: 90 };
  return undefined;
};

let api: TestApi;
let a: SeededTenant;
let b: SeededTenant;
let bItemsBefore: Map<string, string>;
/** Each tenant's import jobs (the seed makes none through the API). */
let importIds: { a: number[]; b: number[] };
/** Webhook ids, created alternately like the repricers, so B's sit between A's. */
const webhookIds = { a: [] as number[], b: [] as number[] };
/** The price changes the seeded repricers decided (ids come from one counter, so B's sit between A's). */
const priceChangeIds = { a: [] as number[], b: [] as number[] };

/**
 * Subscribed to an event none of these tests causes, so nothing is ever delivered; B's URL
 * carries one of B's markers.
 */
const createWebhook = async (tenant: SeededTenant, path: string): Promise<number> => {
  const response = await api.request<{ id: number }>('POST', '/v1/webhooks', {
    auth: [...tenant.auth] as [string, string],
    body: { url: `http://127.0.0.1:9/${path}`, event_types: ['IMPORT_COMPLETED'] },
  });
  if (response.status !== 201) throw new Error(`Creating a webhook answered ${response.status}: ${response.text}`);
  return response.body.id;
};

const inclusiveRange = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** B's identifiers of a kind, and for numeric ids every neighbour of A's ids that A does not own. */
const foreignIdentifiers = (kind: IdentifierKind): string[] => {
  if (kind === 'productCode') return [...b.productCodes];
  if (kind === 'connector') return [CONNECTORS.b];
  if (kind === 'connectionUid') return [connectionUids.b];
  const [own, theirs] =
    kind === 'repricerId'
      ? [a.repricerIds, b.repricerIds]
      : kind === 'importId'
        ? [importIds.a, importIds.b]
        : kind === 'webhookId'
          ? [webhookIds.a, webhookIds.b]
          : kind === 'priceChangeId'
            ? [priceChangeIds.a, priceChangeIds.b]
            : [a.offerIds, b.offerIds];
  const all = [...own, ...theirs];
  const guessed = inclusiveRange(Math.min(...all) - 1, Math.max(...all) + 2).filter((id) => id > 0 && !own.includes(id));
  return [...new Set([...theirs, ...guessed])].map(String);
};

interface Attempt {
  readonly label: string;
  readonly path: string;
  readonly body: unknown;
  /** The identifier the response may echo. */
  readonly identifier: string;
}

/** Pairs of (foreign, unknown) requests for a route. */
const attemptPairs = (route: RouteDefinition): [foreign: Attempt, unknown: Attempt][] => {
  const params = pathParams(route);
  const pairs: [Attempt, Attempt][] = [];
  const attempt = (label: string, path: string, identifier: string, bodyCode = a.productCodes[2]!): Attempt => ({
    label,
    path,
    identifier,
    body: bodyFor(route, bodyCode),
  });
  for (const { name, kind } of params) {
    // Other parameters (none today) get the caller's own first value.
    const fill = (value: string) => route.path.replace(`{${name}}`, encodeURIComponent(value));
    for (const value of foreignIdentifiers(kind)) {
      pairs.push([attempt(`{${name}}=${value}`, fill(value), value), attempt(`{${name}} unknown`, fill(UNKNOWN[kind]), UNKNOWN[kind])]);
    }
  }
  if (params.length === 0 && route.method === 'POST') {
    for (const code of b.productCodes) {
      pairs.push([
        attempt(`product_code=${code}`, route.path, code, code),
        attempt('product_code unknown', route.path, UNKNOWN.productCode, UNKNOWN.productCode),
      ]);
    }
  }
  if (params.length === 0 && route.method === 'GET') {
    for (const [name, kind] of Object.entries(QUERY_IDENTIFIERS)) {
      for (const value of foreignIdentifiers(kind)) {
        const query = (v: string) => `${route.path}?${name}=${encodeURIComponent(v)}`;
        pairs.push([attempt(`?${name}=${value}`, query(value), value), attempt(`?${name} unknown`, query(UNKNOWN[kind]), UNKNOWN[kind])]);
      }
    }
  }
  return pairs;
};

const send = (route: RouteDefinition, attempt: Attempt) =>
  api.request(route.method, attempt.path, {
    ...(route.authorized ? { auth: [...a.auth] as [string, string] } : {}),
    ...(attempt.body === undefined ? {} : { body: attempt.body }),
  });

/** The identifier as a whole token (so id 4 does not mask the 4s of a 404), raw or percent-encoded. */
const identifierPattern = (identifier: string): RegExp => {
  const spellings = [...new Set([identifier, encodeURIComponent(identifier)])].map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`(?<![\\w-])(?:${spellings.join('|')})(?![\\w-])`, 'g');
};

/** What a client can tell apart: status, the headers that carry meaning, and the body with the identifier masked. */
const observable = (response: ApiResponse<unknown>, identifier: string) => ({
  status: response.status,
  contentType: response.headers['content-type'],
  allow: response.headers.allow,
  location: response.headers.location,
  body: response.text.replace(identifierPattern(identifier), '<id>'),
});

beforeAll(async () => {
  api = await startTestApi({
    handlers: {
      'lambdas/functions/put-connection/handler.ts': httpHandler(
        putConnectionRoute(() => ({
          kind: 'adapter',
          port: acceptingMarketplace,
          marketplace: takealotMarketplace,
          storefrontUrl: 'https://storefront.example',
        })),
        { jsonBody: true },
      ),
    },
  });
  ({ a, b } = await seedTwoTenants(api));
  for (const [tenant, connector] of [
    [a, CONNECTORS.a],
    [b, CONNECTORS.b],
  ] as const) {
    await api.importRecords(tenant.username, [connectorRecord(connector)]);
    const connected = await api.request<{ uid: string }>('PUT', `/v1/connections/${connector}`, {
      auth: [...tenant.auth] as [string, string],
      body: { api_key: `${connector}-key-0001` },
    });
    if (connected.status !== 201) throw new Error(`Connecting answered ${connected.status}: ${connected.text}`);
    connectionUids[tenant === a ? 'a' : 'b'] = connected.body.uid;
  }
  // Interleaved, as the seed's other ids: A, B, A, B.
  importIds = { a: [], b: [] };
  for (const tenant of [a, b, a, b]) {
    const posted = await api.request<{ id: number }>('POST', '/v1/imports?import_type=offers', {
      auth: [...tenant.auth] as [string, string],
      body: '{"offer_id":1}\n',
      headers: { 'Content-Type': 'application/x-ndjson' },
    });
    importIds[tenant === a ? 'a' : 'b'].push(posted.body.id);
  }
  // The jobs end before the webhooks exist: their IMPORT_COMPLETED events would otherwise be
  // delivered to a receiver that never answers, and retried (so never settled) for 24 hours.
  await api.settle();
  for (let i = 0; i < 2; i++) {
    webhookIds.a.push(await createWebhook(a, `alpha-hook-${i}`));
    webhookIds.b.push(await createWebhook(b, `tenant-b-hook-${i}`));
  }
  // B's items are taken once the stream's work is done.
  await api.settle();
  for (const [tenant, ids] of [
    [a, priceChangeIds.a],
    [b, priceChangeIds.b],
  ] as const) {
    const listed = await api.request<{ price_changes: { id: number }[] }>('GET', '/v1/price-changes', { auth: [...tenant.auth] as [string, string] });
    ids.push(...listed.body.price_changes.map((change) => change.id));
  }
  bItemsBefore = itemsUnder(await scanTable(api.tableName), `T#${b.clientId}#`);
}, 120_000);

afterAll(async () => api?.close());

describe('object-level authorization', () => {
  it("has seeded interleaved ids, so guessed neighbours include B's", () => {
    expect(a.repricerIds).toHaveLength(2);
    expect(b.repricerIds).toHaveLength(2);
    expect(b.offerIds.length).toBeGreaterThan(0);
    expect(foreignIdentifiers('repricerId')).toEqual(expect.arrayContaining(b.repricerIds.map(String)));
    expect(priceChangeIds.b.length).toBeGreaterThan(0);
    expect(foreignIdentifiers('priceChangeId')).toEqual(expect.arrayContaining(priceChangeIds.b.map(String)));
  });

  describe.each(ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))('%s', (_name, route) => {
    it("answers another client's identifiers exactly as unknown ones", async () => {
      // Arrange
      const pairs = attemptPairs(route);

      // Act
      const seen: { label: string; foreign: unknown; unknown: unknown }[] = [];
      for (const [foreign, unknown] of pairs) {
        const foreignResponse = observable(await send(route, foreign), foreign.identifier);
        const unknownResponse = observable(await send(route, unknown), unknown.identifier);
        seen.push({ label: foreign.label, foreign: foreignResponse, unknown: unknownResponse });
      }

      // Assert
      for (const { label, foreign, unknown } of seen) expect({ label, response: foreign }).toEqual({ label, response: unknown });
      if (pathParams(route).length > 0 || route.method !== 'GET') expect(pairs.length).toBeGreaterThan(0);
    });
  });

  /** A resource of A at each GET route: a path parameter gets one of A's own identifiers. */
  const ownPath = (route: RouteDefinition): string =>
    pathParams(route).reduce(
      (path, { name, kind }) =>
        path.replace(
          `{${name}}`,
          encodeURIComponent(
            kind === 'offerId'
              ? String(a.offerIds[0])
              : kind === 'productCode'
                ? a.productCodes[0]!
                : kind === 'importId'
                  ? String(importIds.a[0])
                  : kind === 'webhookId'
                    ? String(webhookIds.a[0])
                    : kind === 'connector'
                      ? CONNECTORS.a
                      : kind === 'priceChangeId'
                        ? String(priceChangeIds.a[0])
                        : String(a.repricerIds[0]),
          ),
        ),
      route.path,
    );

  describe.each(ROUTES.filter((route) => route.method === 'GET').map((route) => [route.path, route] as const))('GET %s', (_path, route) => {
    it("shows none of B's data in A's own successful responses", async () => {
      // Arrange
      const paths = [ownPath(route), `${ownPath(route)}?_include_other_offers=true`];

      // Act
      const responses = await Promise.all(paths.map((path) => api.request('GET', path, route.authorized ? { auth: [...a.auth] as [string, string] } : {})));

      // Assert
      const successes = responses.filter((response) => response.status === 200);
      expect(successes.length).toBeGreaterThan(0);
      for (const response of successes) {
        for (const marker of [...B_MARKERS, b.clientId]) expect(response.text).not.toContain(marker);
      }
    });
  });

  it('left every item of B as it was', async () => {
    // Act
    const after = itemsUnder(await scanTable(api.tableName), `T#${b.clientId}#`);

    // Assert
    expect(after.size).toBeGreaterThan(0);
    expect(after).toEqual(bItemsBefore);
  });
});
