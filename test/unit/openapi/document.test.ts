import { Validator } from '@seriousme/openapi-schema-validator';
import { readFileSync } from 'node:fs';
import { buildOpenApiDocument, operationIdOf, serializeOpenApiDocument } from '../../../tools/openapi/document.js';
import { OPENAPI_FILE } from '../../../tools/openapi/file.js';
import { OPERATIONS } from '../../../tools/openapi/operations.js';
import { ROUTES, type RouteDefinition } from '../../../lambdas/config/routes.js';
import { OpenApiValidator } from '../../support/openapi-validator.js';

type Json = Record<string, any>;

const document = buildOpenApiDocument() as Json;
const validator = new OpenApiValidator(document);
const operationOf = (route: RouteDefinition): Json => document.paths[route.path]?.[route.method.toLowerCase()];

/** Every media type object of the document that carries a schema and an example, by location. */
const examples = (): [string, Json][] => {
  const found: [string, Json][] = [];
  const visit = (node: unknown, at: string) => {
    if (node === null || typeof node !== 'object') return;
    const object = node as Json;
    if ('schema' in object && 'example' in object) found.push([at, object]);
    for (const [key, value] of Object.entries(object)) visit(value, `${at}/${key}`);
  };
  visit(document.paths, '#/paths');
  visit(document.components.responses, '#/components/responses');
  visit(document.components.headers, '#/components/headers');
  return found;
};

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    // Act
    const result = await new Validator().validate(structuredClone(document));

    // Assess
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
  });

  it('is what docs/openapi.json holds (run `npm run openapi` after changing a schema or an operation)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(serializeOpenApiDocument(document));
  });

  it.each(ROUTES)('documents $name as $method $path', (route) => {
    // Act
    const operation = operationOf(route);

    // Assess
    expect(operation).toBeDefined();
    expect(operation.operationId).toBe(operationIdOf(route));
    expect(operation.summary).toEqual(expect.any(String));
    expect(operation.security).toEqual(route.authorized ? [{ basicAuth: [] }] : []);
    const statuses = Object.keys(operation.responses).map(Number);
    // One success status; an upsert also documents its second (201 created, 200 replaced).
    const { success } = OPERATIONS[route.name]!;
    expect(statuses.filter((status) => status < 300)).toEqual([success.status, ...(success.alternative ? [success.alternative.status] : [])].sort());
    // A marketplace's webhook is signed instead: a bad signature is its 401.
    expect(statuses.includes(401)).toBe(route.authorized || OPERATIONS[route.name]!.calledBy === 'marketplace');
    expect(statuses).toEqual(expect.arrayContaining([429, 500]));
    if (route.tableAccess !== 'none') expect(statuses).toEqual(expect.arrayContaining([503]));
    for (const name of route.path.match(/\{[^}]+\}/g) ?? []) {
      expect(operation.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: name.slice(1, -1), in: 'path', required: true })]));
    }
  });

  it('has no operation that is not a route, and the operation count of the route table', () => {
    const operations = Object.values(document.paths as Record<string, Json>).flatMap((item) => Object.keys(item));
    expect(operations).toHaveLength(ROUTES.length);
    expect(Object.keys(OPERATIONS).sort()).toEqual(ROUTES.map((route) => route.name).sort());
  });

  it('refuses a route that has no operation', () => {
    const route: RouteDefinition = { name: 'ListWidgets', method: 'GET', path: '/v1/widgets', entry: 'x.ts', tableAccess: 'read', authorized: true };
    expect(() => buildOpenApiDocument([...ROUTES, route])).toThrow(/ListWidgets .* has no operation/);
  });

  it('documents the request headers: If-Match on update and delete, Idempotency-Key on create', () => {
    const headerParameters = (path: string, method: string) =>
      ((document.paths[path][method].parameters ?? []) as Json[]).filter((parameter) => parameter.in === 'header').map((parameter) => parameter.name);
    expect(headerParameters('/v1/repricers', 'post')).toEqual(['Idempotency-Key']);
    expect(headerParameters('/v1/repricers/{id}', 'patch')).toEqual(['If-Match']);
    expect(headerParameters('/v1/repricers/{id}', 'delete')).toEqual(['If-Match']);
    expect(headerParameters('/v1/repricers/{id}', 'get')).toEqual([]);
  });

  it('documents each header a response carries', () => {
    const headersOf = (name: string, method: string, status: number) => Object.keys(document.paths[name][method].responses[status].headers ?? {});
    expect(headersOf('/v1/repricers', 'post', 201)).toEqual(['Location', 'ETag']);
    expect(headersOf('/v1/repricers/{id}', 'get', 200)).toEqual(['ETag']);
    expect(headersOf('/v1/repricers/{id}', 'patch', 200)).toEqual(['ETag']);
    expect(headersOf('/v1/offers', 'get', 401)).toEqual(['WWW-Authenticate']);
    expect(headersOf('/v1/offers', 'get', 503)).toEqual(['Retry-After']);
    expect(headersOf('/v1/offers', 'get', 429)).toEqual(['Retry-After']);
    expect(Object.keys(document.components.responses.MethodNotAllowed.headers)).toEqual(['Allow']);
  });

  it('gives problem bodies the problem+json schema with `errors`, and the 409 of a create its `existing_id`', () => {
    expect(document.components.schemas.Problem.properties.errors.items).toEqual({ $ref: '#/components/schemas/FieldError' });
    const conflict = document.paths['/v1/repricers'].post.responses['409'].content['application/problem+json'];
    expect(conflict.schema.allOf[0]).toEqual({ $ref: '#/components/schemas/ConflictProblem' });
    expect(conflict.example).toMatchObject({ status: 409, existing_id: expect.any(Number) });
  });

  it('has a request body example and a response body example for every operation that has a body', () => {
    for (const route of ROUTES) {
      const operation = operationOf(route);
      for (const media of Object.values((operation.requestBody?.content ?? {}) as Record<string, Json>)) expect(media.example).toBeDefined();
      for (const response of Object.values(operation.responses as Record<string, Json>)) {
        for (const media of Object.values((response.content ?? {}) as Record<string, Json>)) expect(media.example).toBeDefined();
      }
    }
  });

  it('has examples that its own schemas accept', () => {
    // Act
    const found = examples();
    const failures = found.flatMap(([at, media]) => validator.schemaErrors(media.schema, media.example).map((error) => `${at}: ${error}`));

    // Assess
    expect(found.length).toBeGreaterThan(60);
    expect(failures).toEqual([]);
  });

  it('shows the worked example of docs/api.md "Computed fields" as the created repricer', () => {
    const created = document.paths['/v1/repricers'].post.responses['201'].content['application/json'].example;
    expect(created).toMatchObject({ preferred_price: 100, preferred_profit: 20, min_profit: 0, min_price: 76.48, fixed_fulfilment_fee: 5 });
  });

  it('describes request bodies as a client may send them and responses as the service writes them', () => {
    const request = document.components.schemas.CreateRepricerRequest;
    expect(request.required).toEqual(['product_code', 'preferred_profit']);
    expect(request.additionalProperties).toBe(false);
    expect(document.components.schemas.Repricer.required).toEqual(expect.arrayContaining(['min_price', 'connector_type', 'product']));
  });

  it('lets anyone read GET /v1/openapi.json and asks Basic credentials everywhere else', () => {
    expect(document.components.securitySchemes.basicAuth).toEqual(expect.objectContaining({ type: 'http', scheme: 'basic' }));
    expect(document.paths['/v1/openapi.json'].get.security).toEqual([]);
  });

  it('marks the marketplace-events route as called by the marketplace: no Basic auth, and a 401 without a Basic challenge', () => {
    const operation = document.paths['/v1/marketplace-events/{uid}'].post;
    expect(operation.security).toEqual([]);
    expect(operation['x-called-by']).toBe('marketplace');
    expect(operation.responses['401'].headers).toBeUndefined();
    expect(operation.responses['401'].content['application/problem+json'].example).toMatchObject({ status: 401, title: 'Unauthorized' });
    expect(operation.parameters.map((parameter: { name: string; in: string }) => `${parameter.in} ${parameter.name}`)).toEqual([
      'path uid',
      'header X-Takealot-Event',
      'header X-Takealot-Delivery',
      'header X-Takealot-Signature',
    ]);
  });
});

