/**
 * Resource limits are enforced before any DynamoDB call: an over-limit page size, a body over
 * 16 KiB, an over-long string or an absurd number costs a client a 4xx and the table nothing.
 * Every route's real handler runs here with both SDK clients mocked; any call fails the test.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { ROUTES } from '../../../lambdas/config/routes.js';
import { MAX_BODY_BYTES } from '../../../lambdas/http/body-limit.js';
import { MAX_IMPORT_BODY_BYTES } from '../../../lambdas/domain/import-jobs.js';
import { IDEMPOTENCY_KEY_MAX_LENGTH } from '../../../lambdas/http/idempotency.js';
import { STORABLE_TEXT_MESSAGE } from '../../../lambdas/domain/text.js';
import { apiEvent, CONTEXT, expectProblem } from '../fixtures/api-events.js';

const documents = mockClient(DynamoDBDocumentClient);
const plain = mockClient(DynamoDBClient);

type Handler = (event: APIGatewayProxyEvent, context: typeof CONTEXT) => Promise<APIGatewayProxyResult>;
const handlers = new Map<string, Handler>();

const JSON_HEADERS = { 'Content-Type': 'application/json' };
const NDJSON_HEADERS = { 'Content-Type': 'application/x-ndjson' };
const createBody = { product_code: 'SKU-1', preferred_price: 100, preferred_profit: 20 };
const huge = '9'.repeat(400);

interface Case {
  readonly route: string;
  readonly what: string;
  readonly event: APIGatewayProxyEvent;
  readonly status: number;
}

const get = (path: string, query: Record<string, string[]> = {}, pathParameters: Record<string, string> | null = null): APIGatewayProxyEvent => ({
  ...apiEvent({ method: 'GET', path, query }),
  pathParameters,
});
const withBody = (
  method: string,
  path: string,
  body: string,
  pathParameters: Record<string, string> | null = null,
  headers: Record<string, string> = JSON_HEADERS,
): APIGatewayProxyEvent => ({ ...apiEvent({ method, path, headers, body }), pathParameters });

const CASES: Case[] = [
  { route: 'ListOffers', what: 'a page size over 100', event: get('/v1/offers', { _limit: ['101'] }), status: 400 },
  { route: 'ListOffers', what: 'a 400-digit page size', event: get('/v1/offers', { _limit: [huge] }), status: 400 },
  { route: 'ListOffers', what: 'a 400-digit start', event: get('/v1/offers', { _start: [huge] }), status: 400 },
  { route: 'ListOffers', what: 'an exponent for a number', event: get('/v1/offers', { total_competitors_gte: ['1e308'] }), status: 400 },
  { route: 'ListOffers', what: 'a 10 KB filter value', event: get('/v1/offers', { competitiveness: ['x'.repeat(10_000)] }), status: 400 },
  { route: 'ListOffers', what: 'a repeated parameter', event: get('/v1/offers', { _limit: ['1', '2'] }), status: 400 },
  { route: 'ListRepricers', what: 'a page size over 100', event: get('/v1/repricers', { _limit: ['101'] }), status: 400 },
  { route: 'ListRepricers', what: 'an over-long product code filter', event: get('/v1/repricers', { product_code: ['p'.repeat(65)] }), status: 400 },
  { route: 'ListRepricers', what: 'a 400-digit start', event: get('/v1/repricers', { _start: [huge] }), status: 400 },
  {
    route: 'CreateRepricer',
    what: 'a 17 KiB body',
    event: withBody('POST', '/v1/repricers', JSON.stringify({ ...createBody, note: 'x'.repeat(17 * 1024) })),
    status: 413,
  },
  {
    route: 'CreateRepricer',
    what: 'one byte over 16 KiB of valid JSON',
    event: withBody('POST', '/v1/repricers', `${JSON.stringify(createBody)}${' '.repeat(MAX_BODY_BYTES + 1 - JSON.stringify(createBody).length)}`),
    status: 413,
  },
  {
    route: 'CreateRepricer',
    what: 'an over-long product code',
    event: withBody('POST', '/v1/repricers', JSON.stringify({ ...createBody, product_code: 'p'.repeat(65) })),
    status: 400,
  },
  {
    route: 'CreateRepricer',
    what: 'a price above 10,000,000',
    event: withBody('POST', '/v1/repricers', JSON.stringify({ ...createBody, preferred_price: 10_000_000.01 })),
    status: 400,
  },
  {
    route: 'CreateRepricer',
    what: 'a 400-digit price',
    event: withBody('POST', '/v1/repricers', `{"product_code":"SKU-1","preferred_price":${huge},"preferred_profit":1}`),
    status: 400,
  },
  {
    route: 'CreateRepricer',
    what: 'a price of 1e308',
    event: withBody('POST', '/v1/repricers', '{"product_code":"SKU-1","preferred_price":1e308,"preferred_profit":1}'),
    status: 400,
  },
  { route: 'CreateRepricer', what: 'a 4,000-deep nesting', event: withBody('POST', '/v1/repricers', `${'['.repeat(4_000)}${']'.repeat(4_000)}`), status: 400 },
  {
    route: 'CreateRepricer',
    what: 'an over-long Idempotency-Key',
    event: withBody('POST', '/v1/repricers', JSON.stringify(createBody), null, {
      ...JSON_HEADERS,
      'Idempotency-Key': 'k'.repeat(IDEMPOTENCY_KEY_MAX_LENGTH + 1),
    }),
    status: 400,
  },
  {
    route: 'UpdateRepricer',
    what: 'a 17 KiB body',
    event: withBody('PATCH', '/v1/repricers/{id}', JSON.stringify({ enabled: true, note: 'x'.repeat(17 * 1024) }), { id: '1' }),
    status: 413,
  },
  {
    route: 'UpdateRepricer',
    what: 'a 400-digit price',
    event: withBody('PATCH', '/v1/repricers/{id}', `{"preferred_price":${huge}}`, { id: '1' }),
    status: 400,
  },
  { route: 'UpdateRepricer', what: 'a 400-digit id', event: withBody('PATCH', '/v1/repricers/{id}', '{"enabled":false}', { id: huge }), status: 404 },
  { route: 'GetRepricer', what: 'a 400-digit id', event: get('/v1/repricers/{id}', {}, { id: huge }), status: 404 },
  { route: 'GetRepricer', what: 'an id past the safe integers', event: get('/v1/repricers/{id}', {}, { id: '9007199254740993' }), status: 404 },
  { route: 'PreviewRepricer', what: 'a 400-digit id', event: get('/v1/repricers/{id}/preview', {}, { id: huge }), status: 404 },
  { route: 'PreviewRepricer', what: 'an id past the safe integers', event: get('/v1/repricers/{id}/preview', {}, { id: '9007199254740993' }), status: 404 },
  {
    route: 'PreviewRepricer',
    what: 'an unknown approach override',
    event: get('/v1/repricers/{id}/preview', { buybox_approach: ['nope'] }, { id: '1' }),
    status: 400,
  },
  {
    route: 'PreviewRepricer',
    what: 'a computed field as an override',
    event: get('/v1/repricers/{id}/preview', { min_price: ['80'] }, { id: '1' }),
    status: 400,
  },
  {
    route: 'PreviewNewRepricer',
    what: 'a 400-digit price',
    event: withBody('POST', '/v1/repricers/preview', `{"product_code":"A","preferred_price":${huge},"preferred_profit":1}`),
    status: 400,
  },
  {
    route: 'PreviewNewRepricer',
    what: 'a 17 KiB body',
    event: withBody('POST', '/v1/repricers/preview', JSON.stringify({ product_code: 'x'.repeat(17 * 1024) })),
    status: 413,
  },
  { route: 'GetRepricerStats', what: 'a 400-digit id', event: get('/v1/repricers/{id}/stats', {}, { id: huge }), status: 404 },
  { route: 'GetRepricerStats', what: 'a time that is not ISO 8601', event: get('/v1/repricers/{id}/stats', { from: ['yesterday'] }, { id: '1' }), status: 400 },
  {
    route: 'GetRepricerStats',
    what: 'a range of a year',
    event: get('/v1/repricers/{id}/stats', { from: ['2025-01-01T00:00:00Z'], to: ['2026-01-01T00:00:00Z'] }, { id: '1' }),
    status: 400,
  },
  {
    route: 'DeleteRepricer',
    what: 'a 400-digit id',
    event: { ...apiEvent({ method: 'DELETE', path: '/v1/repricers/{id}' }), pathParameters: { id: huge } },
    status: 404,
  },
  { route: 'GetOffer', what: 'a 400-digit id', event: get('/v1/offers/{id}', {}, { id: huge }), status: 404 },
  { route: 'GetProduct', what: 'an over-long product code', event: get('/v1/products/{code}', {}, { code: 'p'.repeat(65) }), status: 404 },
  { route: 'ListPriceChanges', what: 'a page size over 100', event: get('/v1/price-changes', { _limit: ['101'] }), status: 400 },
  { route: 'ListPriceChanges', what: 'a 400-digit repricer id', event: get('/v1/price-changes', { repricer_id: [huge] }), status: 400 },
  { route: 'ListPriceChanges', what: 'an unknown reason', event: get('/v1/price-changes', { reason: ['x'.repeat(1_000)] }), status: 400 },
  { route: 'ListPriceChanges', what: 'an over-long product code filter', event: get('/v1/price-changes', { product_code: ['p'.repeat(65)] }), status: 400 },
  {
    route: 'ListRepricerPriceChanges',
    what: 'a 400-digit start',
    event: get('/v1/repricers/{id}/price-changes', { _start: [huge] }, { id: '1' }),
    status: 400,
  },
  { route: 'ListRepricerPriceChanges', what: 'a 400-digit id', event: get('/v1/repricers/{id}/price-changes', {}, { id: huge }), status: 404 },
  { route: 'ListPriceChanges', what: 'an unknown status', event: get('/v1/price-changes', { status: ['x'.repeat(1_000)] }), status: 400 },
  { route: 'GetPriceChange', what: 'a 400-digit id', event: get('/v1/price-changes/{id}', {}, { id: huge }), status: 404 },
  {
    route: 'ApplyPriceChange',
    what: 'a 400-digit id',
    event: { ...apiEvent({ method: 'POST', path: '/v1/price-changes/{id}/apply' }), pathParameters: { id: huge } },
    status: 404,
  },
  {
    route: 'CreateImport',
    what: 'a body one byte over 5 MB',
    event: {
      ...withBody('POST', '/v1/imports', 'x'.repeat(MAX_IMPORT_BODY_BYTES + 1), null, NDJSON_HEADERS),
      queryStringParameters: { import_type: 'offers' },
    },
    status: 413,
  },
  {
    route: 'CreateImport',
    what: 'a JSON body',
    event: { ...withBody('POST', '/v1/imports', '{}'), queryStringParameters: { import_type: 'offers' } },
    status: 415,
  },
  {
    route: 'CreateImport',
    what: 'an unknown import type',
    event: { ...withBody('POST', '/v1/imports', '{}\n', null, NDJSON_HEADERS), queryStringParameters: { import_type: 'x'.repeat(1_000) } },
    status: 400,
  },
  {
    route: 'CreateImport',
    what: 'an empty body',
    event: { ...withBody('POST', '/v1/imports', '', null, NDJSON_HEADERS), queryStringParameters: { import_type: 'offers' } },
    status: 400,
  },
  { route: 'ListImports', what: 'a page size over 100', event: get('/v1/imports', { _limit: ['101'] }), status: 400 },
  { route: 'ListImports', what: 'an unknown status', event: get('/v1/imports', { status: ['x'.repeat(1_000)] }), status: 400 },
  { route: 'GetImport', what: 'a 400-digit id', event: get('/v1/imports/{id}', {}, { id: huge }), status: 404 },
  {
    route: 'CreateWebhook',
    what: 'a 17 KiB body',
    event: withBody('POST', '/v1/webhooks', JSON.stringify({ url: `https://example.com/${'x'.repeat(17 * 1024)}`, event_types: ['IMPORT_COMPLETED'] })),
    status: 413,
  },
  {
    route: 'CreateWebhook',
    what: 'a URL over 2,048 characters',
    event: withBody('POST', '/v1/webhooks', JSON.stringify({ url: `https://example.com/${'x'.repeat(2_048)}`, event_types: ['IMPORT_COMPLETED'] })),
    status: 400,
  },
  {
    route: 'CreateWebhook',
    what: 'a URL of the metadata service',
    event: withBody('POST', '/v1/webhooks', JSON.stringify({ url: 'https://169.254.169.254/', event_types: ['IMPORT_COMPLETED'] })),
    status: 400,
  },
  {
    route: 'CreateWebhook',
    what: 'a repeated event type',
    event: withBody('POST', '/v1/webhooks', JSON.stringify({ url: 'https://example.com/', event_types: ['IMPORT_COMPLETED', 'IMPORT_COMPLETED'] })),
    status: 400,
  },
  { route: 'ListWebhooks', what: 'a query parameter', event: get('/v1/webhooks', { _limit: ['1'] }), status: 400 },
  { route: 'GetWebhook', what: 'a 400-digit id', event: get('/v1/webhooks/{id}', {}, { id: huge }), status: 404 },
  {
    route: 'DeleteWebhook',
    what: 'a 400-digit id',
    event: { ...apiEvent({ method: 'DELETE', path: '/v1/webhooks/{id}' }), pathParameters: { id: huge } },
    status: 404,
  },
  { route: 'ListWebhookDeliveries', what: 'a page size over 100', event: get('/v1/webhooks/{id}/deliveries', { _limit: ['101'] }, { id: '1' }), status: 400 },
  { route: 'ListWebhookDeliveries', what: 'a 400-digit id', event: get('/v1/webhooks/{id}/deliveries', {}, { id: huge }), status: 404 },
  {
    route: 'PutConnection',
    what: 'an API key over 512 characters',
    event: withBody('PUT', '/v1/connections/{connector}', JSON.stringify({ api_key: 'k'.repeat(513) }), { connector: 'takealot' }),
    status: 400,
  },
  {
    route: 'PutConnection',
    what: 'a 17 KiB body',
    event: withBody('PUT', '/v1/connections/{connector}', JSON.stringify({ api_key: 'k'.repeat(17 * 1024) }), { connector: 'takealot' }),
    status: 413,
  },
  {
    route: 'PutConnection',
    what: 'a 400-character connector',
    event: withBody('PUT', '/v1/connections/{connector}', JSON.stringify({ api_key: 'k'.repeat(20) }), { connector: 'c'.repeat(400) }),
    status: 404,
  },
  {
    route: 'PatchConnection',
    what: 'a mode that is not one',
    event: withBody('PATCH', '/v1/connections/{connector}', JSON.stringify({ mode: 'off' }), { connector: 'takealot' }),
    status: 400,
  },
  {
    route: 'PatchConnection',
    what: 'a 400-character connector',
    event: withBody('PATCH', '/v1/connections/{connector}', JSON.stringify({ mode: 'suggest' }), { connector: 'c'.repeat(400) }),
    status: 404,
  },
  { route: 'ListConnections', what: 'a query parameter', event: get('/v1/connections', { _limit: ['1'] }), status: 400 },
  { route: 'GetConnection', what: 'a 400-character connector', event: get('/v1/connections/{connector}', {}, { connector: 'c'.repeat(400) }), status: 404 },
  {
    route: 'DeleteConnection',
    what: 'a 400-character connector',
    event: { ...apiEvent({ method: 'DELETE', path: '/v1/connections/{connector}' }), pathParameters: { connector: 'c'.repeat(400) } },
    status: 404,
  },
  {
    route: 'SyncConnection',
    what: 'a connector that is not a uid',
    event: { ...apiEvent({ method: 'POST', path: '/v1/connections/{connector}/sync' }), pathParameters: { connector: 'Not A Uid' } },
    status: 404,
  },
  {
    route: 'ResumeConnection',
    what: 'a connector that is not a uid',
    event: { ...apiEvent({ method: 'POST', path: '/v1/connections/{connector}/resume' }), pathParameters: { connector: 'Not A Uid' } },
    status: 404,
  },
  {
    route: 'ResumeConnection',
    what: 'a 400-character connector',
    event: { ...apiEvent({ method: 'POST', path: '/v1/connections/{connector}/resume' }), pathParameters: { connector: 'c'.repeat(400) } },
    status: 404,
  },
  {
    route: 'ReceiveMarketplaceEvent',
    what: 'a uid that is not a connection uid',
    event: { ...withBody('POST', '/v1/marketplace-events/{uid}', '{}'), pathParameters: { uid: 'u'.repeat(400) } },
    status: 401,
  },
  {
    route: 'ReceiveMarketplaceEvent',
    what: 'a 17 KiB body',
    event: withBody('POST', '/v1/marketplace-events/{uid}', JSON.stringify({ pad: 'x'.repeat(17 * 1024) }), { uid: '0b6c3f0e-8d7a-4c1b-9e2f-3a4b5c6d7e8f' }),
    status: 401,
  },
];

beforeAll(async () => {
  process.env.TABLE_NAME = 'limits-test';
  for (const route of ROUTES) {
    const module = (await import(`../../../${route.entry.replace(/\.ts$/, '.js')}`)) as { handler: Handler };
    handlers.set(route.name, module.handler);
  }
});

beforeEach(() => {
  documents.reset();
  plain.reset();
  // A call would be a bug: make it loud rather than a silent empty answer.
  documents.onAnyCommand().rejects(new Error('DynamoDB was called'));
  plain.onAnyCommand().rejects(new Error('DynamoDB was called'));
});

describe('limits before any DynamoDB call', () => {
  it("covers every route that reads a client's data", () => {
    const covered = new Set(CASES.map((c) => c.route));
    expect(ROUTES.filter((route) => route.tableAccess !== 'none' && !covered.has(route.name)).map((route) => route.name)).toEqual([]);
  });

  it.each(CASES.map((c) => [c.route, c.what, c] as const))('%s refuses %s without touching the table', async (route, _what, { event, status }) => {
    // Act
    const response = await handlers.get(route)!(event, CONTEXT);

    // Assert
    expectProblem(response, status, status === 400 ? expect.any(String) : 'about:blank');
    expect(documents.calls()).toHaveLength(0);
    expect(plain.calls()).toHaveLength(0);
  });
});

/**
 * Strings that are not well-formed Unicode (an unpaired surrogate, `"\ud800"` in JSON) have no
 * UTF-8 form: as a key part, a header or a log line they would fail (a URIError became a 500).
 * Each is refused like any other invalid input, before any DynamoDB call. (With an
 * Idempotency-Key the key's record is read first: test/integration/ill-formed-unicode.test.ts.)
 */
