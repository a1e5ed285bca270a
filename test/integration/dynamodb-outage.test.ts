/**
 * A DynamoDB that stops answering, played by a DynamoDB Local of this file's own frozen with
 * SIGSTOP (it keeps accepting connections, as a hung endpoint does, but never answers):
 * - a request whose authorization API Gateway has cached gets 503 with Retry-After, within the
 *   time budget of one DynamoDB call (docs/operations.md), never a hang or a function timeout;
 * - a request that needs the authorizer gets the authorizer's 500, within the same budget;
 * - once DynamoDB answers again (SIGCONT), so does the service, without a restart.
 *
 * The java process is always resumed and stopped in afterAll, whatever happened.
 */
import { freePort, startDynamoDbLocal, type DynamoDbLocal } from '../../tools/local/dynamodb-local.js';
import { STANDARD_PROBLEMS } from '../../lambdas/shared/http/problem.js';
import { cachedAuthorizer } from '../support/cached-authorizer.js';
import { connectorRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';

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
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';

let dynamo: DynamoDbLocal | undefined;
let api: TestApi | undefined;
let frozen = false;
const previousEndpoint = process.env.DYNAMODB_ENDPOINT;
const previousTimeout = process.env.DYNAMODB_REQUEST_TIMEOUT_MS;
// The deployed per-attempt timeout, not the longer one the shared test instance gets.
delete process.env.DYNAMODB_REQUEST_TIMEOUT_MS;

const freeze = () => {
  process.kill(dynamo!.pid!, 'SIGSTOP');
  frozen = true;
};
const thaw = () => {
  if (frozen && dynamo?.pid !== undefined) process.kill(dynamo.pid, 'SIGCONT');
  frozen = false;
};

const timed = async <T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> => {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
};

beforeAll(async () => {
  dynamo = await startDynamoDbLocal({ port: await freePort() });
  // Read by the handlers' SDK clients when their modules load, which startTestApi does next.
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  const { dynamoClient, SDK_CONNECTION_TIMEOUT_MS, SDK_MAX_ATTEMPTS, SDK_REQUEST_TIMEOUT_MS } = await import('../../lambdas/shared/data/dynamo.js');
  configuredRequestTimeout = (await (dynamoClient.config.requestHandler as unknown as { configProvider: Promise<{ requestTimeout?: number }> }).configProvider)
    .requestTimeout;
  CALL_BUDGET_MS = SDK_MAX_ATTEMPTS * Math.max(SDK_CONNECTION_TIMEOUT_MS, SDK_REQUEST_TIMEOUT_MS) + 1_000 + 2_000;
  ALL_ATTEMPTS_MS = SDK_MAX_ATTEMPTS * SDK_REQUEST_TIMEOUT_MS;
  DEPLOYED_REQUEST_TIMEOUT_MS = SDK_REQUEST_TIMEOUT_MS;
  // API Gateway's authorizer cache: a client that called in the last minute skips the authorizer.
  api = await startTestApi({ handlers: cachedAuthorizer() });
  await api.createClient(alice[0], { password: alice[1] });
  await api.createClient(bob[0], { password: bob[1] });
  await api.importRecords(alice[0], [connectorRecord('amazon'), productRecord('OUT-1')]);
}, 120_000);

afterAll(async () => {
  thaw();
  try {
    await api?.close();
  } finally {
    await dynamo?.stop();
    process.env.DYNAMODB_ENDPOINT = previousEndpoint;
    if (previousTimeout !== undefined) process.env.DYNAMODB_REQUEST_TIMEOUT_MS = previousTimeout;
  }
}, 60_000);

describe('a DynamoDB that stops answering', () => {
  it('gives 503 with Retry-After within the budget, 500 where the authorizer must run, and normal answers once it is back', async () => {
    // Arrange: the deployed timeout; alice's authorization is cached, bob's is not
    expect(configuredRequestTimeout).toBe(DEPLOYED_REQUEST_TIMEOUT_MS);
    expect((await api!.request('GET', '/v1/offers', { auth: alice })).status).toBe(200);
    freeze();

    // Act
    const read = await timed(() => api!.request('GET', '/v1/offers', { auth: alice }));
    const write = await timed(() =>
      api!.request('POST', '/v1/repricers/', { auth: alice, body: { product_code: 'OUT-1', preferred_price: 100, preferred_profit: 10 } }),
    );
    const uncached = await timed(() => api!.request('GET', '/v1/offers', { auth: bob }));
    thaw();
    const afterRead = await api!.request('GET', '/v1/offers', { auth: alice });
    const afterWrite = await api!.request('POST', '/v1/repricers/', {
      auth: alice,
      body: { product_code: 'OUT-1', preferred_price: 100, preferred_profit: 10 },
    });
    const afterLogin = await api!.request('GET', '/v1/offers', { auth: bob });

    // Assert
    for (const { result, ms } of [read, write]) {
      expect({ status: result.status, retryAfter: result.headers['retry-after'], body: result.body }).toEqual({
        status: 503,
        retryAfter: '1',
        body: STANDARD_PROBLEMS.unavailable,
      });
      expect(ms).toBeGreaterThanOrEqual(ALL_ATTEMPTS_MS - 100);
      expect(ms).toBeLessThan(CALL_BUDGET_MS);
    }
    expect({ status: uncached.result.status, body: uncached.result.body }).toEqual({ status: 500, body: STANDARD_PROBLEMS.internal });
    expect(uncached.ms).toBeLessThan(CALL_BUDGET_MS);
    expect([afterRead.status, afterWrite.status, afterLogin.status]).toEqual([200, 201, 200]);
  }, 60_000);
});
