import { ROUTES } from '../../lambdas/config/routes.js';
import { PROBLEM_CONTENT_TYPE, STANDARD_PROBLEMS, WWW_AUTHENTICATE } from '../../lambdas/http/problem.js';
import { connectorRecord, offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';

/** The local server as API Gateway: routing, the real authorizer and handlers, DynamoDB Local. */
let api: TestApi;
const carol: [string, string] = ['carol', 'carol-password-1'];

beforeAll(async () => {
  api = await startTestApi();
  await api.createClient(carol[0], { password: carol[1], sellerId: 'seller-c', connector: 'amazon' });
  await api.importRecords(carol[0], [
    connectorRecord('amazon'),
    productRecord('C-1'),
    productRecord('C-2'),
    productRecord('C-3'),
    offerRecord('c1', 'C-1', { seller_id: 'seller-c' }),
  ]);
}, 120_000);

afterAll(async () => api?.close());

describe('local server routing', () => {
  it('answers an unknown path with the 404 problem', async () => {
    const response = await api.request('GET', '/v1/unknown', { auth: carol });
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toBe(PROBLEM_CONTENT_TYPE);
    expect(response.body).toEqual(STANDARD_PROBLEMS.notFound);
  });

  /** The methods the route table serves on a resource path, as the Allow header lists them. */
  const allowedOn = (path: string) => [...new Set(ROUTES.filter((r) => r.path === path).map((r) => r.method))].sort().join(', ');

  it.each([
    ['DELETE', '/v1/offers', '/v1/offers'],
    ['PUT', '/v1/offers/', '/v1/offers'],
    ['PUT', '/v1/repricers/', '/v1/repricers'],
  ])('answers %s %s with 405 and the methods of %s in Allow', async (method, path, resource) => {
    const response = await api.request(method, path, { auth: carol });
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe(allowedOn(resource));
    expect(response.headers.allow).toContain('GET');
    expect(response.body).toEqual(STANDARD_PROBLEMS.methodNotAllowed);
  });

  it.each(['/v1/offers', '/v1/offers/'])('serves GET %s to a valid client', async (path) => {
    const response = await api.request<{ meta: { total: number }; offers: { offer_id: string }[] }>('GET', path, { auth: carol });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.body.meta.total).toBe(1);
    expect(response.body.offers.map((o) => o.offer_id)).toEqual(['c1']);
  });

  // One repricer per product and connector: each path gets its own product.
  it.each([
    ['/v1/repricers', 'C-1'],
    ['/v1/repricers/', 'C-2'],
  ])('serves POST %s to a valid client', async (path, code) => {
    const response = await api.request('POST', path, {
      auth: carol,
      body: { product_code: code, preferred_price: 20, preferred_profit: 2 },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ product: { code }, connector_type: { uid: 'amazon' } });
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])('refuses a %s query parameter as unknown, naming it', async (name) => {
    const response = await api.request('GET', `/v1/offers?${name}=1`, { auth: carol });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ errors: [{ field: name }] });
  });

  it('passes {param} segments to the handler', async () => {
    const created = await api.request<{ id: number }>('POST', '/v1/repricers/', {
      auth: carol,
      body: { product_code: 'C-3', preferred_price: 30, preferred_profit: 3 },
    });
    const read = await api.request<{ id: number; product: { code: string } }>('GET', `/v1/repricers/${created.body.id}`, { auth: carol });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: created.body.id, product: { code: 'C-3' } });
  });

  it('calls a route without the authorizer when the route table says so', async () => {
    const open = ROUTES.find((r) => !r.authorized && r.method === 'GET');
    expect(open).toBeDefined();
    const response = await api.request('GET', open?.path ?? '');
    expect(response.status).not.toBe(401);
  });

  it('passes a body over 16 KiB to the handler, which answers 413', async () => {
    const response = await api.request('POST', '/v1/repricers/', {
      auth: carol,
      body: JSON.stringify({ pad: 'x'.repeat(17 * 1024) }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(response.status).toBe(413);
    expect(response.body).toEqual(STANDARD_PROBLEMS.tooLarge);
  });
});

describe('local server authentication', () => {
  it('answers a request without credentials with 401, WWW-Authenticate and problem+json', async () => {
    const response = await api.request('GET', '/v1/offers');
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe(WWW_AUTHENTICATE);
    expect(response.headers['content-type']).toBe(PROBLEM_CONTENT_TYPE);
    expect(response.body).toEqual(STANDARD_PROBLEMS.unauthorized);
  });

  it.each([
    ['a malformed header', { Authorization: 'Basic !!!not-base64' }],
    ['another scheme', { Authorization: 'Bearer abc' }],
  ])('answers %s with 401', async (_, headers) => {
    const response = await api.request('GET', '/v1/offers', { headers });
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe(WWW_AUTHENTICATE);
  });

  it('gives a wrong password and an unknown user byte-identical answers', async () => {
    const wrongPassword = await api.request('GET', '/v1/offers', { auth: [carol[0], 'not-her-password'] });
    const unknownUser = await api.request('GET', '/v1/offers', { auth: ['nobody-here', carol[1]] });

    expect(wrongPassword.status).toBe(401);
    expect(unknownUser.status).toBe(401);
    expect(unknownUser.text).toBe(wrongPassword.text);
    const comparable = (headers: Record<string, string>) => {
      const { date: _date, 'x-amzn-requestid': _id, ...rest } = headers;
      return rest;
    };
    expect(comparable(unknownUser.headers)).toEqual(comparable(wrongPassword.headers));
  });
});
