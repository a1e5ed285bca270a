import type { z } from 'zod';
import { IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_TTL_SECONDS, idempotencyKeyInProgress, idempotencyKeyReused } from '../../lambdas/http/idempotency-key.js';
import { JSON_CONTENT_TYPE, STANDARD_PROBLEMS } from '../../lambdas/http/problem.js';
import { isIdempotentRoute, ROUTES, type RouteDefinition } from '../../lambdas/config/routes.js';
import { OPERATIONS, type BodySpec, type OperationSpec, type ParameterSpec } from './operations.js';
import { HEADERS, headerRef, problemResponse } from './responses.js';
import { componentSchemas, parameterSchema, schemaRef, type JsonSchema } from './schemas.js';
import { webhooksSection } from './webhooks.js';

/**
 * The OpenAPI 3.1 document, assembled from the route table (paths, methods, who needs
 * credentials), tools/openapi/operations.ts (words and statuses), tools/openapi/webhooks.ts
 * (the events the service POSTs to clients' webhooks) and the zod schemas (every schema). `npm run openapi` writes it to docs/openapi.json, which the GetOpenApi Lambda serves.
 */
export const OPENAPI_VERSION = '3.1.0';
export const BASIC_AUTH = 'basicAuth';
const JSON_MEDIA_TYPE = JSON_CONTENT_TYPE.split(';', 1)[0]!;

export const operationIdOf = (route: RouteDefinition): string => `${route.name.charAt(0).toLowerCase()}${route.name.slice(1)}`;

const specFor = (route: RouteDefinition): OperationSpec => {
  const spec = OPERATIONS[route.name];
  if (!spec) throw new Error(`Route ${route.name} (${route.method} ${route.path}) has no operation in tools/openapi/operations.ts`);
  return spec;
};

const bodySchema = ({ schema }: BodySpec): JsonSchema => (typeof schema === 'string' ? schemaRef(schema) : schema);

const parameter = (name: string, location: 'path' | 'query', spec: ParameterSpec): JsonSchema => {
  const schema = parameterSchema(spec.schema);
  return {
    name,
    in: location,
    required: location === 'path' || !spec.schema.safeParse(undefined).success,
    description: spec.description,
    // A list is one parameter, its values separated by commas (a repeated parameter is refused).
    ...(schema.type === 'array' ? { style: 'form', explode: false } : {}),
    schema,
    example: spec.example,
  };
};

const pathParameters = (route: RouteDefinition, spec: OperationSpec): JsonSchema[] => {
  const names = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
  const documented = Object.keys(spec.pathParameters ?? {});
  if (names.join() !== documented.join()) {
    throw new Error(`${route.name}: path parameters ${names.join(', ') || 'none'} but documented ${documented.join(', ') || 'none'}`);
  }
  return names.map((name) => parameter(name, 'path', spec.pathParameters![name]!));
};

const queryParameters = (route: RouteDefinition, spec: OperationSpec): JsonSchema[] => {
  if (!spec.query) return [];
  const shape = spec.query.schema.shape as Record<string, z.ZodType>;
  const undocumented = Object.keys(shape).filter((name) => !(name in spec.query!.parameters));
  if (undocumented.length > 0) throw new Error(`${route.name}: query parameters without a description: ${undocumented.join(', ')}`);
  return Object.entries(shape).map(([name, schema]) => parameter(name, 'query', { schema, ...spec.query!.parameters[name]! }));
};

const IF_MATCH = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description: 'Apply only when the repricer is still at this version: its `ETag`, a list of them, or `*`. Weak tags never match.',
  schema: { type: 'string' },
  example: '"v1"',
};

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    `Makes a retry safe: the same key with the same request (path, query and body) within ${IDEMPOTENCY_TTL_SECONDS / 3600} hours gets the first ` +
    '2xx response again (status, body and headers) instead of a second effect. Keys are scoped to the client, across every POST: the same ' +
    'key with another request is a 422, and while the first request is still running a 409. Only 2xx responses are kept (docs/api.md, "Idempotency-Key").',
  schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: '^[ -~]+$' },
  example: '5f0c6a1e-create-demo-001',
};

/** What each status adds on a route that honours `Idempotency-Key`: its own wording when the operation has the status anyway. */
const IDEMPOTENCY_PROBLEMS = {
  400: { alone: '`Idempotency-Key` is malformed or repeated.', also: 'or `Idempotency-Key` is malformed or repeated.', example: undefined },
  409: {
    alone: 'A request with this `Idempotency-Key` is still running; retry it later.',
    also: 'Or a request with this `Idempotency-Key` is still running; retry it later.',
    example: () => idempotencyKeyInProgress().problem,
  },
  422: {
    alone: 'This `Idempotency-Key` was already used with another request (another body, path, query or operation).',
    also: 'Or this `Idempotency-Key` was already used with another request (another body, path, query or operation).',
    example: () => idempotencyKeyReused().problem,
  },
} as const;

/** The operation's problems, and on an idempotent route those of its `Idempotency-Key`. */
const problemsOf = (route: RouteDefinition, spec: OperationSpec): Record<string, JsonSchema> => {
  const responses: Record<string, JsonSchema> = {};
  const idempotent = isIdempotentRoute(route);
  const statuses = new Set([...spec.problems, ...(idempotent ? ([400, 409, 422] as const) : [])]);
  for (const status of [...statuses].sort((a, b) => a - b)) {
    const override = spec.problemOverrides?.[status];
    const extra = idempotent && status in IDEMPOTENCY_PROBLEMS ? IDEMPOTENCY_PROBLEMS[status as keyof typeof IDEMPOTENCY_PROBLEMS] : undefined;
    if (extra && !spec.problems.includes(status)) {
      responses[status] = problemResponse(status, extra.alone, extra.example?.(), override?.headers);
      continue;
    }
    const description = override?.description;
    responses[status] = problemResponse(
      status,
      extra
        ? `${(description ?? (problemResponse(status).description as string)).replace(/\.$/, '')}; ${extra.also.charAt(0).toLowerCase()}${extra.also.slice(1)}`
        : description,
      override?.example?.(),
      override?.headers,
    );
  }
  return responses;
};

