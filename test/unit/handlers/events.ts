import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

/** The tenant the authorizer passes on (all values are strings in the request context). */
export const TENANT = { clientId: 'c1', username: 'alice', sellerId: 'seller-own', defaultConnector: 'amazon' };

export interface EventOptions {
  readonly method?: string;
  readonly path?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | null;
  readonly query?: Record<string, string[]>;
  readonly authorizer?: Record<string, string> | null;
}

/** An API Gateway REST proxy event as the stage delivers it after the Lambda authorizer. */
export const apiEvent = ({
  method = 'GET',
  path = '/v1/offers',
  headers = {},
  body = null,
  query,
  authorizer = TENANT,
}: EventOptions = {}): APIGatewayProxyEvent => ({
  resource: path,
  path,
  httpMethod: method,
  headers,
  multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
  queryStringParameters: query ? Object.fromEntries(Object.entries(query).map(([name, values]) => [name, values[values.length - 1]!])) : null,
  multiValueQueryStringParameters: query ?? null,
  pathParameters: null,
  stageVariables: null,
  body,
  isBase64Encoded: false,
  requestContext: {
    accountId: '123456789012',
    apiId: 'abc123',
    authorizer: authorizer ?? undefined,
    protocol: 'HTTP/1.1',
    httpMethod: method,
    identity: { sourceIp: '203.0.113.7' } as APIGatewayProxyEvent['requestContext']['identity'],
    path: `/prod${path}`,
    stage: 'prod',
    requestId: 'req-1',
    requestTimeEpoch: 1_780_000_000_000,
    resourceId: 'res1',
    resourcePath: path,
  },
});

export const CONTEXT = { awsRequestId: 'req-1', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

/** Asserts an RFC 9457 problem response and returns its body. */
export const expectProblem = (response: APIGatewayProxyResult, status: number, type = 'about:blank'): Record<string, unknown> => {
  expect(response.statusCode).toBe(status);
  expect(response.headers?.['Content-Type']).toBe('application/problem+json');
  const body = JSON.parse(response.body) as Record<string, unknown>;
  expect(body).toMatchObject({ type, status, title: expect.any(String), detail: expect.any(String) });
  expect(String(body.title).length).toBeGreaterThan(0);
  return body;
};
