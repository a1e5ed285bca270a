import { jest } from '@jest/globals';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { problemErrorHandler, RETRY_AFTER_SECONDS } from '../../../lambdas/http/error-handler.js';
import { conflict, HttpProblem, validationFailed } from '../../../lambdas/http/errors.js';
import { problem } from '../../../lambdas/http/problem.js';
import { logger } from '../../../lambdas/observability/logger.js';

/** Runs the middleware's onError as Middy would, and returns the response it set. */
const respond = async (error: unknown): Promise<APIGatewayProxyResult> => {
  const request = { event: {}, context: {}, response: undefined, error, internal: {} } as unknown as {
    response: APIGatewayProxyResult | undefined;
  };
  await problemErrorHandler().onError!(request as never);
  if (!request.response) throw new Error('no response was set');
  expect(request.response.headers?.['Content-Type']).toBe('application/problem+json');
  const body = JSON.parse(request.response.body) as Record<string, unknown>;
  expect(body).toMatchObject({ type: expect.any(String), title: expect.any(String), status: request.response.statusCode, detail: expect.any(String) });
  return request.response;
};
const bodyOf = (response: APIGatewayProxyResult) => JSON.parse(response.body) as Record<string, unknown>;
const middyError = (statusCode: number, message: string) =>
  Object.assign(new Error(message), { statusCode, cause: { package: '@middy/http-json-body-parser', data: 'secret body' } });

beforeEach(() => {
  logger.setLogLevel('SILENT');
  jest.restoreAllMocks();
});

