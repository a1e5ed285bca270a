import type { StreamChange } from '../shared/data/change-records.js';
import type { ImportJob } from '../shared/domain/import-jobs.js';
import type { ImportJobMessage } from '../shared/events/import-jobs.js';
import type { PriceChange } from '../shared/domain/records.js';
import type { ListChangesMessage, RepricingMessage } from '../shared/events/list-changes.js';
import { marketSyncGroup, type MarketSyncMessage } from '../shared/events/market-sync.js';
import {
  connectionStatusChangedMessage,
  connectionStatusGroup,
  importCompletedGroup,
  importCompletedMessage,
  type WebhookEventMessage,
} from '../shared/events/webhook-events.js';
import type { ConnectionStatusChangedData } from '../shared/domain/webhooks.js';

/**
 * Where a kind of change goes: each route collects, per tenant and stream batch, what its
 * queue's consumer needs to hear about, and turns it into messages for that tenant's group.
 */
export interface ChangeRoute<W, M = unknown> {
  /** The queue it sends to (a key of the senders the forwarder is given). */
  readonly queue: string;
  readonly start: (clientId: string) => W;
  readonly add: (work: W, change: StreamChange) => void;
  readonly messages: (work: W) => readonly M[];
  /** The message group of a message, when not the tenant: a finer group lets its groups proceed in parallel. */
  readonly groupOf?: (message: M) => string;
}

export interface RoutedMessage {
  /** Undefined: the tenant's group. */
  readonly groupId: string | undefined;
  readonly body: unknown;
}

/** One route's work for one tenant, its type hidden: what the forwarder holds. */
export interface RouteWork {
  readonly queue: string;
  add(change: StreamChange): void;
  messages(): readonly RoutedMessage[];
}

export interface RouteStarter {
  readonly queue: string;
  begin(clientId: string): RouteWork;
}

export const defineRoute = <W, M>(route: ChangeRoute<W, M>): RouteStarter => ({
  queue: route.queue,
  begin: (clientId) => {
    const work = route.start(clientId);
    return {
      queue: route.queue,
      add: (change) => route.add(work, change),
      messages: () => route.messages(work).map((body) => ({ groupId: route.groupOf?.(body), body })),
    };
  },
});

const MAX_ITEMS_PER_MESSAGE = 500;
/**
 * The items' share of a message, in bytes of JSON: well under SQS's 256 KiB, leaving room for
 * the message's other fields. Ids and codes are tenant text up to 128 characters, up to 3 bytes
 * each, so 500 items can exceed SQS's limit: a message SQS refuses is dropped, never sent.
 */
const MAX_ITEM_BYTES_PER_MESSAGE = 192 * 1024;

