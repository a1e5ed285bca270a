/**
 * Pure translation of an HTTP request into what API Gateway (REST API, Lambda proxy
 * integration) hands a function, and the route matching that precedes it. The local server
 * uses these so the handlers see the same event locally as on AWS.
 */
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { isBinaryMediaType } from '../../lambdas/config/binary-media-types.js';
import type { RouteDefinition } from '../../lambdas/config/routes.js';

export const LOCAL_STAGE = 'local';
export const LOCAL_ACCOUNT = '000000000000';
export const LOCAL_API_ID = 'local';
export const LOCAL_REGION = 'local';

export interface RawRequest {
  readonly method: string;
  /** The request target as received: path and query string, percent-encoded. */
  readonly url: string;
  /** Node's `rawHeaders`: name, value, name, value, ... with case and repeats kept. */
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
  readonly sourceIp: string;
}

export type RouteMatch = { readonly route: RouteDefinition; readonly params: Record<string, string> } | { readonly allowed: readonly string[] };

/**
 * Splits the target into path and query without decoding either. Route matching and the
 * event's `path` both use it. A target with `#` never gets here: the server refuses it.
 */
export const splitUrl = (url: string): { path: string; query: string } => {
  const mark = url.indexOf('?');
  return mark < 0 ? { path: url, query: '' } : { path: url.slice(0, mark), query: url.slice(mark + 1) };
};

/** `/v1/repricers/` is served as `/v1/repricers`; only one slash is forgiven. */
const withoutTrailingSlash = (path: string): string => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path);

const isParam = (segment: string): boolean => segment.startsWith('{') && segment.endsWith('}');

/**
 * Path parameters by name, or undefined when the template does not fit. Values stay
 * percent-encoded, as API Gateway REST APIs pass them.
 */
const matchTemplate = (template: string, path: string): Record<string, string> | undefined => {
  const expected = template.split('/');
  const actual = path.split('/');
  if (expected.length !== actual.length) return undefined;
  const params = nullPrototype<string>();
  for (const [i, segment] of expected.entries()) {
    const value = actual[i] ?? '';
    if (isParam(segment)) {
      if (value === '') return undefined;
      params[segment.slice(1, -1)] = value;
    } else if (segment !== value) {
      return undefined;
    }
  }
  return params;
};

/** Literal segments beat `{param}` ones, as API Gateway prefers the most specific resource. */
const specificity = (template: string): number[] => template.split('/').map((segment) => (isParam(segment) ? 0 : 1));

const moreSpecific = (a: string, b: string): number => {
  const [sa, sb] = [specificity(a), specificity(b)];
  for (let i = 0; i < sa.length; i += 1) {
    const diff = (sb[i] ?? 0) - (sa[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
};

/**
 * The route for a method and path, `{ allowed }` when the path exists only with other
 * methods (405), or undefined when no route has this path (404).
 */
export const matchRoute = (routes: readonly RouteDefinition[], method: string, rawPath: string): RouteMatch | undefined => {
  const path = withoutTrailingSlash(rawPath);
  const candidates = routes.flatMap((route) => {
    const params = matchTemplate(route.path, path);
    return params ? [{ route, params }] : [];
  });
  const best = candidates.map((c) => c.route.path).sort(moreSpecific)[0];
  if (best === undefined) return undefined;
  const onResource = candidates.filter((c) => c.route.path === best);
  const hit = onResource.find((c) => c.route.method === method.toUpperCase());
  if (hit) return hit;
  return { allowed: [...new Set(onResource.map((c) => c.route.method))].sort() };
};

const safeDecode = (text: string): string => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/** Query values are decoded (`+` as a space); a repeated name keeps every value in order. */
export const parseQuery = (query: string): Map<string, string[]> => {
  const values = new Map<string, string[]>();
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const [rawName, rawValue] = eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
    const name = safeDecode(rawName.replaceAll('+', ' '));
    const value = safeDecode(rawValue.replaceAll('+', ' '));
    values.set(name, [...(values.get(name) ?? []), value]);
  }
  return values;
};

/**
 * A map of names the client chose: without a prototype, so `__proto__`, `constructor` and the
 * like are entries like any other (as in the maps API Gateway hands Lambda, which are parsed
 * from JSON), never an object's inherited members or a prototype change.
 */
export const nullPrototype = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

/** API Gateway's pair of maps: the last value in the single map, all of them in the multi map. */
const singleAndMulti = (entries: Map<string, string[]>) => {
  if (entries.size === 0) return { single: null, multi: null };
  const single = nullPrototype<string>();
  const multi = nullPrototype<string[]>();
  for (const [name, values] of entries) {
    single[name] = values.at(-1) ?? '';
    multi[name] = values;
  }
  return { single, multi };
};

/**
 * Header names keep the case the client sent (the first spelling, when a header is repeated
 * in another case: names are case-insensitive); a repeated header keeps every value.
 */
/** The Content-Type as sent, whatever the spelling of its name. */
const contentTypeOf = (headers: Record<string, string> | null): string | undefined =>
  headers === null ? undefined : Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];

export const parseHeaders = (rawHeaders: readonly string[]): Map<string, string[]> => {
  const headers = new Map<string, string[]>();
  const spelling = new Map<string, string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const sent = rawHeaders[i] ?? '';
    const name = spelling.get(sent.toLowerCase()) ?? sent;
    spelling.set(sent.toLowerCase(), name);
    headers.set(name, [...(headers.get(name) ?? []), rawHeaders[i + 1] ?? '']);
  }
  return headers;
};

