import { jest } from '@jest/globals';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { httpHandler } from '../../../lambdas/http/handler.js';
import { json } from '../../../lambdas/http/responses.js';
import { logger } from '../../../lambdas/observability/logger.js';

const event = (headers: Record<string, string>, body: string | null): APIGatewayProxyEvent => ({
  httpMethod: 'POST',
  path: '/v1/things',
  resource: '/v1/things',
  headers,
  multiValueHeaders: {},
  queryStringParameters: null,
  multiValueQueryStringParameters: null,
  pathParameters: null,
  stageVariables: null,
  body,
  isBase64Encoded: false,
  requestContext: {} as APIGatewayProxyEvent['requestContext'],
});

const seen: APIGatewayProxyEvent[] = [];
const echo = async (e: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  seen.push(e);
  return json(200, { body: e.body });
};
const invoke = (handler: ReturnType<typeof httpHandler>, e: APIGatewayProxyEvent) => handler(e, {} as Context);

beforeEach(() => {
  seen.length = 0;
  logger.setLogLevel('SILENT');
});

describe('httpHandler with a JSON body', () => {
  const handler = httpHandler(echo, { jsonBody: true });

  it('parses the body and lower-cases header names', async () => {
    // Act
    const response = await invoke(handler, event({ 'Content-Type': 'application/json; charset=utf-8' }, '{"a":1}'));

    // Assert
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ body: { a: 1 } });
    expect(seen[0]?.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it.each<[string, Record<string, string>, string, number, string]>([
    ['a text/plain body', { 'Content-Type': 'text/plain' }, '{"a":1}', 415, 'Unsupported Media Type'],
    ['a body without Content-Type', {}, '{"a":1}', 415, 'Unsupported Media Type'],
    ['malformed JSON', { 'content-type': 'application/json' }, '{"a":', 400, 'Bad Request'],
    ['a __proto__ key', { 'content-type': 'application/json' }, '{"__proto__":{"admin":true}}', 400, 'Bad Request'],
    ['a body over 16 KiB', { 'content-type': 'application/json' }, JSON.stringify({ a: 'x'.repeat(17 * 1024) }), 413, 'Content Too Large'],
    ['a large body that is not even JSON', { 'content-type': 'text/plain' }, 'x'.repeat(17 * 1024), 413, 'Content Too Large'],
  ])('answers %s with a problem', async (_case, headers, body, status, title) => {
    // Act
    const response = await invoke(handler, event(headers, body));

    // Assert
    expect(response.statusCode).toBe(status);
    expect(response.headers?.['Content-Type']).toBe('application/problem+json');
    expect(JSON.parse(response.body)).toMatchObject({ type: 'about:blank', title, status, detail: expect.any(String) });
    expect(seen).toHaveLength(0);
  });

  it('hides an unexpected error of the route behind a 500', async () => {
    // Arrange
    const failing = httpHandler(
      async () => {
        throw new Error('secret table xyz');
      },
      { jsonBody: true },
    );
    const logged = jest.spyOn(logger, 'error');

    // Act
    const response = await invoke(failing, event({ 'content-type': 'application/json' }, '{}'));

    // Assert
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toMatch(/secret|xyz/);
    expect(logged).toHaveBeenCalled();
    logged.mockRestore();
  });
});

describe('httpHandler without a JSON body', () => {
  it('leaves the body alone and does not look at the media type', async () => {
    // Arrange
    const handler = httpHandler(echo);

    // Act
    const response = await invoke(handler, event({ 'Content-Type': 'text/plain' }, 'not json'));

    // Assert
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ body: 'not json' });
  });
});
