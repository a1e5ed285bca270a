/**
 * What the prices benchmark asks of the service: its API on a local server (as a seller's
 * system calls it: `PUT /v1/connections/takealot` to go live, switch to suggest or put a new
 * key in; `GET` to read the connection back) and, after a run, every decision as the table
 * holds it (each product's price changes, read consistently).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from '../../lambdas/data/table/dynamo.js';
import { priceChangePartition } from '../../lambdas/data/table/keys.js';
import { storedPriceChange } from '../../lambdas/data/price-changes/list.js';
import { senderStateOf, type SenderState } from '../../lambdas/data/price-changes/status.js';
import type { ConnectionSafety } from '../../lambdas/domain/connections.js';
import type { PriceChange } from '../../lambdas/domain/records.js';
import { TAKEALOT_CONNECTOR_UID } from '../../lambdas/marketplace/registry.js';

export type Auth = readonly [username: string, password: string];

const REQUEST_TIMEOUT_MS = 30_000;

export const apiCall = async (apiUrl: string, auth: Auth, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> => {
  const response = await fetch(`${apiUrl}${path}`, {
    method,
    headers: {
      Authorization: `Basic ${Buffer.from(`${auth[0]}:${auth[1]}`, 'utf8').toString('base64')}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) as unknown };
  } catch {
    return { status: response.status, body: text };
  }
};

/** The API on 127.0.0.1, port 0: the server a phase already has (it takes the webhooks), or one of its own. */
export const localApi = async (existing: Server | undefined): Promise<{ url: string; close: () => Promise<void> }> => {
  let server = existing;
  if (!server) {
    const { createLocalServer } = await import('../local/server.js');
    server = createLocalServer({ log: () => undefined });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  }
  const owned = server !== existing;
  const open = server;
  return {
    url: `http://127.0.0.1:${(open.address() as AddressInfo).port}`,
    close: () => (owned ? new Promise<void>((resolve) => open.close(() => resolve())) : Promise.resolve()),
  };
};

export interface ConnectionPut {
  readonly apiKey: string;
  readonly mode: 'live' | 'suggest';
  /** The seller's id on the marketplace; left out, the connection keeps the one it has. */
  readonly sellerId?: string;
  readonly webhookSecret?: string;
  readonly safety?: Partial<ConnectionSafety>;
}

/** `PUT /v1/connections/takealot`; throws unless the API accepted it. */
export const putConnection = async (apiUrl: string, auth: Auth, put: ConnectionPut): Promise<Record<string, unknown>> => {
  const answer = await apiCall(apiUrl, auth, 'PUT', `/v1/connections/${TAKEALOT_CONNECTOR_UID}`, {
    api_key: put.apiKey,
    mode: put.mode,
    ...(put.sellerId === undefined ? {} : { seller_id: put.sellerId }),
    ...(put.webhookSecret === undefined ? {} : { webhook_secret: put.webhookSecret }),
    ...(put.safety === undefined ? {} : { safety: put.safety }),
  });
  if (answer.status !== 200 && answer.status !== 201)
    throw new Error(`PUT /v1/connections/${TAKEALOT_CONNECTOR_UID} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
  return answer.body as Record<string, unknown>;
};

export const getConnection = async (apiUrl: string, auth: Auth): Promise<Record<string, unknown>> => {
  const answer = await apiCall(apiUrl, auth, 'GET', `/v1/connections/${TAKEALOT_CONNECTOR_UID}`);
  return answer.status === 200 ? (answer.body as Record<string, unknown>) : { status: `(GET answered ${answer.status})` };
};

/** A price change with what only the sender keeps beside it (its faults so far, when it tries again). */
export type ReadDecision = PriceChange & { readonly sender: SenderState };

const productDecisions = async (clientId: string, productCode: string): Promise<ReadDecision[]> => {
  const decisions: ReadDecision[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': priceChangePartition(clientId, productCode) },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    for (const item of page.Items ?? [])
      if (item.entity === 'priceChange') decisions.push({ ...storedPriceChange.parse(item).record, sender: senderStateOf(item) });
    start = page.LastEvaluatedKey;
  } while (start);
  return decisions;
};

/** Every price change of the products, a few partitions at a time. */
export const readDecisions = async (clientId: string, productCodes: readonly string[], concurrency = 8): Promise<ReadDecision[]> => {
  const all: ReadDecision[] = [];
  for (let i = 0; i < productCodes.length; i += concurrency) {
    const pages = await Promise.all(productCodes.slice(i, i + concurrency).map((code) => productDecisions(clientId, code)));
    for (const page of pages) all.push(...page);
  }
  return all;
};