/** Names the requested path (not the resource template), as API Gateway's method ARN does. */
export const methodArn = (method: string, path: string): string =>
  `arn:aws:execute-api:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${LOCAL_API_ID}/${LOCAL_STAGE}/${method.toUpperCase()}${path}`;

/** Authorizer context values reach the function as strings, as API Gateway passes them. */
const stringContext = (context: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(Object.entries(context).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]));

const findHeader = (headers: Record<string, string>, name: string): string | undefined =>
  Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];

export interface EventInput {
  readonly request: RawRequest;
  readonly route: RouteDefinition;
  readonly params: Record<string, string>;
  readonly requestId: string;
  /** The principal and context the authorizer returned; undefined for unauthorized routes. */
  readonly authorizer?: { principalId: string; context: Record<string, unknown> };
  readonly now?: Date;
}

export const toProxyEvent = ({ request, route, params, requestId, authorizer, now = new Date() }: EventInput): APIGatewayProxyEvent => {
  const { path, query } = splitUrl(request.url);
  const headers = singleAndMulti(parseHeaders(request.rawHeaders));
  const queryMaps = singleAndMulti(parseQuery(query));
  const httpMethod = request.method.toUpperCase();
  const binary = request.body.length > 0 && isBinaryMediaType(contentTypeOf(headers.single));
  return {
    resource: route.path,
    path,
    httpMethod,
    headers: headers.single ?? nullPrototype<string>(),
    multiValueHeaders: headers.multi ?? nullPrototype<string[]>(),
    queryStringParameters: queryMaps.single,
    multiValueQueryStringParameters: queryMaps.multi,
    pathParameters: Object.keys(params).length > 0 ? Object.assign(nullPrototype<string>(), params) : null,
    stageVariables: null,
    // As API Gateway does for the API's binary media types: base64, the bytes untouched.
    body: request.body.length > 0 ? request.body.toString(binary ? 'base64' : 'utf8') : null,
    isBase64Encoded: binary,
    requestContext: {
      accountId: LOCAL_ACCOUNT,
      apiId: LOCAL_API_ID,
      authorizer: authorizer ? { principalId: authorizer.principalId, ...stringContext(authorizer.context) } : null,
      protocol: 'HTTP/1.1',
      httpMethod,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: request.sourceIp,
        user: null,
        userAgent: headers.single ? (findHeader(headers.single, 'user-agent') ?? null) : null,
        userArn: null,
      },
      path: `/${LOCAL_STAGE}${path}`,
      stage: LOCAL_STAGE,
      requestId,
      requestTimeEpoch: now.getTime(),
      resourceId: route.name,
      resourcePath: route.path,
    },
  };
};

/** The REQUEST authorizer's event: the request's headers and parameters, and the method ARN. */
export const toAuthorizerEvent = (event: APIGatewayProxyEvent): APIGatewayRequestAuthorizerEvent => ({
  type: 'REQUEST',
  methodArn: methodArn(event.httpMethod, event.path),
  resource: event.resource,
  path: event.path,
  httpMethod: event.httpMethod,
  headers: event.headers,
  multiValueHeaders: event.multiValueHeaders,
  pathParameters: event.pathParameters,
  queryStringParameters: event.queryStringParameters,
  multiValueQueryStringParameters: event.multiValueQueryStringParameters,
  stageVariables: event.stageVariables,
  requestContext: { ...event.requestContext, authorizer: undefined },
});

/** What the gateway does with an authorizer's answer. */
export type AuthorizerOutcome =
  | { readonly kind: 'allowed'; readonly principalId: string; readonly context: Record<string, unknown> }
  | { readonly kind: 'unauthorized' }
  | { readonly kind: 'denied' }
  | { readonly kind: 'failed' };

interface PolicyStatement {
  readonly Effect?: unknown;
  readonly Resource?: unknown;
}

/** IAM resource wildcards: `*` any run of characters, `?` exactly one. */
const resourcePattern = (resource: string): RegExp =>
  new RegExp(
    `^${resource
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '.*')
      .replaceAll('?', '.')}$`,
  );

const statementCovers = (statement: PolicyStatement, arn: string): boolean => {
  const resources = Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
  return resources.some((resource) => typeof resource === 'string' && resourcePattern(resource).test(arn));
};

/**
 * An explicit Deny wins, then an Allow that covers the method ARN; no match is a Deny (403).
 * A result without a principal or policy is an authorizer failure (500), as on API Gateway.
 */
export const evaluatePolicy = (result: unknown, arn: string): AuthorizerOutcome => {
  const { principalId, policyDocument, context } = (result ?? {}) as {
    principalId?: unknown;
    policyDocument?: { Statement?: unknown };
    context?: unknown;
  };
  if (typeof principalId !== 'string' || typeof policyDocument !== 'object' || policyDocument === null) return { kind: 'failed' };
  const raw = policyDocument.Statement;
  const statements = (Array.isArray(raw) ? raw : [raw]).filter((s): s is PolicyStatement => typeof s === 'object' && s !== null);
  const covering = statements.filter((s) => statementCovers(s, arn));
  if (covering.some((s) => s.Effect === 'Deny')) return { kind: 'denied' };
  if (!covering.some((s) => s.Effect === 'Allow')) return { kind: 'denied' };
  const contextObject = typeof context === 'object' && context !== null ? (context as Record<string, unknown>) : {};
  return { kind: 'allowed', principalId, context: contextObject };
};