describe('problemErrorHandler', () => {
  it('answers an HttpProblem with its own problem, status and headers', async () => {
    // Arrange
    const error = new HttpProblem(problem(409, 'Taken: 7.', { type: 'urn:x', existing_id: 7 }), { 'X-Extra': 'yes' });

    // Act
    const response = await respond(error);

    // Assert
    expect(response.statusCode).toBe(409);
    expect(response.headers).toMatchObject({ 'Content-Type': 'application/problem+json', 'X-Extra': 'yes', 'Cache-Control': 'no-store' });
    expect(bodyOf(response)).toEqual({ type: 'urn:x', title: 'Conflict', status: 409, detail: 'Taken: 7.', existing_id: 7 });
  });

  it('keeps the field errors of a validation problem', async () => {
    // Act
    const response = await respond(validationFailed([{ field: 'preferred_price', message: 'Too small' }]));

    // Assert
    expect(response.statusCode).toBe(400);
    expect(bodyOf(response)).toEqual({
      type: 'urn:repricer:problem:validation',
      title: 'Bad Request',
      status: 400,
      detail: 'The request is not valid.',
      errors: [{ field: 'preferred_price', message: 'Too small' }],
    });
  });

  it("answers Middy's 415 with the unsupported-media-type problem", async () => {
    // Act
    const response = await respond(middyError(415, 'Unsupported Media Type'));

    // Assert
    expect(response.statusCode).toBe(415);
    expect(response.headers?.['Content-Type']).toBe('application/problem+json');
    expect(bodyOf(response)).toEqual({
      type: 'about:blank',
      title: 'Unsupported Media Type',
      status: 415,
      detail: 'The request body must be application/json.',
    });
  });

  it.each([
    ['Invalid or malformed JSON was provided', 'The request body is not valid JSON.'],
    ['Forbidden key in JSON body', 'The request body contains a forbidden key.'],
  ])('answers Middy\'s 422 "%s" with a 400', async (message, detail) => {
    // Act
    const response = await respond(middyError(422, message));

    // Assert
    expect(response.statusCode).toBe(400);
    expect(bodyOf(response)).toEqual({ type: 'about:blank', title: 'Bad Request', status: 400, detail });
    expect(response.body).not.toContain('secret body');
  });

  it('does not trust a status code on an error that does not come from Middy', async () => {
    // Act
    const response = await respond(Object.assign(new Error('upstream said 415'), { statusCode: 415 }));

    // Assert
    expect(response.statusCode).toBe(500);
  });

  it("answers a transaction that kept losing races with the client's other writes with 503 and Retry-After", async () => {
    // Arrange: what the SDK throws when a transaction is cancelled by a concurrent one
    const contended = Object.assign(new Error('Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]'), {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }],
    });

    // Act
    const response = await respond(contended);

    // Assert
    expect(response.statusCode).toBe(503);
    expect(response.headers).toMatchObject({ 'Retry-After': RETRY_AFTER_SECONDS });
    expect(response.body).not.toMatch(/Transaction|cancel/i);
  });

  it('still answers a cancelled transaction without conflict reasons with a generic 500', async () => {
    const response = await respond(
      Object.assign(new Error('cancelled'), { name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'ValidationError' }] }),
    );

    expect(response.statusCode).toBe(500);
  });

  it.each(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded', 'TransactionConflictException'])(
    'answers the throttling error %s with 503 and Retry-After',
    async (name) => {
      // Arrange
      const warn = jest.spyOn(logger, 'warn');

      // Act
      const response = await respond(Object.assign(new Error('Rate of requests exceeds the allowed throughput on table secret-table'), { name }));

      // Assert
      expect(response.statusCode).toBe(503);
      expect(response.headers).toMatchObject({ 'Retry-After': RETRY_AFTER_SECONDS, 'Content-Type': 'application/problem+json' });
      expect(RETRY_AFTER_SECONDS).toBe('1');
      expect(bodyOf(response)).toEqual({
        type: 'about:blank',
        title: 'Service Unavailable',
        status: 503,
        detail: 'The service is temporarily overloaded; retry after the indicated delay.',
      });
      expect(response.body).not.toMatch(/secret|Throughput|Exception|Limit/);
      expect(warn).toHaveBeenCalledTimes(1);
    },
  );

  it('answers a DynamoDB call whose every attempt timed out with 503 and Retry-After', async () => {
    // Arrange: what @smithy/node-http-handler throws with throwOnRequestTimeout, after the SDK's retries
    const warn = jest.spyOn(logger, 'warn');
    const timedOut = Object.assign(new Error('@smithy/node-http-handler - [ERROR] a request has exceeded the configured 1200 ms requestTimeout.'), {
      name: 'TimeoutError',
      code: 'ETIMEDOUT',
      $metadata: { attempts: 3 },
    });

    // Act
    const response = await respond(timedOut);

    // Assert
    expect(response.statusCode).toBe(503);
    expect(response.headers).toMatchObject({ 'Retry-After': RETRY_AFTER_SECONDS });
    expect(response.body).not.toMatch(/smithy|requestTimeout|1200/);
    expect(warn).toHaveBeenCalledWith('DynamoDB did not answer in time after retries', { errorName: 'TimeoutError' });
  });

  it.each<[string, unknown]>([
    ['an Error', new Error('secret table xyz at key T#other-client')],
    ['a TypeError', new TypeError('Cannot read properties of undefined (reading "secret")')],
    ['a thrown string', 'secret xyz'],
    ['no error at all', null],
    ['a ConditionalCheckFailedException', Object.assign(new Error('The conditional request failed xyz'), { name: 'ConditionalCheckFailedException' })],
  ])('answers %s with a generic 500 that reveals nothing, and logs it', async (_case, error) => {
    // Arrange
    const logged = jest.spyOn(logger, 'error');

    // Act
    const response = await respond(error);

    // Assert
    expect(response.statusCode).toBe(500);
    expect(response.headers?.['Content-Type']).toBe('application/problem+json');
    expect(bodyOf(response)).toEqual({ type: 'about:blank', title: 'Internal Server Error', status: 500, detail: 'An unexpected error occurred.' });
    expect(response.body).not.toMatch(/secret|xyz|Exception|T#|stack/i);
    expect(logged).toHaveBeenCalledTimes(1);
  });

  it('exposes the extension members of a 409', async () => {
    const response = await respond(conflict('A repricer exists: 4.', { existing_id: 4 }));
    expect(bodyOf(response)).toMatchObject({ status: 409, existing_id: 4, type: 'urn:repricer:problem:conflict' });
  });
});
