import { jest } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { request as httpRequest } from 'node:http';
import { FUNCTION_TIMEOUT_SECONDS } from '../../../lib/constructs/api-function.js';
import { createLocalServer, FRAGMENT_IN_TARGET, FUNCTION_TIMEOUT_MS, MAX_READ_BYTES, type LambdaHandler } from '../../../tools/local/server.js';
import { AUTHORIZER, type RouteDefinition } from '../../../lambdas/config/routes.js';
import { STANDARD_PROBLEMS, WWW_AUTHENTICATE } from '../../../lambdas/http/problem.js';

/** The server with stand-in handlers: gateway behaviour only, no DynamoDB. */
const routes: RouteDefinition[] = [
  { name: 'Echo', method: 'POST', path: '/v1/echo', entry: 'echo.ts', tableAccess: 'read', authorized: true },
  { name: 'Items', method: 'GET', path: '/v1/items/{id}', entry: 'items.ts', tableAccess: 'read', authorized: true },
  { name: 'Public', method: 'GET', path: '/v1/public', entry: 'public.ts', tableAccess: 'read', authorized: false },
];

const allow = (event: APIGatewayRequestAuthorizerEvent) => ({
  principalId: 'client-1',
  policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }] },
  context: { clientId: 'client-1', username: 'alice', sellerId: 'seller-a', defaultConnector: 'amazon' },
});

/** The functions' time limit in this test: short, so that a hanging function is cheap to wait for. */
const FUNCTION_LIMIT_MS = 300;

let authorizer: jest.Mock<LambdaHandler>;
let echo: jest.Mock<LambdaHandler>;
let items: jest.Mock<LambdaHandler>;
let server: Server;
let baseUrl: string;
const logged: string[] = [];

const echoHandler: LambdaHandler = async (event: APIGatewayProxyEvent) => ({
  statusCode: 200,
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ bytes: Buffer.byteLength(event.body ?? ''), tenant: event.requestContext.authorizer }),
});

beforeAll(async () => {
  authorizer = jest.fn<LambdaHandler>(async (event: APIGatewayRequestAuthorizerEvent) => allow(event));
  echo = jest.fn<LambdaHandler>(echoHandler);
  items = jest.fn<LambdaHandler>(async () => ({ statusCode: 204, body: '' }));
  const handlers = {
    [AUTHORIZER.entry]: authorizer,
    'echo.ts': echo,
    'items.ts': items,
    'public.ts': async () => ({ statusCode: 200, multiValueHeaders: { 'Set-Cookie': ['a=1', 'b=2'] }, body: 'ok' }),
  };
  server = createLocalServer({ routes, handlers, log: (line) => logged.push(line), functionTimeoutMs: FUNCTION_LIMIT_MS });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  authorizer.mockImplementation(async (event: APIGatewayRequestAuthorizerEvent) => allow(event));
  echo.mockImplementation(echoHandler);
  authorizer.mockClear();
  echo.mockClear();
  logged.length = 0;
});

const AUTH = { Authorization: 'Basic YWxpY2U6cHc=' };
const call = (method: string, path: string, init: { headers?: Record<string, string>; body?: string | Buffer } = {}) =>
  fetch(`${baseUrl}${path}`, { method, ...init });