/** The items in order, in chunks of at most 500 items and 192 KiB of JSON. */
export const chunk = <T>(values: readonly T[]): T[][] => {
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const value of values) {
    const size = Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8') + 1;
    if (current.length === MAX_ITEMS_PER_MESSAGE || (current.length > 0 && bytes + size > MAX_ITEM_BYTES_PER_MESSAGE)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(value);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
};

/** To the list maintainer: offers, products and price changes whose listings may need work; rebuild steps. */
export const listsRoute: ChangeRoute<ListChangesMessage> = {
  queue: 'lists',
  start: (clientId) => ({ clientId, offers: [], products: [], priceChanges: [], rebuilds: [] }),
  add: (work, change) => {
    if (change.kind === 'offer') work.offers.push({ ...change.hint, cells: [...change.hint.cells] });
    if (change.kind === 'product') work.products.push(change.code);
    if (change.kind === 'priceChange') work.priceChanges.push({ ...change.hint, cells: [...change.hint.cells] });
    if (change.kind === 'rebuild') work.rebuilds.push(change.requestId);
  },
  // A rebuild step goes alone: each message is one pass of the maintainer, counted once per node.
  messages: (work) => {
    const empty = { clientId: work.clientId, offers: [], products: [], priceChanges: [], rebuilds: [] };
    return [
      ...work.rebuilds.map((requestId) => ({ ...empty, rebuilds: [requestId] })),
      ...chunk(work.offers).map((offers) => ({ ...empty, offers })),
      ...chunk(work.products).map((products) => ({ ...empty, products })),
      ...chunk(work.priceChanges).map((priceChanges) => ({ ...empty, priceChanges })),
    ];
  },
};

/** To the repricing evaluator: products whose offers or repricers changed. */
export const repricingRoute: ChangeRoute<{ clientId: string; products: Set<string> }> = {
  queue: 'repricing',
  start: (clientId) => ({ clientId, products: new Set() }),
  add: (work, change) => {
    if (change.kind === 'offer') for (const code of change.products) work.products.add(code);
    if (change.kind === 'slot') work.products.add(change.code);
  },
  messages: (work): RepricingMessage[] => chunk([...work.products]).map((products) => ({ clientId: work.clientId, products })),
};

/** To the import worker: jobs that were just created `pending` (their later progress is the worker's own). */
export const importsRoute: ChangeRoute<{ clientId: string; ids: number[] }> = {
  queue: 'imports',
  start: (clientId) => ({ clientId, ids: [] }),
  add: (work, change) => {
    if (change.kind === 'import' && change.after === 'pending' && change.before === undefined) work.ids.push(change.id);
  },
  messages: (work): ImportJobMessage[] => work.ids.map((importId) => ({ clientId: work.clientId, importId })),
};

/**
 * To the webhook worker: each price change as it is created, one message per event, grouped by
 * tenant and repricer so one repricer's events reach the receivers in the order they happened.
 */
type WebhooksWork = { clientId: string; created: PriceChange[]; ended: ImportJob[]; connections: WebhookEventMessage[] };

export const webhooksRoute: ChangeRoute<WebhooksWork, WebhookEventMessage> = {
  queue: 'webhooks',
  start: (clientId) => ({ clientId, created: [], ended: [], connections: [] }),
  add: (work, change) => {
    if (change.kind === 'priceChange' && change.created) work.created.push(change.created);
    if (change.kind === 'import' && change.ended) work.ended.push(change.ended);
    if (change.kind === 'connectionStatus') work.connections.push(connectionStatusChangedMessage(work.clientId, change.record, change.previous));
  },
  messages: (work) => [
    ...[...work.created]
      .sort((a, b) => a.id - b.id)
      .map((record): WebhookEventMessage => ({
        clientId: work.clientId,
        eventId: `REPRICER_PRICE_CHANGED-${record.id}`,
        eventType: 'REPRICER_PRICE_CHANGED',
        eventTimestamp: record.created_at,
        data: record,
      })),
    // A job ends once; its end read twice from the stream has the same event id, so one delivery.
    ...work.ended.map((job) =>
      importCompletedMessage(work.clientId, { ...job, status: job.status === 'failed' ? 'failed' : 'completed' }, job.end_time ?? job.updated_at),
    ),
    // In stream order: one connection's changes reach the receivers in the order they were made.
    ...work.connections,
  ],
  groupOf: (message) => {
    if (message.eventType === 'IMPORT_COMPLETED') return importCompletedGroup(message.clientId, (message.data as ImportJob).id);
    if (message.eventType === 'CONNECTION_STATUS_CHANGED') return connectionStatusGroup(message.clientId, (message.data as ConnectionStatusChangedData).uid);
    return `${message.clientId}#R${(message.data as PriceChange).repricer_id}`;
  },
};

/** The marketplace's own words for an event that names one offer whose state may have moved. */
const OFFER_EVENT_TYPES: ReadonlySet<string> = new Set(['offer_updated', 'offer_created']);

/**
 * To the market-sync worker: each marketplace event just received about one offer (Offer
 * Updated, Offer Created) asks for that offer's next look now, in its connection's group.
 * What the event says is not passed on: the worker reads the offer itself. Batch Completed
 * events are recorded but not routed (the price sender will read them).
 */
export const marketSyncRoute: ChangeRoute<{ messages: MarketSyncMessage[] }, MarketSyncMessage> = {
  queue: 'marketSync',
  start: () => ({ messages: [] }),
  add: (work, change) => {
    if (change.kind !== 'marketplaceEvent') return;
    const { uid, eventType, offerId, deliveryId } = change.event;
    if (OFFER_EVENT_TYPES.has(eventType) && offerId !== undefined) work.messages.push({ kind: 'offer', uid, offerId, deliveryId });
  },
  messages: (work) => work.messages,
  groupOf: (message) => marketSyncGroup(message.uid),
};

export const CHANGE_ROUTES: readonly RouteStarter[] = [
  defineRoute(listsRoute),
  defineRoute(repricingRoute),
  defineRoute(importsRoute),
  defineRoute(webhooksRoute),
  defineRoute(marketSyncRoute),
];
