/**
 * The time budget, inside out: one DynamoDB call (every attempt timing out, every backoff at its
 * longest, throttling's being the longest) ends before the Lambda function times out, which ends
 * before API Gateway's 29 s integration timeout. So a slow dependency ends as our own 503 or 500
 * problem, never as the gateway's 504 or a killed function.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { MAXIMUM_RETRY_DELAY, Retry, THROTTLING_RETRY_DELAY_BASE, DEFAULT_RETRY_DELAY_BASE } from '@smithy/core/retry';
import { FUNCTION_TIMEOUT_SECONDS } from '../../../lib/constructs/api-function.js';
import {
  connectionTimeoutMs,
  createDynamoClient,
  dynamoClient,
  LOCAL_CONNECTION_TIMEOUT_MS,
  LOCAL_REQUEST_TIMEOUT_MS,
  requestTimeoutMs,
  SDK_CONNECTION_TIMEOUT_MS,
  SDK_MAX_ATTEMPTS,
  SDK_REQUEST_TIMEOUT_MS,
} from '../../../lambdas/data/table/dynamo.js';

const API_GATEWAY_INTEGRATION_TIMEOUT_MS = 29_000;

/** The SDK's longest backoff before retry i (0-based): full jitter below base * 2^i, capped. */
const longestBackoffMs = (retry: number): number => {
  const base = Math.max(Retry.throttlingDelay(), Retry.delay(), THROTTLING_RETRY_DELAY_BASE, DEFAULT_RETRY_DELAY_BASE);
  return Math.min(base * 2 ** retry, MAXIMUM_RETRY_DELAY);
};

/**
 * The request timeout runs from the start of an attempt (connecting included) to the response
 * headers, so an attempt lasts at most the longer of the two timeouts.
 */
const worstCaseCallMs = (): number => {
  const attempts = SDK_MAX_ATTEMPTS * Math.max(SDK_CONNECTION_TIMEOUT_MS, SDK_REQUEST_TIMEOUT_MS);
  const backoff = Array.from({ length: SDK_MAX_ATTEMPTS - 1 }, (_, retry) => longestBackoffMs(retry)).reduce((a, b) => a + b, 0);
  return attempts + backoff;
};

/** A TCP server that accepts connections and reads requests but never answers: a DynamoDB that hangs. */
const silentServer = async (): Promise<{ server: Server; port: number; requests: () => number; close: () => Promise<void> }> => {
  const sockets = new Set<Socket>();
  let requests = 0;
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (chunk: Buffer) => {
      requests += chunk.toString('latin1').split('POST / HTTP/1.1').length - 1;
    });
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    requests: () => requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

