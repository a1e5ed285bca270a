/**
 * The whole API for an integration test: the local server (the real authorizer and handlers)
 * on a free port, over a table of its own in the file's DynamoDB Local
 * (test/support/dynamodb-environment.cjs), with the event-driven handlers (list maintenance)
 * running from the table's stream.
 *
 * The handlers read TABLE_NAME from the environment, so a test file runs one API at a time.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NewClientAccount } from '../../tools/admin/clients.js';
import { createTable, deleteTable } from '../../tools/local/create-table.js';
import { createLocalDynamoClient } from '../../tools/local/dynamodb-local.js';
import type { EventRuntimeOptions } from '../../tools/local/event-runtime.js';
import type { LocalServerOptions } from '../../tools/local/server.js';
import { SYNC_REQUESTS_PER_WINDOW_ENV } from '../../lambdas/config/sync-requests.js';
import { TABLE_NAME_ENV } from '../../lambdas/config/table-schema.js';
import { ALLOW_LOCAL_HTTP_ENV } from '../../lambdas/domain/webhook-url.js';
import { useLocalSecretsKey } from '../../tools/local/secrets-key.js';
import { OffsetClock } from '../../tools/local/clock.js';
import { cachedAuthorizer } from './cached-authorizer.js';
import { assertMatchesOpenApi } from './openapi-validator.js';

export interface RequestOptions {
  /** Sent as HTTP Basic credentials. */
  readonly auth?: readonly [username: string, password: string];
  /** A string or Buffer is sent as is; anything else as JSON (with a JSON Content-Type unless given). */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The local address the request is sent from, e.g. `127.0.0.2` (any 127.x.y.z works on
   * Linux): the source address the authorizer counts login attempts against.
   */
  readonly from?: string;
}

export interface ApiResponse<T> {
  readonly status: number;
  /** Lower-case names. */
  readonly headers: Record<string, string>;
  /** Parsed when the response is JSON, else the text. */
  readonly body: T;
  /** The body exactly as received. */
  readonly text: string;
}

export interface TestApi {
  readonly baseUrl: string;
  readonly tableName: string;
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  createClient(username: string, options?: Omit<NewClientAccount, 'username'>): ReturnType<typeof import('../../tools/admin/clients.js').createClientAccount>;
  /**
   * Loads a client's catalogue as an operator would (`connector_type` records through the
   * operator's reference-data import, everything else through the client's import), then waits
   * until the lists show it.
   */
  importRecords(username: string, records: readonly unknown[]): ReturnType<typeof import('../../tools/admin/import.js').importRecords>;
  /**
   * The file's one time: the handlers, the event runtime, a simulator of `startTestMarket` and the
   * market harness read it. The wall clock until a test moves it forward (`clock.advance(ms)`).
   */
  readonly clock: OffsetClock;
  /** Waits until every change made so far, and the work it caused, is done. */
  settle(): Promise<void>;
  /** Queue messages dead-lettered and stream records given up on so far (none, when all went through). */
  failures(): ReturnType<Awaited<ReturnType<typeof import('../../tools/local/event-runtime.js').startEventRuntime>>['failures']>;
  close(): Promise<void>;
}