const LONE = '\ud800';
const LONE_JSON = '"\\ud800"';
const illFormed: { route: string; what: string; event: APIGatewayProxyEvent; status: number; field?: string }[] = [
  {
    route: 'CreateRepricer',
    what: 'a product code',
    event: withBody('POST', '/v1/repricers', `{"product_code":${LONE_JSON},"preferred_price":10,"preferred_profit":1}`),
    status: 400,
    field: 'product_code',
  },
  {
    route: 'CreateRepricer',
    what: 'a connector uid',
    event: withBody('POST', '/v1/repricers', `{"product_code":"SKU-1","preferred_price":10,"preferred_profit":1,"connector":"\\udc00"}`),
    status: 400,
    field: 'connector',
  },
  {
    route: 'CreateRepricer',
    what: 'an Idempotency-Key',
    event: withBody('POST', '/v1/repricers', JSON.stringify(createBody), null, { ...JSON_HEADERS, 'Idempotency-Key': `key-${LONE}` }),
    status: 400,
    field: 'Idempotency-Key',
  },
  {
    route: 'CreateRepricer',
    what: 'an unknown field name',
    event: withBody('POST', '/v1/repricers', `{"product_code":"SKU-1","preferred_price":10,"preferred_profit":1,${LONE_JSON}:1}`),
    status: 400,
    field: '\ufffd',
  },
  {
    route: 'ListOffers',
    what: 'a competitiveness filter',
    event: get('/v1/offers', { competitiveness: [`high${LONE}`] }),
    status: 400,
    field: 'competitiveness',
  },
  { route: 'ListOffers', what: 'an unknown parameter name', event: get('/v1/offers', { [LONE]: ['1'] }), status: 400, field: '\ufffd' },
  { route: 'ListRepricers', what: 'a product code filter', event: get('/v1/repricers', { product_code: [LONE] }), status: 400, field: 'product_code' },
  { route: 'GetProduct', what: 'a product code in the path', event: get('/v1/products/{code}', {}, { code: `A${LONE}` }), status: 404 },
  {
    route: 'GetProduct',
    what: 'a percent-encoded surrogate (invalid UTF-8) in the path',
    event: get('/v1/products/{code}', {}, { code: '%ED%A0%80' }),
    status: 404,
  },
  { route: 'GetRepricer', what: 'an id', event: get('/v1/repricers/{id}', {}, { id: `1${LONE}` }), status: 404 },
  { route: 'PreviewRepricer', what: 'an id', event: get('/v1/repricers/{id}/preview', {}, { id: `1${LONE}` }), status: 404 },
  { route: 'UpdateRepricer', what: 'an id', event: withBody('PATCH', '/v1/repricers/{id}', '{"enabled":false}', { id: LONE }), status: 404 },
  {
    route: 'DeleteRepricer',
    what: 'an id',
    event: { ...apiEvent({ method: 'DELETE', path: '/v1/repricers/{id}' }), pathParameters: { id: LONE } },
    status: 404,
  },
  { route: 'GetOffer', what: 'an id', event: get('/v1/offers/{id}', {}, { id: LONE }), status: 404 },
];

describe('ill-formed Unicode before any DynamoDB call', () => {
  it.each(illFormed.map((c) => [c.route, c.what, c] as const))('%s refuses %s that is not well-formed', async (route, _what, { event, status, field }) => {
    // Act
    const response = await handlers.get(route)!(event, CONTEXT);

    // Assert
    const body = expectProblem(response, status, status === 400 ? expect.any(String) : 'about:blank');
    if (field !== undefined) expect(body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    if (field !== undefined && field !== '\ufffd')
      expect(body.errors).toEqual(expect.arrayContaining([{ field, message: expect.stringMatching(/well-formed|printable ASCII/) }]));
    expect(response.body.isWellFormed()).toBe(true);
    expect(documents.calls()).toHaveLength(0);
    expect(plain.calls()).toHaveLength(0);
  });

  it('says why', () => {
    expect(STORABLE_TEXT_MESSAGE).toMatch(/well-formed Unicode/);
  });
});
