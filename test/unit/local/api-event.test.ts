import {
  evaluatePolicy,
  matchRoute,
  methodArn,
  parseQuery,
  splitUrl,
  toAuthorizerEvent,
  toProxyEvent,
  type RawRequest,
} from '../../../tools/local/api-event.js';
import type { RouteDefinition } from '../../../lambdas/config/routes.js';

const route = (method: RouteDefinition['method'], path: string, name = `${method} ${path}`): RouteDefinition => ({
  name,
  method,
  path,
  entry: `lambdas/${name}.ts`,
  tableAccess: 'read',
  authorized: true,
});

const routes = [
  route('POST', '/v1/repricers'),
  route('GET', '/v1/offers'),
  route('GET', '/v1/repricers/{id}'),
  route('PATCH', '/v1/repricers/{id}'),
  route('DELETE', '/v1/repricers/{id}'),
  route('GET', '/v1/repricers/search'),
];

const request = (overrides: Partial<RawRequest> = {}): RawRequest => ({
  method: 'GET',
  url: '/v1/offers',
  rawHeaders: ['Host', 'localhost:3000', 'Authorization', 'Basic ZGVtbzpwdw=='],
  body: Buffer.alloc(0),
  sourceIp: '127.0.0.1',
  ...overrides,
});

const offersRoute = routes[1] as RouteDefinition;

describe('matchRoute', () => {
  it.each([
    ['POST', '/v1/repricers', '/v1/repricers'],
    ['POST', '/v1/repricers/', '/v1/repricers'],
    ['GET', '/v1/offers', '/v1/offers'],
    ['GET', '/v1/offers/', '/v1/offers'],
    ['get', '/v1/offers', '/v1/offers'],
  ])('%s %s reaches %s', (method, path, expected) => {
    // Act
    const match = matchRoute(routes, method, path);

    // Assess
    expect(match && 'route' in match ? match.route.path : undefined).toBe(expected);
  });

  it.each(['/v1/offers//', '/v1/offer', '/v1', '/', '', '/v1/offers/extra', '/v1/repricers//'])('has no route for %j', (path) => {
    expect(matchRoute(routes, 'GET', path)).toBeUndefined();
  });

  it('captures {param} segments, still percent-encoded as API Gateway passes them', () => {
    expect(matchRoute(routes, 'PATCH', '/v1/repricers/12%2034')).toEqual({ route: routes[3], params: { id: '12%2034' } });
  });

  it('prefers a literal segment to a {param} one', () => {
    const match = matchRoute(routes, 'GET', '/v1/repricers/search');
    expect(match && 'route' in match ? match.route.path : undefined).toBe('/v1/repricers/search');
  });

  it('lists the allowed methods of a known path with another method', () => {
    expect(matchRoute(routes, 'PUT', '/v1/repricers/7')).toEqual({ allowed: ['DELETE', 'GET', 'PATCH'] });
    expect(matchRoute(routes, 'DELETE', '/v1/offers/')).toEqual({ allowed: ['GET'] });
  });
});

describe('parseQuery', () => {
  it('decodes names and values, with + as a space, keeping repeats in order', () => {
    const query = parseQuery('a=1&b=x%20y&a=2&c=p+q&flag&=empty&d=%E2%82%AC&bad=%ZZ');
    expect(Object.fromEntries(query)).toEqual({
      a: ['1', '2'],
      b: ['x y'],
      c: ['p q'],
      flag: [''],
      '': ['empty'],
      d: ['€'],
      bad: ['%ZZ'],
    });
  });
});

