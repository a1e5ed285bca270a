/**
 * Checks HTTP responses against the OpenAPI document: the operation (method and path template),
 * the status, the required headers and the body (ajv, JSON Schema 2020-12, formats included).
 * Used by local-api.ts on every response an integration test receives, and by the unit tests
 * to check the document's own examples.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument } from '../../tools/openapi/document.js';

type Json = Record<string, any>;

export interface ObservedResponse {
  readonly method: string;
  /** As requested: may hold a query string and a trailing slash. */
  readonly path: string;
  readonly status: number;
  /** Any case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
}

/** Base URI the document's local `#/...` references are made absolute against. */
const BASE = 'urn:repricer:openapi';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const absoluteRefs = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(absoluteRefs);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `${BASE}${value}` : absoluteRefs(value),
    ]),
  );
};

const pathOnly = (path: string): string => {
  const bare = path.split('?', 1)[0]!.split('#', 1)[0]!;
  return bare.length > 1 && bare.endsWith('/') ? bare.slice(0, -1) : bare;
};

/** The document's path template for a concrete path; literal segments win over `{param}`. */
const matchTemplate = (templates: readonly string[], path: string): string | undefined => {
  const actual = path.split('/');
  const fits = (template: string) => {
    const expected = template.split('/');
    return expected.length === actual.length && expected.every((part, i) => (part.startsWith('{') ? actual[i] !== '' : part === actual[i]));
  };
  const literalCount = (template: string) => template.split('/').filter((part) => !part.startsWith('{')).length;
  return templates.filter(fits).sort((a, b) => literalCount(b) - literalCount(a))[0];
};

const mediaTypeOf = (headers: Readonly<Record<string, string>>): string | undefined =>
  headerValue(headers, 'content-type')?.split(';', 1)[0]?.trim().toLowerCase();

const headerValue = (headers: Readonly<Record<string, string>>, name: string): string | undefined =>
  Object.entries(headers).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];

export class OpenApiValidator {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<unknown, ValidateFunction>();

  constructor(readonly document: Json = buildOpenApiDocument()) {
    this.ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats.default(this.ajv);
    // Only the components are JSON Schema; the rest of the document is a container for them.
    this.ajv.addVocabulary(['components']);
    this.ajv.addSchema({ $id: BASE, components: absoluteRefs({ schemas: document.components.schemas }) });
  }

  /** The ajv errors of `value` against a schema of the document (one with local refs), as text. */
  schemaErrors(schema: Json, value: unknown): string[] {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(absoluteRefs(schema) as Json);
      this.compiled.set(schema, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (error) => `${error.instancePath || '(body)'} ${error.message ?? 'is not valid'}${error.params ? ` ${JSON.stringify(error.params)}` : ''}`,
    );
  }

  /** Everything about `response` the document does not allow; empty when it conforms. */
  responseErrors(response: ObservedResponse): string[] {
    const path = pathOnly(response.path);
    const paths = this.document.paths as Record<string, Json>;
    const template = matchTemplate(Object.keys(paths), path);
    if (!template) {
      return response.status === 404
        ? this.matchResponse(this.resolve(this.document.components.responses.NotFound), response)
        : [`no path of the document matches ${path}, yet the status is ${response.status}, not 404`];
    }
    const item = paths[template]!;
    const operation = item[response.method.toLowerCase()] as Json | undefined;
    if (!operation) {
      const errors =
        response.status === 405
          ? this.matchResponse(this.resolve(this.document.components.responses.MethodNotAllowed), response)
          : [`${template} has no ${response.method} operation, yet the status is ${response.status}, not 405`];
      const documented = Object.keys(item)
        .filter((key) => HTTP_METHODS.includes(key))
        .map((key) => key.toUpperCase())
        .sort()
        .join(', ');
      const allow = headerValue(response.headers, 'allow');
      if (response.status === 405 && allow !== undefined && allow !== documented) errors.push(`Allow is "${allow}", the document has ${documented}`);
      return errors;
    }
    const documented = (operation.responses ?? {}) as Record<string, Json>;
    const expected = documented[String(response.status)];
    if (!expected) return [`${operation.operationId} answered ${response.status}, which it does not document (${Object.keys(documented).join(', ')})`];
    return this.matchResponse(expected, response).map((error) => `${operation.operationId} ${response.status}: ${error}`);
  }

  private resolve(node: Json): Json {
    if (typeof node.$ref !== 'string') return node;
    const target = node.$ref
      .slice(2)
      .split('/')
      .reduce<any>((at, part) => at?.[part.replaceAll('~1', '/').replaceAll('~0', '~')], this.document);
    if (!target) throw new Error(`Unresolved reference ${node.$ref}`);
    return this.resolve(target as Json);
  }

  private matchResponse(expected: Json, response: ObservedResponse): string[] {
    const errors: string[] = [];
    for (const [name, reference] of Object.entries((expected.headers ?? {}) as Record<string, Json>)) {
      const header = this.resolve(reference);
      const value = headerValue(response.headers, name);
      if (value === undefined) {
        if (header.required) errors.push(`header ${name} is missing`);
      } else if (header.schema) {
        errors.push(...this.schemaErrors(header.schema, value).map((error) => `header ${name} ${error}`));
      }
    }
    const content = expected.content as Record<string, Json> | undefined;
    if (!content) {
      if (response.text !== '') errors.push(`a body was sent where the document has none: ${response.text.slice(0, 200)}`);
      return errors;
    }
    const mediaType = mediaTypeOf(response.headers);
    const media = mediaType === undefined ? undefined : content[mediaType];
    if (!media) return [...errors, `Content-Type ${mediaType ?? '(none)'} is not one of ${Object.keys(content).join(', ')}`];
    let body: unknown;
    try {
      body = JSON.parse(response.text);
    } catch {
      return [...errors, `the body is not JSON: ${response.text.slice(0, 200)}`];
    }
    return [...errors, ...this.schemaErrors(media.schema as Json, body).map((error) => `body ${error}`)];
  }
}

let shared: OpenApiValidator | undefined;

/** Throws one error listing every way `response` departs from the document. */
export const assertMatchesOpenApi = (response: ObservedResponse): void => {
  shared ??= new OpenApiValidator();
  const errors = shared.responseErrors(response);
  if (errors.length > 0) {
    throw new Error(`${response.method} ${response.path} -> ${response.status} does not match docs/openapi.json:\n  ${errors.join('\n  ')}`);
  }
};
