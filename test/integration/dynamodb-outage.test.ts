/**
 * @dynamodb-local own
 *
 * A DynamoDB that stops answering, played by the file's DynamoDB Local frozen with SIGSTOP (it
 * keeps accepting connections, as a hung endpoint does, but never answers); the pragma above
 * gives the file an instance of its own (test/support/dynamodb-environment.cjs), not its
 * worker's:
 * - a request whose authorization API Gateway has cached, on every read route (lists and by id)
 *   and on a write, gets 503 with Retry-After within the function's timeout (each waited for
 *   every attempt of one DynamoDB call to time out), never a hang or a function timeout;
 * - so does a request that needs the authorizer (API Gateway's authorizer-error response), within
 *   the same budget;
 * - once DynamoDB answers again (SIGCONT), so does the service, without a restart.
 *
 * The java process is always resumed in afterAll, whatever happened (the test environment
 * stops it after that).
 */
import { STANDARD_PROBLEMS } from '../../lambdas/http/problem.js';
import { cachedAuthorizer } from '../support/cached-authorizer.js';
import { connectorRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { FUNCTION_TIMEOUT_SECONDS } from '../../lib/constructs/api-function.js';

/** What a request path may take before Lambda kills it. */
const FUNCTION_TIMEOUT_MS = FUNCTION_TIMEOUT_SECONDS * 1000;

/**
 * One DynamoDB call, every attempt timing out and every backoff at its longest (throttling's:
 * 1 s and 2 s): the budget docs/operations.md states, checked by test/unit/data/timeouts.test.ts
 * against the Lambda timeout. Set once the SDK settings are loaded (see beforeAll).
 */
let CALL_BUDGET_MS = 0;
/** Every attempt really waited for its timeout (so the answer is the timeouts' doing). */
let ALL_ATTEMPTS_MS = 0;
let DEPLOYED_REQUEST_TIMEOUT_MS = 0;
/** What the handlers' SDK client was built with. */
let configuredRequestTimeout: number | undefined;

const alice: [string, string] = ['outage-alice', 'outage-alice-password'];
const bob: [string, string] = ['outage-bob', 'outage-bob-password'];

// Expected failures (the authorizer's timeouts) stay out of the test output.
process.env.POWERTOOLS_LOG_LEVEL = process.env.OUTAGE_LOG_LEVEL ?? 'SILENT';

/** The java process of the file's DynamoDB Local (test/support/dynamodb-environment.cjs). */
const dynamoPid = Number(process.env.DYNAMODB_LOCAL_PID);
let api: TestApi | undefined;
let frozen = false;
const previousTimeout = process.env.DYNAMODB_REQUEST_TIMEOUT_MS;
// The deployed per-attempt timeout (SDK_REQUEST_TIMEOUT_MS, checked below), not the longer one
// a client of a DynamoDB Local gets by default.
process.env.DYNAMODB_REQUEST_TIMEOUT_MS = '1200';

const freeze = () => {
  process.kill(dynamoPid, 'SIGSTOP');
  frozen = true;
};
const thaw = () => {
  if (frozen) process.kill(dynamoPid, 'SIGCONT');
  frozen = false;
};

const timed = async <T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> => {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
};

beforeAll(async () => {
  if (!Number.isInteger(dynamoPid) || dynamoPid <= 0) throw new Error('DYNAMODB_LOCAL_PID is not set: run this file in the jest "integration" project');
  const { dynamoClient, SDK_CONNECTION_TIMEOUT_MS, SDK_MAX_ATTEMPTS, SDK_REQUEST_TIMEOUT_MS } = await import('../../lambdas/data/table/dynamo.js');
  configuredRequestTimeout = (await (dynamoClient.config.requestHandler as unknown as { configProvider: Promise<{ requestTimeout?: number }> }).configProvider)
    .requestTimeout;
  CALL_BUDGET_MS = SDK_MAX_ATTEMPTS * Math.max(SDK_CONNECTION_TIMEOUT_MS, SDK_REQUEST_TIMEOUT_MS) + 1_000 + 2_000;
  ALL_ATTEMPTS_MS = SDK_MAX_ATTEMPTS * SDK_REQUEST_TIMEOUT_MS;
  DEPLOYED_REQUEST_TIMEOUT_MS = SDK_REQUEST_TIMEOUT_MS;
  // API Gateway's authorizer cache: a client that called in the last minute skips the authorizer.
  api = await startTestApi({ handlers: cachedAuthorizer() });
  await api.createClient(alice[0], { password: alice[1] });
  await api.createClient(bob[0], { password: bob[1] });
  await api.importRecords(alice[0], [connectorRecord('amazon'), productRecord('OUT-1'), productRecord('OUT-2')]);
}, 120_000);

afterAll(async () => {
  thaw();
  try {
    await api?.close();
  } finally {
    if (previousTimeout === undefined) delete process.env.DYNAMODB_REQUEST_TIMEOUT_MS;
    else process.env.DYNAMODB_REQUEST_TIMEOUT_MS = previousTimeout;
  }
}, 60_000);

/** A request on each read route and one write, with the ids and codes the data above holds. */
const OUTAGE_REQUESTS: readonly { readonly name: string; readonly send: () => Promise<{ status: number; headers: Record<string, string>; body: unknown }> }[] =
  [
    { name: 'GET /v1/repricers', send: () => api!.request('GET', '/v1/repricers', { auth: alice }) },
    { name: 'GET /v1/offers', send: () => api!.request('GET', '/v1/offers', { auth: alice }) },
    { name: 'GET /v1/price-changes', send: () => api!.request('GET', '/v1/price-changes', { auth: alice }) },
    { name: 'GET /v1/repricers/{id}', send: () => api!.request('GET', `/v1/repricers/${repricerId}`, { auth: alice }) },
    { name: 'GET /v1/products/{code}', send: () => api!.request('GET', '/v1/products/OUT-1', { auth: alice }) },
    {
      name: 'POST /v1/repricers/',
      send: () => api!.request('POST', '/v1/repricers/', { auth: alice, body: { product_code: 'OUT-2', preferred_price: 100, preferred_profit: 10 } }),
    },
  ];
let repricerId = 0;

describe('a DynamoDB that stops answering', () => {
  it('gives 503 with Retry-After on every route within the budget, where the authorizer must run too, and normal answers once it is back', async () => {
    // Arrange: the deployed timeout; alice's authorization is cached, bob's is not
    expect(configuredRequestTimeout).toBe(DEPLOYED_REQUEST_TIMEOUT_MS);
    const created = await api!.request<{ id: number }>('POST', '/v1/repricers/', {
      auth: alice,
      body: { product_code: 'OUT-1', preferred_price: 100, preferred_profit: 10 },
    });
    expect(created.status).toBe(201);
    repricerId = created.body.id;
    await api!.settle();
    freeze();

    // Act: the requests at once, as a frozen DynamoDB meets them (each waits out its own timeouts)
    const [uncached, ...answered] = await Promise.all([
      timed(() => api!.request('GET', '/v1/repricers', { auth: bob })),
      ...OUTAGE_REQUESTS.map(async ({ name, send }) => ({ name, ...(await timed(send)) })),
    ]);
    const during = answered.map(({ name, result, ms }) => ({ name, status: result.status, retryAfter: result.headers['retry-after'], body: result.body, ms }));
    thaw();
    const after: { name: string; status: number }[] = [];
    for (const { name, send } of OUTAGE_REQUESTS) after.push({ name, status: (await send()).status });
    const afterLogin = await api!.request('GET', '/v1/offers', { auth: bob });

    // Assert
    expect(during.map(({ name, status, retryAfter, body }) => ({ name, status, retryAfter, body }))).toEqual(
      OUTAGE_REQUESTS.map(({ name }) => ({ name, status: 503, retryAfter: '1', body: STANDARD_PROBLEMS.unavailable })),
    );
    for (const { name, ms } of during) {
      // Every attempt really waited for its timeout, and the answer came inside the function's time.
      expect({ name, waitedForTimeouts: ms >= ALL_ATTEMPTS_MS - 100 }).toEqual({ name, waitedForTimeouts: true });
      expect({ name, withinFunctionTimeout: ms < FUNCTION_TIMEOUT_MS }).toEqual({ name, withinFunctionTimeout: true });
    }
    // Where the authorizer must run, it cannot read the client either: the same answer.
    expect({ status: uncached.result.status, retryAfter: uncached.result.headers['retry-after'], body: uncached.result.body }).toEqual({
      status: 503,
      retryAfter: '1',
      body: STANDARD_PROBLEMS.unavailable,
    });
    expect(uncached.ms).toBeLessThan(CALL_BUDGET_MS);
    expect(after).toEqual(OUTAGE_REQUESTS.map(({ name }) => ({ name, status: name.startsWith('POST') ? 201 : 200 })));
    expect(afterLogin.status).toBe(200);
  }, 120_000);
});
