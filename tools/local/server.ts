/**
 * The API on a plain Node HTTP server, playing API Gateway's part: route matching, the
 * REQUEST authorizer, the proxy event, and the gateway's own error answers. The handlers are
 * the very modules Lambda runs, loaded from the route table.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { problem, STANDARD_PROBLEMS, WWW_AUTHENTICATE, type Problem } from '../../lambdas/http/problem.js';
import { problemResponse } from '../../lambdas/http/responses.js';
import { UNAVAILABLE_HEADERS } from '../../lambdas/http/unavailable.js';
import { AUTHORIZER, ROUTES, type RouteDefinition } from '../../lambdas/config/routes.js';
import { serveDocsPage } from './docs-page.js';
import { evaluatePolicy, matchRoute, splitUrl, toAuthorizerEvent, toProxyEvent, type AuthorizerOutcome, type RawRequest } from './api-event.js';
import { localLambdaContext } from './lambda-context.js';

/**
 * API Gateway's payload limit (10 MB): bodies over a route's own limit (16 KiB, or 4 MiB for
 * imports) still reach the handler, which answers 413 as on AWS; this cap only keeps a runaway
 * upload from filling the server's memory.
 */
export const MAX_READ_BYTES = 10 * 1024 * 1024;
/**
 * The deployed functions' timeout (10 s, the authorizer's included), as Middy reads it from the
 * context (FUNCTION_TIMEOUT_SECONDS of lib/constructs/api-function.ts, not imported here so
 * that `npm start` does not load the CDK). Lambda stops a function there; the local server
 * stops waiting for it there, for the authorizer and the route handlers alike (API Gateway's
 * own 29 s never comes first).
 */
export const FUNCTION_TIMEOUT_MS = 10_000;

/** Each handler is typed for its own event; `any` lets routes and the authorizer share one map. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above: each handler's own event type
export type LambdaHandler = (event: any, context: Context) => Promise<unknown>;

export interface LocalServerOptions {
  readonly routes?: readonly RouteDefinition[];
  /** Handlers keyed by module entry (a route's or the authorizer's), used instead of importing it. */
  readonly handlers?: Readonly<Record<string, LambdaHandler>>;
  /** Where route entries are resolved from; defaults to the project root. */
  readonly projectRoot?: string;
  /** No per-request log line. */
  readonly quiet?: boolean;
  readonly log?: (line: string) => void;
  /** How long a function (the authorizer or a route's) may run; the deployed timeout unless given. */
  readonly functionTimeoutMs?: number;
}

const DEFAULT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

class TooLarge extends Error {}

/** Reads the body up to the cap; past it, stops buffering and reports TooLarge. */
const readBody = (req: IncomingMessage, limit: number): Promise<Buffer> =>
  new Promise((resolvePromise, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.resume();
        reject(new TooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolvePromise(Buffer.concat(chunks)));
    req.once('error', reject);
  });

/** A function ran past its timeout. */
class FunctionTimeout extends Error {}

const withTimeout = async <T>(work: Promise<T>, ms: number): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new FunctionTimeout()), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
};

const isProxyResult = (value: unknown): value is APIGatewayProxyResult =>
  typeof value === 'object' && value !== null && Number.isInteger((value as { statusCode?: unknown }).statusCode);

/**
 * A `#` in the request target: clients never send the fragment, and a `#` inside a path or a
 * query is percent-encoded (`%23`), so this is no request a real client makes. Refused before
 * routing, so that route matching, `path` and the parameters can never disagree about it.
 */
export const FRAGMENT_IN_TARGET = problem(400, 'The request target must not contain "#"; percent-encode it as %23.');

/** API Gateway answers 502 when a function's reply is not a proxy result. */
const MALFORMED_RESULT = problem(502, 'The function returned a malformed response.');

const gatewayProblem = (body: Problem, headers: Record<string, string> = {}): APIGatewayProxyResult => problemResponse(body, headers);

const writeResult = (res: ServerResponse, result: APIGatewayProxyResult, extraHeaders: Record<string, string>) => {
  const headers = new Map<string, (string | number | boolean)[]>();
  for (const [name, value] of Object.entries(result.headers ?? {})) headers.set(name, [value]);
  // As on API Gateway, a name in multiValueHeaders carries those values and replaces the single one.
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) headers.set(name, values);
  for (const [name, value] of Object.entries(extraHeaders)) headers.set(name, [value]);
  for (const [name, values] of headers) res.setHeader(name, values.map(String));
  res.statusCode = result.statusCode;
  const body = result.body ?? '';
  res.end(result.isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8'));
};