describe('timeouts', () => {
  it('gives up on a DynamoDB that accepts connections but never answers, after every attempt timed out', async () => {
    // Arrange
    const silent = await silentServer();
    // The deployed per-attempt timeout, which a client of a loopback endpoint only gets when told.
    const client = createDynamoClient({ endpoint: `http://127.0.0.1:${silent.port}`, env: { DYNAMODB_REQUEST_TIMEOUT_MS: String(SDK_REQUEST_TIMEOUT_MS) } });
    const started = performance.now();

    try {
      // Act
      const outcome = await client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' }, sk: { S: 'b' } } })).then(
        () => 'answered',
        (error: Error & { $metadata?: { attempts?: number } }) => error,
      );
      const elapsed = performance.now() - started;

      // Assert: a TimeoutError (which the error handler answers with 503), after every attempt
      expect(outcome).toMatchObject({ name: 'TimeoutError' });
      expect(silent.requests()).toBe(SDK_MAX_ATTEMPTS);
      expect(elapsed).toBeGreaterThanOrEqual(SDK_MAX_ATTEMPTS * SDK_REQUEST_TIMEOUT_MS - 50);
      expect(elapsed).toBeLessThan(worstCaseCallMs());
    } finally {
      client.destroy();
      await silent.close();
    }
  }, 20_000);

  it('configures a client of AWS (no endpoint) with the documented attempts and timeouts', async () => {
    // Act
    const client = createDynamoClient({ env: {} });
    const handlerConfig = await (client.config.requestHandler as unknown as { configProvider: Promise<Record<string, unknown>> }).configProvider;

    // Assert
    expect(await client.config.maxAttempts()).toBe(SDK_MAX_ATTEMPTS);
    expect(handlerConfig).toMatchObject({ requestTimeout: SDK_REQUEST_TIMEOUT_MS, connectionTimeout: SDK_CONNECTION_TIMEOUT_MS, throwOnRequestTimeout: true });
    client.destroy();
  });

  it('builds the shared client by the same rule, from DYNAMODB_ENDPOINT', async () => {
    const handlerConfig = await (dynamoClient.config.requestHandler as unknown as { configProvider: Promise<Record<string, unknown>> }).configProvider;
    expect(await dynamoClient.config.maxAttempts()).toBe(SDK_MAX_ATTEMPTS);
    expect(handlerConfig).toMatchObject({ requestTimeout: requestTimeoutMs(process.env, process.env.DYNAMODB_ENDPOINT), throwOnRequestTimeout: true });
  });

  it.each([
    ['http://localhost:8000', LOCAL_REQUEST_TIMEOUT_MS, LOCAL_CONNECTION_TIMEOUT_MS],
    ['http://127.0.0.1:8103', LOCAL_REQUEST_TIMEOUT_MS, LOCAL_CONNECTION_TIMEOUT_MS],
    ['http://[::1]:8000', LOCAL_REQUEST_TIMEOUT_MS, LOCAL_CONNECTION_TIMEOUT_MS],
    ['https://dynamodb.eu-west-1.amazonaws.com', SDK_REQUEST_TIMEOUT_MS, SDK_CONNECTION_TIMEOUT_MS],
    ['http://localhost.example.com:8000', SDK_REQUEST_TIMEOUT_MS, SDK_CONNECTION_TIMEOUT_MS],
    ['http://10.0.0.5:8000', SDK_REQUEST_TIMEOUT_MS, SDK_CONNECTION_TIMEOUT_MS],
    [undefined, SDK_REQUEST_TIMEOUT_MS, SDK_CONNECTION_TIMEOUT_MS],
  ])('gives a client of %s a per-attempt timeout of %i ms and %i ms to connect', async (endpoint, request, connection) => {
    expect(requestTimeoutMs({}, endpoint)).toBe(request);
    expect(connectionTimeoutMs(endpoint)).toBe(connection);
    const client = createDynamoClient({ endpoint, env: {} });
    const handlerConfig = await (client.config.requestHandler as unknown as { configProvider: Promise<Record<string, unknown>> }).configProvider;
    expect(handlerConfig).toMatchObject({ requestTimeout: request, connectionTimeout: connection });
    client.destroy();
  });

  it('gives a client of a loopback endpoint its longer time to connect whatever DYNAMODB_REQUEST_TIMEOUT_MS says', async () => {
    const client = createDynamoClient({ endpoint: 'http://localhost:8000', env: { DYNAMODB_REQUEST_TIMEOUT_MS: String(SDK_REQUEST_TIMEOUT_MS) } });
    const handlerConfig = await (client.config.requestHandler as unknown as { configProvider: Promise<Record<string, unknown>> }).configProvider;
    expect(handlerConfig).toMatchObject({ requestTimeout: SDK_REQUEST_TIMEOUT_MS, connectionTimeout: LOCAL_CONNECTION_TIMEOUT_MS });
    client.destroy();
  });

  it('ends one DynamoDB call, retries and throttling backoff included, before the function times out', () => {
    // 3 x 1.2 s + 1 s + 2 s = 6.6 s today
    expect(worstCaseCallMs()).toBeLessThan(FUNCTION_TIMEOUT_SECONDS * 1000);
  });

  it('takes the per-attempt timeout DYNAMODB_REQUEST_TIMEOUT_MS names for any endpoint, and refuses nonsense', () => {
    const env = (value?: string) => (value === undefined ? {} : { DYNAMODB_REQUEST_TIMEOUT_MS: value });
    expect(requestTimeoutMs(env())).toBe(SDK_REQUEST_TIMEOUT_MS);
    expect(requestTimeoutMs(env(''))).toBe(SDK_REQUEST_TIMEOUT_MS);
    expect(requestTimeoutMs(env('5000'))).toBe(5_000);
    expect(requestTimeoutMs(env('1200'), 'http://localhost:8000')).toBe(1_200);
    for (const bad of ['0', '-1', '1.5', 'soon', '600000']) expect(() => requestTimeoutMs(env(bad))).toThrow(/DYNAMODB_REQUEST_TIMEOUT_MS/);
  });

  it('ends the function before API Gateway gives up on it', () => {
    expect(FUNCTION_TIMEOUT_SECONDS * 1000).toBeLessThan(API_GATEWAY_INTEGRATION_TIMEOUT_MS);
  });
});