const successResponse = (spec: OperationSpec): JsonSchema => {
  const { description, body, headers = [] } = spec.success;
  return {
    description,
    ...(headers.length > 0 ? { headers: Object.fromEntries(headers.map((name) => [name, headerRef(name)])) } : {}),
    ...(body ? { content: { [JSON_MEDIA_TYPE]: { schema: bodySchema(body), example: body.example } } } : {}),
  };
};

const operation = (route: RouteDefinition): JsonSchema => {
  const spec = specFor(route);
  const parameters = [
    ...pathParameters(route, spec),
    ...queryParameters(route, spec),
    ...(spec.ifMatch ? [IF_MATCH] : []),
    ...(isIdempotentRoute(route) ? [IDEMPOTENCY_KEY] : []),
    ...(spec.headerParameters ?? []).map(({ name, description, example, required }) => ({
      name,
      in: 'header',
      required,
      description,
      schema: { type: 'string' },
      example,
    })),
  ];
  const responses: Record<string, JsonSchema> = { [spec.success.status]: successResponse(spec) };
  const { alternative } = spec.success;
  if (alternative) responses[alternative.status] = successResponse({ ...spec, success: { ...spec.success, ...alternative, headers: [] } });
  Object.assign(responses, problemsOf(route, spec));
  return {
    operationId: operationIdOf(route),
    summary: spec.summary,
    description: spec.description,
    tags: [spec.tag],
    security: route.authorized ? [{ [BASIC_AUTH]: [] }] : [],
    ...(spec.calledBy ? { 'x-called-by': spec.calledBy } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(spec.requestBody
      ? {
          requestBody: {
            description: spec.requestBody.description,
            required: true,
            content: { [spec.requestBody.mediaType ?? JSON_MEDIA_TYPE]: { schema: bodySchema(spec.requestBody), example: spec.requestBody.example } },
          },
        }
      : {}),
    responses,
  };
};

const INFO = {
  title: 'Repricer API',
  version: '1.0.0-beta',
  summary: 'Automated repricing rules and offer competitiveness for marketplace sellers.',
  description:
    'Every `/v1` operation but this document and the marketplace events (signed by the marketplace instead) needs HTTP Basic credentials. Bodies are `application/json; charset=utf-8`; every ' +
    'non-2xx response is an RFC 9457 problem (`application/problem+json`). Paths are served with and without a trailing slash. ' +
    'An unknown path is answered 404 and a known path with another method 405 with `Allow` (components.responses `NotFound` and ' +
    '`MethodNotAllowed`). Money is exact to the cent; timestamps are ISO 8601 UTC with milliseconds.',
};

const SERVERS = [
  { url: 'http://localhost:3000', description: '`npm start` (the default PORT)' },
  {
    url: 'https://{apiId}.execute-api.{region}.amazonaws.com/{stage}',
    description: 'A deployed stage',
    variables: {
      apiId: { default: 'abc123defg', description: 'The REST API id (stack output).' },
      region: { default: 'eu-west-1' },
      stage: { default: 'dev' },
    },
  },
];

const TAGS = [
  { name: 'Repricers', description: 'Repricing rules: one per product and connector.' },
  { name: 'Offers', description: "Marketplace offers on the client's products, with competitiveness data." },
  { name: 'Products', description: "The client's products." },
  { name: 'Price changes', description: "The decisions of the client's repricers: the price each wants for an offer, and why." },
  { name: 'Imports', description: 'Import jobs: products, offers and repricers loaded from NDJSON, processed asynchronously.' },
  { name: 'Webhooks', description: "Signed HTTP callbacks for the client's events, retried for 24 hours (docs/webhooks.md)." },
  { name: 'Connections', description: "The client's connections to marketplaces: the API key the service syncs and sends prices with (docs/connections.md)." },
  {
    name: 'Marketplace events',
    description: "Called by a marketplace, not by clients: its webhooks for one connection, signed with the connection's webhook secret (docs/connections.md).",
  },
  { name: 'Documentation', description: 'This document.' },
];

export const buildOpenApiDocument = (routes: readonly RouteDefinition[] = ROUTES): JsonSchema => {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation(route) };
  }
  return {
    openapi: OPENAPI_VERSION,
    info: INFO,
    servers: SERVERS,
    tags: TAGS,
    paths,
    webhooks: webhooksSection(),
    components: {
      schemas: componentSchemas(),
      responses: { NotFound: problemResponse(404, 'No resource exists at this path.', STANDARD_PROBLEMS.notFound), MethodNotAllowed: problemResponse(405) },
      headers: HEADERS,
      securitySchemes: {
        [BASIC_AUTH]: { type: 'http', scheme: 'basic', description: "HTTP Basic with the client's username and password." },
      },
    },
  };
};

/** The file's text: stable key order as built, two-space indent, final newline. */
export const serializeOpenApiDocument = (document: JsonSchema): string => `${JSON.stringify(document, null, 2)}\n`;
