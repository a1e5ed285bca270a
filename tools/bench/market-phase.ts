/**
 * One part of the market-sync benchmark: a simulator on 127.0.0.1, the local event runtime with
 * the market loop, one client connected, and the schedule's ticks sent by hand (every tick on a
 * minute of its own, as the schedule's are).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { importConnectorTypes } from '../admin/import.js';
import { createClientAccount } from '../admin/clients.js';
import { MARKET_SYNC } from '../../lambdas/config/market-sync.js';
import { documentClient } from '../../lambdas/data/table/dynamo.js';
import { deleteConnection, saveConnection } from '../../lambdas/data/connections/connections.js';
import { admitSync } from '../../lambdas/data/connections/sync-requests.js';
import { listOffers } from '../../lambdas/data/offers/read.js';
import { connectedRecord } from '../../lambdas/domain/connections.js';
import { tickOf } from '../../lambdas/domain/market-schedule.js';
import { offerQueryParameters, planOfferQuery } from '../../lambdas/domain/offer-query.js';
import type { Offer } from '../../lambdas/domain/records.js';
import { TAKEALOT_CONNECTOR_UID, TAKEALOT_SELLER_API_URL_ENV, TAKEALOT_STOREFRONT_URL_ENV } from '../../lambdas/marketplace/registry.js';
import { sealConnectionSecret } from '../../lambdas/marketplace/secrets.js';
import type { EventRuntime, EventRuntimeOptions } from '../local/event-runtime.js';
import type { StartingPosition } from '../local/shard-reader.js';
import { createMarketSimulator, type MarketSimulator, type MarketOptionsInput } from '../market/index.js';
import type { Product } from '../market/catalogue.js';
import { createHarness, type Harness } from './harness.js';

/** The runtime with the market loop (options and tick being added to tools/local/event-runtime.ts). */
export type MarketRuntime = EventRuntime & { tickMarket(time: string): Promise<unknown> };

export interface MarketSyncContext {
  readonly endpoint: string;
  readonly tableName: string;
  readonly onError: (error: Error) => void;
  readonly runId: string;
}

export const say = (line: string) => process.stderr.write(`${line}\n`);
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

export interface Phase {
  readonly market: MarketSimulator;
  readonly harness: Harness;
  readonly runtime: () => MarketRuntime;
  readonly clientId: string;
  /** The client's credentials for the API's routes (Basic). */
  readonly auth: readonly [username: string, password: string];
  readonly sellerId: string;
  readonly defaultConnector: string;
  /** The connection's uid (its schedule phase). */
  readonly uid: string;
  /**
   * The latest tick number sent: every tick is on a minute of its own, as the schedule's are
   * (two ticks on one minute are one message to the FIFO queue, the second dropped as a duplicate).
   */
  lastTick: number;
  /** The API's local server, when the phase takes the marketplace's webhooks. */
  readonly server?: Server;
}