const basic = ([username, password]: readonly [string, string]) => `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;

const hasHeader = (headers: Record<string, string>, name: string) => Object.keys(headers).some((key) => key.toLowerCase() === name.toLowerCase());

const encodeBody = (body: unknown, headers: Record<string, string>): string | Buffer | undefined => {
  if (body === undefined) return undefined;
  if (typeof body === 'string' || Buffer.isBuffer(body)) return body;
  if (!hasHeader(headers, 'content-type')) headers['Content-Type'] = 'application/json';
  return JSON.stringify(body);
};

/** Like fetch, but from a chosen local address. */
const sendFrom = (
  localAddress: string,
  url: string,
  method: string,
  headers: Record<string, string>,
  payload: string | Buffer | undefined,
): Promise<{ status: number; headers: Record<string, string>; text: string }> =>
  new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method, headers, localAddress, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)])),
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(payload);
  });

export interface TestApiOptions extends Pick<LocalServerOptions, 'handlers'> {
  /**
   * The authorizer without API Gateway's result cache, for files about authentication itself
   * (lockout, disabled clients, changed passwords). Every other file gets the cached one
   * (support/cached-authorizer.ts): the same code, one scrypt derivation per credentials.
   */
  readonly uncachedAuthorizer?: boolean;
  /** How the event-driven handlers are run (e.g. every batch delivered twice). */
  readonly events?: Pick<EventRuntimeOptions, 'deliverTwice' | 'onInvoke' | 'webhooks' | 'onRecords' | 'imports'>;
}

export const startTestApi = async ({ events: eventOptions = {}, uncachedAuthorizer = false, handlers }: TestApiOptions = {}): Promise<TestApi> => {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  if (!endpoint)
    throw new Error(
      'DYNAMODB_ENDPOINT is not set: run this test in the jest "integration" project, whose test environment starts a DynamoDB Local for each file',
    );
  const tableName = `test-${randomUUID()}`;
  // Set before any handler or data module is loaded; they read it on each call.
  process.env[TABLE_NAME_ENV] = tableName;
  // Keep expected failures (wrong passwords, 4xx) out of the test output; errors still show.
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  // As `npm start`: webhooks may point at receivers on 127.0.0.1 over http.
  process.env[ALLOW_LOCAL_HTTP_ENV] = 'true';
  // Tests ask for a full sync at every step they check; the one that checks the limit names it.
  process.env[SYNC_REQUESTS_PER_WINDOW_ENV] ??= '1000';
  // As `npm start`: secrets are sealed under the local key provider, no AWS account needed.
  useLocalSecretsKey();

  const dynamo = createLocalDynamoClient(endpoint);
  await createTable(dynamo, tableName);
  const { startEventRuntime } = await import('../../tools/local/event-runtime.js');
  // Installed for the process by the runtime while it runs (lambdas/config/clock.ts).
  const clock = new OffsetClock();
  const events = await startEventRuntime({ endpoint, tableName, clock, ...eventOptions });

  const { createLocalServer } = await import('../../tools/local/server.js');
  const server = createLocalServer({ quiet: true, handlers: { ...(uncachedAuthorizer ? {} : cachedAuthorizer()), ...handlers } });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;

  return {
    baseUrl,
    tableName,
    async request<T>(method: string, path: string, { auth, body, headers = {}, from }: RequestOptions = {}) {
      const sent: Record<string, string> = { ...headers };
      if (auth) sent.Authorization = basic(auth);
      const payload = encodeBody(body, sent);
      let received: { status: number; headers: Record<string, string>; text: string };
      if (from === undefined) {
        const response = await fetch(`${baseUrl}${path}`, { method, headers: sent, ...(payload === undefined ? {} : { body: payload }) });
        received = { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() };
      } else {
        received = await sendFrom(from, `${baseUrl}${path}`, method, sent, payload);
      }
      const { text } = received;
      const isJson = /json/i.test(received.headers['content-type'] ?? '') && text !== '';
      // Every response a test sees must be one the OpenAPI document describes.
      assertMatchesOpenApi({ method, path, ...received });
      return { ...received, body: (isJson ? JSON.parse(text) : text) as T };
    },
    async createClient(username, accountOptions = {}) {
      const { createClientAccount } = await import('../../tools/admin/clients.js');
      return createClientAccount({ username, ...accountOptions });
    },
    async importRecords(username, records) {
      const { importConnectorTypes, importRecords } = await import('../../tools/admin/import.js');
      const isConnector = (record: unknown) => (record as { type?: unknown } | null)?.type === 'connector_type';
      const connectors = records.filter(isConnector);
      if (connectors.length > 0) await importConnectorTypes(connectors);
      const summary = await importRecords(
        records.filter((record) => !isConnector(record)),
        { username },
      );
      await events.settle();
      return summary;
    },
    clock,
    settle: () => events.settle(),
    failures: () => events.failures(),
    async close() {
      await events.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
      await deleteTable(dynamo, tableName);
      dynamo.destroy();
    },
  };
};