describe('OpenApiValidator', () => {
  const repricer = document.paths['/v1/repricers/{id}'].get.responses['200'].content['application/json'].example;
  const json = { 'content-type': 'application/json; charset=utf-8', etag: '"v1"' };

  it('accepts a response as documented, trailing slash and query included', () => {
    expect(validator.responseErrors({ method: 'GET', path: '/v1/repricers/7/?x=1', status: 200, headers: json, text: JSON.stringify(repricer) })).toEqual([]);
  });

  it.each([
    ['an undocumented status', { status: 418 }, /does not document/],
    ['a missing header', { headers: { 'content-type': 'application/json' } }, /header ETag is missing/],
    ['a body that breaks the schema', { text: JSON.stringify({ ...repricer, min_price: '76.48' }) }, /min_price must be number/],
    ['an unknown field', { text: JSON.stringify({ ...repricer, secret: 1 }) }, /must NOT have additional properties.*secret/],
    ['another media type', { headers: { ...json, 'content-type': 'text/plain' } }, /Content-Type text\/plain/],
  ])('reports %s', (_, change, message) => {
    const errors = validator.responseErrors({ method: 'GET', path: '/v1/repricers/7', status: 200, headers: json, text: JSON.stringify(repricer), ...change });
    expect(errors.join('\n')).toMatch(message);
  });

  it('holds unknown paths to the 404 problem and other methods to the 405 with the right Allow', () => {
    const problem = (status: number) => JSON.stringify({ type: 'about:blank', title: 'x', status, detail: 'x' });
    const type = { 'content-type': 'application/problem+json' };
    expect(validator.responseErrors({ method: 'GET', path: '/v2/nothing', status: 404, headers: type, text: problem(404) })).toEqual([]);
    expect(
      validator.responseErrors({ method: 'PUT', path: '/v1/repricers/7', status: 405, headers: { ...type, allow: 'DELETE, GET, PATCH' }, text: problem(405) }),
    ).toEqual([]);
    expect(validator.responseErrors({ method: 'PUT', path: '/v1/offers', status: 405, headers: { ...type, allow: 'GET, POST' }, text: problem(405) })).toEqual([
      'Allow is "GET, POST", the document has GET',
    ]);
    expect(validator.responseErrors({ method: 'PUT', path: '/v1/offers', status: 405, headers: type, text: problem(405) })).toEqual([
      'header Allow is missing',
    ]);
  });

  it('wants no body where the document has none', () => {
    expect(validator.responseErrors({ method: 'DELETE', path: '/v1/repricers/7', status: 204, headers: {}, text: '' })).toEqual([]);
    expect(validator.responseErrors({ method: 'DELETE', path: '/v1/repricers/7', status: 204, headers: {}, text: '{}' })).toEqual([
      'deleteRepricer 204: a body was sent where the document has none: {}',
    ]);
  });
});
