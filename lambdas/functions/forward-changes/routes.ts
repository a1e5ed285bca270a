import type { StreamChange } from '../../data/stream/records.js';
import type { ImportJob } from '../../domain/import-jobs.js';
import type { ImportJobMessage } from '../../events/import-jobs.js';
import type { PriceChange } from '../../domain/records.js';
import type { ListChangesMessage, RepricingMessage } from '../../events/list-changes.js';
import { marketSyncGroup, type MarketSyncMessage } from '../../events/market-sync.js';
import { priceSenderGroup, type PriceSenderMessage } from '../../events/price-sender.js';
import {
  buyboxChangedMessage,
  buyboxGroup,
  connectionStatusChangedMessage,
  connectionStatusGroup,
  importCompletedGroup,
  importCompletedMessage,
  priceChangeCreatedMessage,
  priceChangeGroup,
  priceChangeSettledMessage,
  priceWarDetectedMessage,
  type WebhookEventMessage,
} from '../../events/webhook-events.js';
import type { BuyboxChangedData, ConnectionStatusChangedData, PriceWarDetectedData } from '../../domain/webhooks.js';

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

/**
 * To the list maintainer: offers, products and price changes whose listings may need work; rebuild
 * steps; own offers' states to record; products whose page watches may have moved (the product or
 * a repricer slot of it changed).
 */
export const listsRoute: ChangeRoute<ListChangesMessage> = {
  queue: 'lists',
  start: (clientId) => ({ clientId, offers: [], products: [], priceChanges: [], rebuilds: [], offerStates: [], watches: [] }),
  add: (work, change) => {
    if ((change.kind === 'product' || change.kind === 'slot') && change.watch && !work.watches.includes(change.code)) work.watches.push(change.code);
    if (change.kind === 'offer') work.offers.push({ ...change.hint, cells: [...change.hint.cells] });
    if (change.kind === 'offer' && change.offerState) work.offerStates.push(change.offerState);
    if (change.kind === 'product') work.products.push(change.code);
    if (change.kind === 'priceChange') work.priceChanges.push({ ...change.hint, cells: [...change.hint.cells] });
    if (change.kind === 'rebuild') work.rebuilds.push(change.requestId);
  },
  // A rebuild step goes alone: each message is one pass of the maintainer, counted once per node.
  messages: (work) => {
    const empty = { clientId: work.clientId, offers: [], products: [], priceChanges: [], rebuilds: [], offerStates: [], watches: [] };
    return [
      ...work.rebuilds.map((requestId) => ({ ...empty, rebuilds: [requestId] })),
      ...chunk(work.offers).map((offers) => ({ ...empty, offers })),
      ...chunk(work.products).map((products) => ({ ...empty, products })),
      ...chunk(work.priceChanges).map((priceChanges) => ({ ...empty, priceChanges })),
      ...chunk(work.offerStates).map((offerStates) => ({ ...empty, offerStates })),
      ...chunk(work.watches).map((watches) => ({ ...empty, watches })),
    ];
  },
};