/** A simulator on 127.0.0.1, the adapter pointed at it, a runtime pacing storefront reads at `rate`, and one client connected to it. */
export const startPhase = async (
  context: MarketSyncContext,
  label: string,
  options: MarketOptionsInput,
  rate: number,
  position: StartingPosition,
  withWebhooks = false,
): Promise<Phase> => {
  const market = await createMarketSimulator({ host: '127.0.0.1', port: 0, tickIntervalMs: 0, ...options });
  process.env[TAKEALOT_SELLER_API_URL_ENV] = market.sellerApiUrl;
  process.env[TAKEALOT_STOREFRONT_URL_ENV] = market.storefrontUrl;
  const { startEventRuntime } = await import('../local/event-runtime.js');
  let current: MarketRuntime | undefined;
  const harness = await createHarness(
    documentClient,
    async (runtimeOptions) => {
      const all = {
        endpoint: context.endpoint,
        tableName: context.tableName,
        onError: context.onError,
        ...runtimeOptions,
        market: { storefrontRequestsPerSecond: rate },
      };
      current = (await startEventRuntime(all as EventRuntimeOptions)) as MarketRuntime;
      return current;
    },
    position,
  );
  await importConnectorTypes([
    {
      type: 'connector_type',
      data: { uid: TAKEALOT_CONNECTOR_UID, name: 'Takealot', logo: 'https://logos.example/takealot.png', website: 'https://www.takealot.com' },
    },
  ]);
  const account = await createClientAccount({
    username: `market-${label}-${context.runId}`,
    sellerId: market.options.sellerId,
    connector: TAKEALOT_CONNECTOR_UID,
  });
  // As PUT /v1/connections/takealot stores it (the key was checked by the simulator's own issue).
  const record = connectedRecord(
    TAKEALOT_CONNECTOR_UID,
    { apiKey: market.apiKey, webhookSecretSet: withWebhooks, mode: 'suggest', sellerId: market.options.sellerId },
    undefined,
    new Date().toISOString(),
  );
  const sealedKey = await sealConnectionSecret('marketplace-key', account.clientId, TAKEALOT_CONNECTOR_UID, market.apiKey);
  const sealedWebhookSecret = withWebhooks
    ? await sealConnectionSecret('marketplace-webhook-secret', account.clientId, TAKEALOT_CONNECTOR_UID, market.webhookSecret)
    : undefined;
  const saved = await saveConnection(account.clientId, record, { sealedKey, sealedWebhookSecret }, undefined);
  if (!saved.saved) throw new Error('The benchmark connection could not be saved');
  // The marketplace's webhooks reach the API's public route, as a seller registers it in the seller portal.
  let server: Server | undefined;
  if (withWebhooks) {
    const { createLocalServer } = await import('../local/server.js');
    server = createLocalServer({ log: () => undefined });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    market.setWebhookUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/marketplace-events/${record.uid}`);
  }
  return {
    market,
    harness,
    runtime: () => {
      if (!current) throw new Error('The event runtime is not running');
      return current;
    },
    clientId: account.clientId,
    auth: [account.username, account.password],
    sellerId: account.sellerId,
    defaultConnector: account.defaultConnector,
    uid: record.uid,
    lastTick: -1,
    ...(server ? { server } : {}),
  };
};

/** The phase's connection deleted first: the schedule ticks every connection, and a later part must see only its own. */
export const stopPhase = async (phase: Phase): Promise<void> => {
  await deleteConnection(phase.clientId, TAKEALOT_CONNECTOR_UID);
  await phase.harness.settle();
  await phase.harness.stop();
  await phase.market.stop();
  const { server } = phase;
  if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
};

/**
 * One sync cycle: a full sync requested (as POST /v1/connections/takealot/sync does), one tick
 * of the schedule, then the runtime settled and every product's page read since the request
 * (bounded: pages the reader still holds back are waited for at most `timeoutMs`).
 */
export const syncCycle = async (phase: Phase, timeoutMs: number): Promise<{ seconds: number; unread: number }> => {
  await requestFullSync(phase);
  return tickUntilRead(phase, timeoutMs);
};

/** The request of a full sync, written and its stream record settled (a measured sync then counts only what the sync wrote). */
export const requestFullSync = async (phase: Phase): Promise<void> => {
  // The bench asks as often as it measures: no limit per window (the sync it asked for still runs once).
  await admitSync(phase.clientId, TAKEALOT_CONNECTOR_UID, Date.now(), { perWindow: Number.MAX_SAFE_INTEGER, windowMs: 1 });
  await phase.harness.settle();
};

/** The tick of this minute, or the one after the last sent when that is later (a tick ahead of the clock is handled like one on time). */
export const nextTick = (phase: Phase, atLeast = tickOf(Date.now())): number => Math.max(atLeast, phase.lastTick + 1);

export const tickTime = (tick: number): Date => new Date(tick * MARKET_SYNC.tickSeconds * 1000);

export const sendTick = (phase: Phase, tick: number): Promise<unknown> => {
  if (tick <= phase.lastTick) throw new Error(`tick ${tick} was sent already`);
  phase.lastTick = tick;
  return phase.runtime().tickMarket(tickTime(tick).toISOString());
};

/**
 * One tick of the schedule (the next one, by default), then the runtime settled until every page
 * of `products` (all, by default) has been read since the tick was sent, at most `timeoutMs`.
 */
export const tickUntilRead = async (
  phase: Phase,
  timeoutMs: number,
  tick = nextTick(phase),
  products: readonly Product[] = phase.market.simulation.market.products,
): Promise<{ seconds: number; unread: number }> => {
  const started = Date.now();
  await sendTick(phase, tick);
  await phase.harness.settle();
  const plids = products.map((product) => String(product.plid));
  const unreadSince = () => {
    const { products } = phase.market.control.reads();
    return plids.filter((plid) => !(products[plid] ?? []).some((at) => at >= started)).length;
  };
  let unread = unreadSince();
  while (unread > 0 && Date.now() - started < timeoutMs) {
    await sleep(1_000);
    await phase.harness.settle();
    unread = unreadSince();
  }
  await phase.harness.settle();
  return { seconds: (Date.now() - started) / 1000, unread };
};

/** Every offer of the tenant as GET /v1/offers?_include_other_offers=true serves it, page by page. */
export const servedOffers = async (clientId: string): Promise<Offer[]> => {
  const offers: Offer[] = [];
  for (let start = 0; start < 10_000_000; start += 100) {
    const query = planOfferQuery(offerQueryParameters.parse({ _include_other_offers: 'true', _start: String(start), _limit: '100', _sort: 'id' }));
    const page = await listOffers(clientId, query);
    offers.push(...page.offers);
    if (page.offers.length < 100 || offers.length >= page.total) break;
  }
  return offers;
};
