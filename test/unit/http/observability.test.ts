/**
 * The shared chain's operations output, read from stdout as CloudWatch would: one EMF document
 * per request with the route's counts and latency, and JSON log lines that carry the API
 * Gateway request id as `correlation_id`.
 */
import { jest } from '@jest/globals';
import { cleanupMiddlewares } from '@aws-lambda-powertools/commons';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { apiEvent } from '../fixtures/api-events.js';

// Both are read when the logger and the metrics are built, so before the modules load.
process.env.POWERTOOLS_METRICS_DISABLED = 'false';
process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
const { httpHandler } = await import('../../../lambdas/http/handler.js');
const { HttpProblem } = await import('../../../lambdas/http/errors.js');
const { problem } = await import('../../../lambdas/http/problem.js');
const { json } = await import('../../../lambdas/http/responses.js');
const { logger } = await import('../../../lambdas/observability/logger.js');
const { METRICS_NAMESPACE, REQUEST_METRICS, ROUTE_DIMENSION, UNKNOWN_ROUTE, routeNameOf } = await import('../../../lambdas/http/observability.js');

const CONTEXT = {
  awsRequestId: 'lambda-req-1',
  functionName: 'repricer-ListOffers',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:repricer-ListOffers',
  memoryLimitInMB: '512',
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;

const withRequestId = (event: APIGatewayProxyEvent, requestId: string): APIGatewayProxyEvent => ({
  ...event,
  requestContext: { ...event.requestContext, requestId },
});

type Line = Record<string, any>;

/** Every JSON line written to stdout or stderr while `action` runs. */
const capture = async <T>(action: () => Promise<T>): Promise<{ result: T; lines: Line[] }> => {
  const written: string[] = [];
  const record = (chunk: unknown) => {
    written.push(String(chunk));
    return true;
  };
  const spies = [jest.spyOn(process.stdout, 'write').mockImplementation(record), jest.spyOn(process.stderr, 'write').mockImplementation(record)];
  try {
    const result = await action();
    return {
      result,
      lines: written
        .join('')
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Line),
    };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
};

/** Runs one invocation and returns its response and every JSON line it wrote. */
const invoke = async (handler: ReturnType<typeof httpHandler>, event: APIGatewayProxyEvent) => {
  const { result, lines } = await capture(async () => await handler(event, CONTEXT));
  return { response: result, lines };
};

const emfOf = (lines: Line[]): Line[] => lines.filter((line) => line._aws?.CloudWatchMetrics?.[0]?.Namespace === METRICS_NAMESPACE);
const logsOf = (lines: Line[]): Line[] => lines.filter((line) => typeof line.level === 'string');

const ok = async () => json(200, { ok: true });
const listOffers = (headers: Record<string, string> = {}, body: string | null = null) => apiEvent({ method: 'GET', path: '/v1/offers', headers, body });

describe('per-route metrics in embedded metric format', () => {
  it('emits one document per request: namespace, route dimension, counts and latency', async () => {
    // Arrange
    const handler = httpHandler(ok);

    // Act
    const { lines } = await invoke(handler, listOffers());

    // Assert
    const emf = emfOf(lines);
    expect(emf).toHaveLength(1);
    const [document] = emf as [Line];
    expect(document._aws.CloudWatchMetrics[0]).toEqual({
      Namespace: 'RepricerApi',
      Dimensions: [['service', ROUTE_DIMENSION]],
      Metrics: [
        { Name: REQUEST_METRICS.requests, Unit: 'Count' },
        { Name: REQUEST_METRICS.clientErrors, Unit: 'Count' },
        { Name: REQUEST_METRICS.serverErrors, Unit: 'Count' },
        { Name: REQUEST_METRICS.latency, Unit: 'Milliseconds' },
      ],
    });
    expect(document).toMatchObject({ service: 'repricer-api', route: 'ListOffers', Requests: 1, ClientErrors: 0, ServerErrors: 0 });
    expect(document.Latency).toBeGreaterThanOrEqual(0);
    expect(document.Latency).toBeLessThan(1_000);
    expect(typeof document._aws.Timestamp).toBe('number');
  });

  it.each<[string, () => Promise<APIGatewayProxyResult>, { ClientErrors: number; ServerErrors: number }]>([
    [
      'a 404 problem',
      async () => {
        throw new HttpProblem(problem(404, 'No such thing.'));
      },
      { ClientErrors: 1, ServerErrors: 0 },
    ],
    [
      'an unexpected error (500)',
      async () => {
        throw new Error('boom');
      },
      { ClientErrors: 0, ServerErrors: 1 },
    ],
    [
      'a throttled DynamoDB (503)',
      async () => {
        throw Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
      },
      { ClientErrors: 0, ServerErrors: 1 },
    ],
  ])('counts %s as the response the client got', async (_case, route, counts) => {
    // Arrange
    logger.setLogLevel('SILENT');
    const handler = httpHandler(route);

    // Act
    const { lines } = await invoke(handler, listOffers());

    // Assert
    expect(emfOf(lines)).toEqual([expect.objectContaining({ route: 'ListOffers', Requests: 1, ...counts })]);
  });

  it('counts a request the middlewares refuse before the route runs (a 413 body)', async () => {
    // Arrange
    const route = jest.fn(ok);
    const handler = httpHandler(route, { jsonBody: true });
    const event = apiEvent({
      method: 'POST',
      path: '/v1/repricers',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ a: 'x'.repeat(17 * 1024) }),
    });

    // Act
    const { response, lines } = await invoke(handler, event);

    // Assert
    expect(response.statusCode).toBe(413);
    expect(route).not.toHaveBeenCalled();
    expect(emfOf(lines)).toEqual([expect.objectContaining({ route: 'CreateRepricer', Requests: 1, ClientErrors: 1, ServerErrors: 0 })]);
  });

  it('counts a request a Powertools middleware answers early, as an idempotent replay does', async () => {
    // Arrange
    const route = jest.fn(ok);
    const replay = json(201, { id: 7 });
    const handler = httpHandler(route).use({
      before: async (request) => {
        request.response = replay;
        await cleanupMiddlewares(request);
        return replay;
      },
    });

    // Act
    const { response, lines } = await invoke(handler, listOffers());

    // Assert
    expect(response).toBe(replay);
    expect(route).not.toHaveBeenCalled();
    expect(emfOf(lines)).toEqual([expect.objectContaining({ route: 'ListOffers', Requests: 1, ClientErrors: 0, ServerErrors: 0 })]);
  });

  it('takes the route name from the route table, or from the caller', () => {
    expect(routeNameOf({ httpMethod: 'GET', resource: '/v1/repricers/{id}' })).toBe('GetRepricer');
    expect(routeNameOf({ httpMethod: 'patch', resource: '/v1/repricers/{id}' })).toBe('UpdateRepricer');
    expect(routeNameOf({ httpMethod: 'GET', resource: '/v1/nowhere' })).toBe(UNKNOWN_ROUTE);
  });

  it('uses the route name it is given', async () => {
    // Act
    const { lines } = await invoke(httpHandler(ok, { route: 'Custom' }), listOffers());

    // Assert
    expect(emfOf(lines)).toEqual([expect.objectContaining({ route: 'Custom' })]);
  });
});

