import { jest } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { createLocalServer, MAX_READ_BYTES, type LambdaHandler } from '../../../lib/local/server.js';
import { AUTHORIZER, type RouteDefinition } from '../../../lib/routes.js';
import { STANDARD_PROBLEMS, WWW_AUTHENTICATE } from '../../../lambdas/shared/http/problem.js';

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
  server = createLocalServer({ routes, handlers, log: (line) => logged.push(line) });
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

  it('answers 500 when the authorizer fails otherwise, without its message', async () => {
    authorizer.mockRejectedValueOnce(new Error('table repricer-local unreachable'));
    const response = await call('POST', '/v1/echo', { headers: AUTH, body: '{}' });
    expect(response.status).toBe(500);
    expect(await response.text()).toBe(JSON.stringify(STANDARD_PROBLEMS.internal));
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

  it('logs one line per request with method, path, status and time', async () => {
    await call('GET', '/v1/nothing?secret=1');
    expect(logged).toEqual([expect.stringMatching(/^GET \/v1\/nothing 404 \d+ms$/)]);
  });
});
