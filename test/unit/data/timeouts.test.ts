/**
 * The time budget, inside out: one DynamoDB call (every attempt timing out, every backoff at its
 * longest, throttling's being the longest) ends before the Lambda function times out, which ends
 * before API Gateway's 29 s integration timeout. So a slow dependency ends as our own 503 or 500
 * problem, never as the gateway's 504 or a killed function.
 */
import { MAXIMUM_RETRY_DELAY, Retry, THROTTLING_RETRY_DELAY_BASE, DEFAULT_RETRY_DELAY_BASE } from '@smithy/core/retry';
import { FUNCTION_TIMEOUT_SECONDS } from '../../../lib/constructs/api-function.js';
import {
  dynamoClient,
  SDK_CONNECTION_TIMEOUT_MS,
  SDK_MAX_ATTEMPTS,
  SDK_REQUEST_TIMEOUT_MS,
} from '../../../lambdas/shared/data/dynamo.js';

const API_GATEWAY_INTEGRATION_TIMEOUT_MS = 29_000;

/** The SDK's longest backoff before retry i (0-based): full jitter below base * 2^i, capped. */
const longestBackoffMs = (retry: number): number => {
  const base = Math.max(Retry.throttlingDelay(), Retry.delay(), THROTTLING_RETRY_DELAY_BASE, DEFAULT_RETRY_DELAY_BASE);
  return Math.min(base * 2 ** retry, MAXIMUM_RETRY_DELAY);
};

const worstCaseCallMs = (): number => {
  const attempts = SDK_MAX_ATTEMPTS * (SDK_CONNECTION_TIMEOUT_MS + SDK_REQUEST_TIMEOUT_MS);
  const backoff = Array.from({ length: SDK_MAX_ATTEMPTS - 1 }, (_, retry) => longestBackoffMs(retry)).reduce((a, b) => a + b, 0);
  return attempts + backoff;
};

describe('timeouts', () => {
  it('configures the shared client with the documented attempts and timeouts', async () => {
    // Act
    const handlerConfig = await (dynamoClient.config.requestHandler as unknown as { configProvider: Promise<Record<string, unknown>> }).configProvider;

    // Assert
    expect(await dynamoClient.config.maxAttempts()).toBe(SDK_MAX_ATTEMPTS);
    expect(handlerConfig).toMatchObject({ requestTimeout: SDK_REQUEST_TIMEOUT_MS, connectionTimeout: SDK_CONNECTION_TIMEOUT_MS });
  });

  it('ends one DynamoDB call, retries and throttling backoff included, before the function times out', () => {
    // 3 x (1 s + 1.2 s) + 1 s + 2 s = 9.6 s today
    expect(worstCaseCallMs()).toBeLessThan(FUNCTION_TIMEOUT_SECONDS * 1000);
  });

  it('ends the function before API Gateway gives up on it', () => {
    expect(FUNCTION_TIMEOUT_SECONDS * 1000).toBeLessThan(API_GATEWAY_INTEGRATION_TIMEOUT_MS);
  });
});