describe('structured logs with a correlation id', () => {
  beforeEach(() => logger.setLogLevel('INFO'));

  it('tags every line of a request with its API Gateway request id, its route and the Lambda context', async () => {
    // Arrange
    const handler = httpHandler(async () => {
      logger.info('working on it');
      throw new Error('unexpected');
    });

    // Act
    const { lines } = await invoke(handler, withRequestId(listOffers(), 'api-req-42'));

    // Assert
    const logs = logsOf(lines);
    expect(logs.map((line) => line.message)).toEqual(['working on it', 'Unhandled error']);
    for (const line of logs) {
      expect(line).toMatchObject({
        correlation_id: 'api-req-42',
        route: 'ListOffers',
        function_request_id: 'lambda-req-1',
        function_name: 'repricer-ListOffers',
        service: 'repricer-api',
        timestamp: expect.any(String),
      });
    }
  });

  it('starts each request with only its own keys', async () => {
    // Arrange
    const handler = httpHandler(async () => {
      logger.info('hello');
      return json(200, {});
    });

    // Act
    const first = await invoke(handler, withRequestId(listOffers(), 'api-req-1'));
    const second = await invoke(handler, withRequestId(listOffers(), 'api-req-2'));
    const outside = await capture(async () => logger.info('between requests'));

    // Assert
    expect(logsOf(first.lines)[0]?.correlation_id).toBe('api-req-1');
    expect(logsOf(second.lines)[0]?.correlation_id).toBe('api-req-2');
    expect(logsOf(outside.lines)[0]).not.toHaveProperty('correlation_id');
    expect(logsOf(outside.lines)[0]).not.toHaveProperty('route');
  });
});