describe('toProxyEvent', () => {
  it('builds the REST API proxy event of a request', () => {
    // Prepare
    const now = new Date('2026-01-15T10:00:00.000Z');

    // Act
    const event = toProxyEvent({
      request: request({ url: '/v1/offers/?_limit=5&_sort=offer_price:DESC&_sort=id' }),
      route: offersRoute,
      params: {},
      requestId: 'req-1',
      authorizer: { principalId: 'client-1', context: { clientId: 'client-1', sellerId: 's-1', count: 3, flag: true } },
      now,
    });

    // Assess
    expect(event).toMatchObject({
      resource: '/v1/offers',
      path: '/v1/offers/',
      httpMethod: 'GET',
      headers: { Host: 'localhost:3000', Authorization: 'Basic ZGVtbzpwdw==' },
      multiValueHeaders: { Host: ['localhost:3000'], Authorization: ['Basic ZGVtbzpwdw=='] },
      queryStringParameters: { _limit: '5', _sort: 'id' },
      multiValueQueryStringParameters: { _limit: ['5'], _sort: ['offer_price:DESC', 'id'] },
      pathParameters: null,
      stageVariables: null,
      body: null,
      isBase64Encoded: false,
    });
    expect(event.requestContext).toMatchObject({
      requestId: 'req-1',
      stage: 'local',
      httpMethod: 'GET',
      resourcePath: '/v1/offers',
      path: '/local/v1/offers/',
      requestTimeEpoch: now.getTime(),
      identity: { sourceIp: '127.0.0.1' },
      // Context values arrive as strings, as API Gateway passes them.
      authorizer: { principalId: 'client-1', clientId: 'client-1', sellerId: 's-1', count: '3', flag: 'true' },
    });
  });

  it('has null query maps without parameters and keeps repeated headers', () => {
    const event = toProxyEvent({
      request: request({ rawHeaders: ['X-Tag', 'a', 'x-tag', 'b', 'X-Tag', 'c'] }),
      route: offersRoute,
      params: {},
      requestId: 'r',
    });
    expect(event.queryStringParameters).toBeNull();
    expect(event.multiValueQueryStringParameters).toBeNull();
    expect(event.headers).toEqual({ 'X-Tag': 'c' });
    expect(event.multiValueHeaders).toEqual({ 'X-Tag': ['a', 'b', 'c'] });
    expect(event.requestContext.authorizer).toBeNull();
  });

  it('passes the body as UTF-8 text and the path parameters', () => {
    const event = toProxyEvent({
      request: request({ method: 'patch', url: '/v1/repricers/42', body: Buffer.from('{"name":"Zoë"}', 'utf8') }),
      route: routes[3] as RouteDefinition,
      params: { id: '42' },
      requestId: 'r',
    });
    expect(event.httpMethod).toBe('PATCH');
    expect(event.body).toBe('{"name":"Zoë"}');
    expect(event.isBase64Encoded).toBe(false);
    expect(event.pathParameters).toEqual({ id: '42' });
    expect(event.resource).toBe('/v1/repricers/{id}');
  });

  it('passes a body of a binary media type base64-encoded, its bytes untouched, as API Gateway does', () => {
    const bytes = Buffer.from('{"code":"Zoë"}\n\u0000\xff', 'latin1');
    const event = toProxyEvent({
      request: request({ method: 'POST', url: '/v1/offers', rawHeaders: ['content-TYPE', 'application/x-ndjson; charset=utf-8'], body: bytes }),
      route: offersRoute,
      params: {},
      requestId: 'r',
    });
    expect(event.isBase64Encoded).toBe(true);
    expect(Buffer.from(event.body!, 'base64').equals(bytes)).toBe(true);
  });
});