/** Sends the request target exactly as given (fetch would drop a fragment). */
const rawCall = (method: string, target: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${baseUrl}/`, { method, path: target, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });

const never = () => new Promise<never>(() => undefined);

describe('local server', () => {
  it('answers an unknown path with the 404 problem', async () => {
    const response = await call('GET', '/v1/nothing', { headers: AUTH });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual(STANDARD_PROBLEMS.notFound);
    expect(authorizer).not.toHaveBeenCalled();
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const response = await call('DELETE', '/v1/echo/', { headers: AUTH });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await response.json()).toEqual(STANDARD_PROBLEMS.methodNotAllowed);
  });

  it('answers 401 without calling the authorizer when there is no Authorization header', async () => {
    const response = await call('POST', '/v1/echo', { body: '{}' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(WWW_AUTHENTICATE);
    expect(await response.json()).toEqual(STANDARD_PROBLEMS.unauthorized);
    expect(authorizer).not.toHaveBeenCalled();
    expect(echo).not.toHaveBeenCalled();
  });

  it("answers 401 when the authorizer throws 'Unauthorized'", async () => {
    authorizer.mockRejectedValueOnce(new Error('Unauthorized'));
    const response = await call('POST', '/v1/echo', { headers: AUTH, body: '{}' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(WWW_AUTHENTICATE);
    expect(echo).not.toHaveBeenCalled();
  });

  it('answers 403 when the policy denies the method', async () => {
    authorizer.mockImplementationOnce(async (event: APIGatewayRequestAuthorizerEvent) => ({
      ...allow(event),
      policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: event.methodArn }] },
    }));
    const response = await call('POST', '/v1/echo', { headers: AUTH, body: '{}' });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual(STANDARD_PROBLEMS.forbidden);
  });

  it('answers 503 with Retry-After when the authorizer fails otherwise (it could not decide), without its message', async () => {
    authorizer.mockRejectedValueOnce(new Error('table repricer-local unreachable'));
    const response = await call('POST', '/v1/echo', { headers: AUTH, body: '{}' });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.text()).toBe(JSON.stringify(STANDARD_PROBLEMS.unavailable));
  });

  it('gives the authorizer a REQUEST event and the handler the tenant context', async () => {
    const response = await call('POST', '/v1/echo/?x=1', { headers: AUTH, body: '{"a":1}' });
    expect(response.status).toBe(200);
    expect(authorizer.mock.calls[0]?.[0]).toMatchObject({
      type: 'REQUEST',
      methodArn: 'arn:aws:execute-api:local:000000000000:local/local/POST/v1/echo/',
      headers: { Authorization: AUTH.Authorization },
    });
    expect(await response.json()).toEqual({
      bytes: 7,
      tenant: { principalId: 'client-1', clientId: 'client-1', username: 'alice', sellerId: 'seller-a', defaultConnector: 'amazon' },
    });
    expect(echo.mock.calls[0]?.[1]).toMatchObject({ functionName: 'Echo' });
  });

  it('passes path parameters and calls unauthorized routes without the authorizer', async () => {
    await call('GET', '/v1/items/abc', { headers: AUTH });
    expect(items.mock.calls.at(-1)?.[0]).toMatchObject({ pathParameters: { id: 'abc' }, resource: '/v1/items/{id}' });
    authorizer.mockClear();

    const response = await call('GET', '/v1/public');
    expect(response.status).toBe(200);
    expect(response.headers.get('set-cookie')).toBe('a=1, b=2');
    expect(authorizer).not.toHaveBeenCalled();
  });

  it('hands bodies over 16 KiB to the handler, which decides', async () => {
    const response = await call('POST', '/v1/echo', { headers: AUTH, body: 'x'.repeat(20 * 1024) });
    expect(await response.json()).toMatchObject({ bytes: 20 * 1024 });
  });

  it('refuses bodies over its own read cap with 413, without calling anything', async () => {
    const response = await call('POST', '/v1/echo', { headers: AUTH, body: Buffer.alloc(MAX_READ_BYTES + 1, 'x') });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual(STANDARD_PROBLEMS.tooLarge);
    expect(authorizer).not.toHaveBeenCalled();
  });

  it('answers a handler exception with the generic 500 problem, never the stack', async () => {
    echo.mockRejectedValueOnce(new Error('secret detail at /work/main/x.ts:1'));
    const response = await call('POST', '/v1/echo', { headers: AUTH, body: '{}' });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).toBe(JSON.stringify(STANDARD_PROBLEMS.internal));
    expect(logged.some((line) => line.includes('secret detail'))).toBe(true);
  });

  it('answers a malformed handler result with 502', async () => {
    echo.mockResolvedValueOnce({ body: 'no status' });
    const response = await call('POST', '/v1/echo', { headers: AUTH, body: '{}' });
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
  });

  it('gives the authorizer the same time limit as the handlers: past it, a 503 with Retry-After instead of no answer', async () => {
    // Arrange
    authorizer.mockImplementationOnce(never);
    const started = performance.now();

    // Act
    const response = await call('POST', '/v1/echo', { headers: AUTH, body: '{}' });

    // Assert
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toEqual(STANDARD_PROBLEMS.unavailable);
    expect(performance.now() - started).toBeLessThan(FUNCTION_LIMIT_MS + 1_000);
    expect(echo).not.toHaveBeenCalled();
    expect(logged).toContain(`authorizer timed out after ${FUNCTION_LIMIT_MS} ms`);
  });

  it('stops waiting for a handler at the same time limit, with the 504 problem', async () => {
    // Arrange
    echo.mockImplementationOnce(never);

    // Act
    const response = await call('POST', '/v1/echo', { headers: AUTH, body: '{}' });

    // Assert
    expect(response.status).toBe(504);
    expect(await response.json()).toEqual(STANDARD_PROBLEMS.timeout);
    expect(logged).toContain(`handler timed out after ${FUNCTION_LIMIT_MS} ms`);
  });

  it("limits functions to the deployed functions' timeout unless told otherwise", () => {
    expect(FUNCTION_TIMEOUT_MS).toBe(FUNCTION_TIMEOUT_SECONDS * 1000);
  });

  it('tells the functions how much time they have left', async () => {
    await call('POST', '/v1/echo', { headers: AUTH, body: '{}' });
    const context = echo.mock.calls[0]?.[1];
    expect(context?.getRemainingTimeInMillis()).toBeLessThanOrEqual(FUNCTION_LIMIT_MS);
  });

  it.each([['/v1/items/abc#def'], ['/v1/items/abc#/../x'], ['/v1/echo#?x=1'], ['/v1/nothing#x']])(
    'refuses the request target %s with a 400, calling nothing',
    async (target) => {
      // Arrange
      items.mockClear();

      // Act
      const response = await rawCall('GET', target, AUTH);

      // Assert
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body)).toEqual(FRAGMENT_IN_TARGET);
      expect(authorizer).not.toHaveBeenCalled();
      expect(items).not.toHaveBeenCalled();
    },
  );

  it('treats an encoded # (%23) as part of the parameter, in matching and in the event alike', async () => {
    // Act
    const response = await rawCall('GET', '/v1/items/abc%23def', AUTH);

    // Assert
    expect(response.status).toBe(204);
    expect(items.mock.calls.at(-1)?.[0]).toMatchObject({ path: '/v1/items/abc%23def', pathParameters: { id: 'abc%23def' } });
  });

  it('logs one line per request with method, path, status and time', async () => {
    await call('GET', '/v1/nothing?secret=1');
    expect(logged).toEqual([expect.stringMatching(/^GET \/v1\/nothing 404 \d+ms$/)]);
  });
});