/** To the repricing evaluator: products whose offers, repricers or market view changed. */
export const repricingRoute: ChangeRoute<{ clientId: string; products: Set<string> }> = {
  queue: 'repricing',
  start: (clientId) => ({ clientId, products: new Set() }),
  add: (work, change) => {
    if (change.kind === 'offer') for (const code of change.products) work.products.add(code);
    if (change.kind === 'slot' || change.kind === 'market') work.products.add(change.code);
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
 * To the webhook worker: one message per event (a price change created, applied or failed; an
 * import job ended; a connection's status moved; an own offer won or lost the buy box; a price
 * war detected), each
 * in the group of what it is about (the tenant and the repricer, job, connection or offer), so
 * one subject's events reach the receivers in the order they happened while others go on.
 * Creations go first, in id order; `inStreamOrder` holds the rest in the stream's order (a
 * price change created and settled in one batch is announced, then settled).
 */
type WebhooksWork = { clientId: string; created: PriceChange[]; ended: ImportJob[]; inStreamOrder: WebhookEventMessage[] };

/** The statuses of a price change that end its way to the marketplace and are announced. */
const isSettled = (record: PriceChange): record is PriceChange & { status: 'applied' | 'failed' } => record.status === 'applied' || record.status === 'failed';

export const webhooksRoute: ChangeRoute<WebhooksWork, WebhookEventMessage> = {
  queue: 'webhooks',
  start: (clientId) => ({ clientId, created: [], ended: [], inStreamOrder: [] }),
  add: (work, change) => {
    if (change.kind === 'priceChange' && change.created) work.created.push(change.created);
    if (change.kind === 'import' && change.ended) work.ended.push(change.ended);
    if (change.kind === 'connectionStatus') work.inStreamOrder.push(connectionStatusChangedMessage(work.clientId, change.record, change.previous));
    if (change.kind === 'priceChange' && change.statusMove && isSettled(change.statusMove.record))
      work.inStreamOrder.push(priceChangeSettledMessage(work.clientId, change.statusMove.record));
    if (change.kind === 'offer' && change.buybox) work.inStreamOrder.push(buyboxChangedMessage(work.clientId, change.buybox.offer));
    if (change.kind === 'priceWar') work.inStreamOrder.push(priceWarDetectedMessage(work.clientId, change.detected));
  },
  messages: (work) => [
    ...[...work.created].sort((a, b) => a.id - b.id).map((record) => priceChangeCreatedMessage(work.clientId, record)),
    // A job ends once; its end read twice from the stream has the same event id, so one delivery.
    ...work.ended.map((job) =>
      importCompletedMessage(work.clientId, { ...job, status: job.status === 'failed' ? 'failed' : 'completed' }, job.end_time ?? job.updated_at),
    ),
    // In stream order: one connection's (price change's, offer's) changes reach the receivers in the order they were made.
    ...work.inStreamOrder,
  ],
  groupOf: (message) => {
    if (message.eventType === 'IMPORT_COMPLETED') return importCompletedGroup(message.clientId, (message.data as ImportJob).id);
    if (message.eventType === 'CONNECTION_STATUS_CHANGED') return connectionStatusGroup(message.clientId, (message.data as ConnectionStatusChangedData).uid);
    if (message.eventType === 'BUYBOX_WON' || message.eventType === 'BUYBOX_LOST') return buyboxGroup(message.clientId, (message.data as BuyboxChangedData).id);
    if (message.eventType === 'PRICE_WAR_DETECTED') return priceChangeGroup(message.clientId, (message.data as PriceWarDetectedData).repricer_id);
    // REPRICER_PRICE_CHANGED, PRICE_CHANGE_APPLIED and PRICE_CHANGE_FAILED: one group per repricer.
    return priceChangeGroup(message.clientId, (message.data as PriceChange).repricer_id);
  },
};

/** The marketplace's own words for an event that names one offer whose state may have moved. */
const OFFER_EVENT_TYPES: ReadonlySet<string> = new Set(['offer_updated', 'offer_created']);

/**
 * To the market-sync worker: each marketplace event just received about one offer (Offer
 * Updated, Offer Created) asks for that offer's next look now, in its connection's group.
 * What the event says is not passed on: the worker reads the offer itself. Batch Completed
 * events go to the price sender (pricesRoute).
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

/**
 * To the price sender, in the connection's group: price changes that just became `pending`
 * (one message per connector and up to 500 changes), a look at the connection when its mode or
 * status moved or it was deleted (the kill switch, a resume, a new key), and a batch the
 * marketplace says completed.
 */
type PricesWork = { clientId: string; queued: Map<string, PriceSenderRef[]>; sweeps: Set<string>; batches: PriceSenderMessage[] };
type PriceSenderRef = { productCode: string; sk: string };

export const pricesRoute: ChangeRoute<PricesWork, PriceSenderMessage> = {
  queue: 'prices',
  start: (clientId) => ({ clientId, queued: new Map(), sweeps: new Set(), batches: [] }),
  add: (work, change) => {
    if (change.kind === 'priceChange' && change.queuedFor !== undefined) {
      work.queued.set(change.queuedFor, [...(work.queued.get(change.queuedFor) ?? []), { productCode: change.hint.productCode, sk: change.hint.sk }]);
    }
    if (change.kind === 'connectionStatus') work.sweeps.add(change.record.connector);
    if (change.kind === 'connectionSending') work.sweeps.add(change.connector);
    if (change.kind === 'marketplaceEvent') {
      const { eventType, batchId, connector } = change.event;
      if (eventType === 'batch_completed' && batchId !== undefined && connector !== undefined) {
        work.batches.push({ kind: 'batch', clientId: work.clientId, connector, batchId });
      }
    }
  },
  messages: (work) => [
    ...[...work.queued].flatMap(([connector, refs]) =>
      chunk(refs).map((changes): PriceSenderMessage => ({ kind: 'changes', clientId: work.clientId, connector, changes })),
    ),
    ...[...work.sweeps].map((connector): PriceSenderMessage => ({ kind: 'sweep', clientId: work.clientId, connector, reason: 'connection' })),
    ...work.batches,
  ],
  groupOf: (message) => priceSenderGroup(message.clientId, message.connector),
};

export const CHANGE_ROUTES: readonly RouteStarter[] = [
  defineRoute(listsRoute),
  defineRoute(repricingRoute),
  defineRoute(importsRoute),
  defineRoute(webhooksRoute),
  defineRoute(marketSyncRoute),
  defineRoute(pricesRoute),
];