describe('null-prototype event maps', () => {
  it('keeps __proto__, constructor and toString query parameters, headers and path parameters as plain entries', () => {
    // Act
    const event = toProxyEvent({
      request: request({
        url: '/v1/offers?__proto__=1&constructor=2&toString=3&__proto__=4',
        rawHeaders: ['__proto__', 'h', 'Constructor', 'c'],
      }),
      route: offersRoute,
      params: Object.fromEntries([['id', '__proto__']]),
      requestId: 'r',
    });

    // Assess
    for (const map of [event.queryStringParameters, event.multiValueQueryStringParameters, event.headers, event.multiValueHeaders, event.pathParameters]) {
      expect(Object.getPrototypeOf(map)).toBeNull();
    }
    expect(Object.keys(event.queryStringParameters ?? {})).toEqual(['__proto__', 'constructor', 'toString']);
    expect(Object.getOwnPropertyDescriptor(event.queryStringParameters, '__proto__')?.value).toBe('4');
    expect(Object.getOwnPropertyDescriptor(event.multiValueQueryStringParameters, '__proto__')?.value).toEqual(['1', '4']);
    expect(Object.getOwnPropertyDescriptor(event.headers, '__proto__')?.value).toBe('h');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('gives an unknown route an empty map without a prototype, not undefined', () => {
    const event = toProxyEvent({ request: request({ rawHeaders: [] }), route: offersRoute, params: {}, requestId: 'r' });
    expect(Object.getPrototypeOf(event.headers)).toBeNull();
    expect(event.headers.constructor).toBeUndefined();
  });
});

describe('splitUrl', () => {
  it('splits at the first ?, decoding nothing', () => {
    expect(splitUrl('/v1/offers%2F1?a=%20&b=?')).toEqual({ path: '/v1/offers%2F1', query: 'a=%20&b=?' });
    expect(splitUrl('/v1/offers')).toEqual({ path: '/v1/offers', query: '' });
  });
});

describe('toAuthorizerEvent', () => {
  it('is a REQUEST event with the method ARN of the requested path', () => {
    const event = toProxyEvent({ request: request({ url: '/v1/offers?_limit=1' }), route: offersRoute, params: {}, requestId: 'r' });

    const authorizerEvent = toAuthorizerEvent(event);

    expect(authorizerEvent).toMatchObject({
      type: 'REQUEST',
      methodArn: 'arn:aws:execute-api:local:000000000000:local/local/GET/v1/offers',
      headers: { Authorization: 'Basic ZGVtbzpwdw==' },
      queryStringParameters: { _limit: '1' },
    });
  });
});

describe('evaluatePolicy', () => {
  const arn = methodArn('GET', '/v1/offers');
  const policy = (...Statement: unknown[]) => ({ principalId: 'p', policyDocument: { Version: '2012-10-17', Statement }, context: { clientId: 'c' } });
  const allow = (Resource: unknown) => ({ Action: 'execute-api:Invoke', Effect: 'Allow', Resource });
  const deny = (Resource: unknown) => ({ Action: 'execute-api:Invoke', Effect: 'Deny', Resource });

  it.each([
    ['an exact Allow', policy(allow(arn))],
    ['a stage wildcard', policy(allow('arn:aws:execute-api:local:000000000000:local/local/*/*'))],
    ['a list of resources', policy(allow(['arn:aws:execute-api:local:000000000000:local/local/POST/*', arn]))],
    ['a single statement object', { principalId: 'p', policyDocument: { Statement: allow('*') }, context: { clientId: 'c' } }],
  ])('allows %s and passes the context', (_, result) => {
    expect(evaluatePolicy(result, arn)).toEqual({ kind: 'allowed', principalId: 'p', context: { clientId: 'c' } });
  });

  it.each([
    ['an explicit Deny over an Allow', policy(allow('*'), deny(arn))],
    ['an Allow for another path', policy(allow('arn:aws:execute-api:local:000000000000:local/local/GET/v1/repricers'))],
    ['a Deny alone', policy(deny('*'))],
    ['no statements', policy()],
  ])('denies %s', (_, result) => {
    expect(evaluatePolicy(result, arn)).toEqual({ kind: 'denied' });
  });

  it.each([null, undefined, 'Allow', {}, { principalId: 'p' }, { policyDocument: { Statement: [] } }])('treats %j as a failed authorizer', (result) => {
    expect(evaluatePolicy(result, arn)).toEqual({ kind: 'failed' });
  });

  it('does not read ARN punctuation as pattern syntax', () => {
    expect(evaluatePolicy(policy(allow('arn:aws:execute-api:local:000000000000:local/local/GET/v1.offers')), methodArn('GET', '/v1/offers'))).toEqual({
      kind: 'denied',
    });
  });
});