export const createLocalServer = (options: LocalServerOptions = {}): Server => {
  const routes = options.routes ?? ROUTES;
  const root = options.projectRoot ?? DEFAULT_ROOT;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const functionTimeoutMs = options.functionTimeoutMs ?? FUNCTION_TIMEOUT_MS;
  const loaded = new Map<string, Promise<LambdaHandler>>();
  /** Runs a function as Lambda would: with its context, for at most its timeout. */
  const invoke = (handler: LambdaHandler, event: unknown, functionName: string, requestId: string): Promise<unknown> =>
    withTimeout(handler(event, localLambdaContext(functionName, requestId, functionTimeoutMs)), functionTimeoutMs);

  /** Imported once per entry and kept, like a warm Lambda container. */
  const handlerFor = (entry: string): Promise<LambdaHandler> => {
    const given = options.handlers?.[entry];
    if (given) return Promise.resolve(given);
    let handler = loaded.get(entry);
    if (!handler) {
      handler = import(pathToFileURL(resolve(root, entry)).href).then((module: { handler?: unknown }) => {
        if (typeof module.handler !== 'function') throw new Error(`${entry} does not export a handler function`);
        return module.handler as LambdaHandler;
      });
      // A failed import is retried on the next request instead of being cached.
      handler.catch(() => loaded.delete(entry));
      loaded.set(entry, handler);
    }
    return handler;
  };

  const authorize = async (event: APIGatewayProxyEvent, requestId: string): Promise<AuthorizerOutcome> => {
    const identity = Object.entries(event.headers).find(([name]) => name.toLowerCase() === AUTHORIZER.identityHeader.toLowerCase());
    // API Gateway does not call a REQUEST authorizer whose identity source is missing.
    if (!identity?.[1]) return { kind: 'unauthorized' };
    const authorizerEvent = toAuthorizerEvent(event);
    try {
      const authorizer = await handlerFor(AUTHORIZER.entry);
      const result = await invoke(authorizer, authorizerEvent, 'Authorizer', requestId);
      return evaluatePolicy(result, authorizerEvent.methodArn);
    } catch (error) {
      if (error instanceof Error && error.message === 'Unauthorized') return { kind: 'unauthorized' };
      // As on API Gateway, an authorizer that fails or runs past its timeout is an authorizer error.
      if (error instanceof FunctionTimeout) log(`authorizer timed out after ${functionTimeoutMs} ms`);
      else log(`authorizer failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
      return { kind: 'failed' };
    }
  };

  const respond = async (req: IncomingMessage, requestId: string): Promise<APIGatewayProxyResult> => {
    const method = req.method ?? 'GET';
    let body: Buffer;
    try {
      body = await readBody(req, MAX_READ_BYTES);
    } catch (error) {
      if (error instanceof TooLarge) return gatewayProblem(STANDARD_PROBLEMS.tooLarge, { Connection: 'close' });
      throw error;
    }
    const request: RawRequest = { method, url: req.url ?? '/', rawHeaders: req.rawHeaders, body, sourceIp: req.socket.remoteAddress ?? '127.0.0.1' };

    if (request.url.includes('#')) return gatewayProblem(FRAGMENT_IN_TARGET);
    const match = matchRoute(routes, method, splitUrl(request.url).path);
    if (!match) return gatewayProblem(STANDARD_PROBLEMS.notFound);
    if ('allowed' in match) return gatewayProblem(STANDARD_PROBLEMS.methodNotAllowed, { Allow: match.allowed.join(', ') });

    const { route, params } = match;
    let event = toProxyEvent({ request, route, params, requestId });
    if (route.authorized) {
      const outcome = await authorize(event, requestId);
      if (outcome.kind === 'unauthorized') return gatewayProblem(STANDARD_PROBLEMS.unauthorized, { 'WWW-Authenticate': WWW_AUTHENTICATE });
      if (outcome.kind === 'denied') return gatewayProblem(STANDARD_PROBLEMS.forbidden);
      // As API Gateway's authorizer-error responses (lib/gateway-responses.ts): the authorizer could not decide.
      if (outcome.kind === 'failed') return gatewayProblem(STANDARD_PROBLEMS.unavailable, { ...UNAVAILABLE_HEADERS });
      event = toProxyEvent({ request, route, params, requestId, authorizer: outcome });
    }

    const handler = await handlerFor(route.entry);
    const result = await invoke(handler, event, route.name, requestId);
    return isProxyResult(result) ? result : gatewayProblem(MALFORMED_RESULT);
  };

  return createServer((req, res) => {
    // The API reference page belongs to the local runner, not to the API it emulates.
    if (serveDocsPage(req, res)) return;
    const started = performance.now();
    const requestId = randomUUID();
    respond(req, requestId)
      .catch((error: unknown) => {
        if (error instanceof FunctionTimeout) {
          log(`handler timed out after ${functionTimeoutMs} ms`);
          return gatewayProblem(STANDARD_PROBLEMS.timeout);
        }
        // The client sees a generic problem; the detail stays in the server's log.
        log(`handler failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        return gatewayProblem(STANDARD_PROBLEMS.internal);
      })
      .then((result) => {
        writeResult(res, result, { 'x-amzn-RequestId': requestId });
        if (!options.quiet) {
          const path = (req.url ?? '/').split('?', 1)[0];
          log(`${req.method} ${path} ${result.statusCode} ${Math.round(performance.now() - started)}ms`);
        }
      })
      .catch((error: unknown) => {
        log(`could not write the response: ${String(error)}`);
        res.destroy();
      });
  });
};
