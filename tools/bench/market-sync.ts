/**
 * The market-sync benchmark (`npm run bench -- --market-sync`, docs/performance.md): the market
 * loop as deployed (schedule -> sync worker -> storefront reader, run by the local event
 * runtime) against the marketplace simulator on 127.0.0.1, with DynamoDB Local. Four parts,
 * each figure printed against its target:
 *  - convergence: a seeded market history under faults, then two sync cycles; every offer field
 *    the service serves compared with the market;
 *  - cost: write units of a sync that finds nothing changed and of one competitor's price move,
 *    seller API requests of a full own-offer sync;
 *  - freshness: repriced products' storefront pages read at a limited rate for several tier
 *    periods; the age of each product's view from the simulator's read log;
 *  - politeness: requests above the limits and inside a Retry-After window, from the simulator.
 * Loaded by bin/bench.ts once DynamoDB Local and the table are up.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { importConnectorTypes } from '../admin/import.js';
import { createClientAccount } from '../admin/clients.js';
import { createRepricerFor } from '../admin/repricers.js';
import { MARKET_SYNC } from '../../lambdas/shared/config/market-sync.js';
import { documentClient } from '../../lambdas/shared/data/dynamo.js';
import { deleteConnection, requestSync, saveConnection } from '../../lambdas/shared/data/connections.js';
import { LEFT_PAGE_STATUS } from '../../lambdas/shared/data/market-sync.js';
import { listOffers } from '../../lambdas/shared/data/offers-read.js';
import { connectedRecord } from '../../lambdas/shared/domain/connections.js';
import { isDue, pageDue, tickOf } from '../../lambdas/shared/domain/market-schedule.js';
import { deriveMarketView, type BuyBoxFields } from '../../lambdas/shared/domain/market-snapshot.js';
import { offerQueryParameters, planOfferQuery } from '../../lambdas/shared/domain/offer-query.js';
import type { Offer } from '../../lambdas/shared/domain/records.js';
import { TAKEALOT_CONNECTOR_UID, TAKEALOT_SELLER_API_URL_ENV, TAKEALOT_STOREFRONT_URL_ENV } from '../../lambdas/shared/marketplace/registry.js';
import { sealConnectionSecret } from '../../lambdas/shared/marketplace/secrets.js';
import { productMarketOf, productDetailsBody } from '../../lambdas/shared/marketplace/takealot/schemas.js';
import type { EventRuntime, EventRuntimeOptions } from '../local/event-runtime.js';
import type { StartingPosition } from '../local/shard-reader.js';
import { useLocalSecretsKey } from '../local/secrets-key.js';
import { createMarketSimulator, type MarketSimulator, type MarketOptionsInput } from '../market/index.js';
import { createPrng } from '../market/prng.js';
import { productDetails } from '../market/storefront-route.js';
import type { Product } from '../market/catalogue.js';
import type { TrafficSummary } from '../market/traffic.js';
import { createHarness, type Harness } from './harness.js';
import { compareOffers, verdictLine, viewAges, type AgeFigures, type ComparedFields, type FieldDifference, type Target } from './market-figures.js';
import type { WriteTally } from './write-meter.js';

export interface MarketSyncSettings {
  readonly quick: boolean;
  readonly seed: number;
  /** Convergence: products of its market, bot ticks of its history. */
  readonly products: number;
  readonly historyTicks: number;
  /** Cost: own offers of its market, and competitors per product there. */
  readonly offers: number;
  readonly costCompetitors: number;
  /** Freshness: products with an enabled repricer, and how long they are watched. */
  readonly freshnessProducts: number;
  readonly freshnessSeconds: number;
  /**
   * Real seconds between the freshness part's ticks (the schedule's: 60). Tiers are due by tick
   * number, so shorter (`--quick`: 15) runs the same tiers faster; ages and their target scale with it.
   */
  readonly tickSeconds: number;
  /** The storefront's limit in the freshness part (the simulator's burst and refill per second). */
  readonly storefrontLimit: number;
  readonly skip: ReadonlySet<'convergence' | 'cost' | 'freshness'>;
}

const FULL: Omit<MarketSyncSettings, 'skip'> = {
  quick: false,
  seed: 7,
  products: 200,
  historyTicks: 60,
  offers: 10_000,
  costCompetitors: 2,
  freshnessProducts: 1_000,
  freshnessSeconds: 420,
  tickSeconds: 60,
  storefrontLimit: 10,
};

const QUICK: Omit<MarketSyncSettings, 'skip'> = {
  ...FULL,
  quick: true,
  products: 20,
  historyTicks: 10,
  offers: 200,
  freshnessProducts: 40,
  freshnessSeconds: 75,
  tickSeconds: 15,
};

const FLAGS: Readonly<Record<string, keyof typeof FULL>> = {
  '--seed': 'seed',
  '--products': 'products',
  '--history-ticks': 'historyTicks',
  '--offers': 'offers',
  '--cost-competitors': 'costCompetitors',
  '--freshness-products': 'freshnessProducts',
  '--freshness-seconds': 'freshnessSeconds',
  '--storefront-limit': 'storefrontLimit',
  '--tick-seconds': 'tickSeconds',
};

/** `--quick`, `--skip cost,freshness` and the numeric flags above (`--offers 1000`). */
export const marketSyncSettings = (argv: readonly string[]): MarketSyncSettings => {
  const settings: Record<string, unknown> = { ...(argv.includes('--quick') ? QUICK : FULL) };
  const skip = new Set<MarketSyncSettings['skip'] extends ReadonlySet<infer S> ? S : never>();
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (flag === '--quick') continue;
    const value = argv[i + 1];
    i += 1;
    if (flag === '--skip') {
      for (const part of (value ?? '').split(',')) {
        if (part !== 'convergence' && part !== 'cost' && part !== 'freshness') throw new Error(`--skip takes convergence, cost, freshness; got ${part}`);
        skip.add(part);
      }
      continue;
    }
    const key = FLAGS[flag];
    const number = Number(value);
    if (key === undefined) throw new Error(`Unknown option ${flag}: --quick, --skip, ${Object.keys(FLAGS).join(', ')}`);
    if (!Number.isInteger(number) || number < 1 || number > 100_000) throw new Error(`${flag} takes a whole number from 1 to 100000, got ${value}`);
    settings[key] = number;
  }
  return { ...(settings as Omit<MarketSyncSettings, 'skip'>), skip };
};

/** The runtime with the market loop (options and tick being added to tools/local/event-runtime.ts). */
type MarketRuntime = EventRuntime & { tickMarket(time: string): Promise<unknown> };

export interface MarketSyncContext {
  readonly endpoint: string;
  readonly tableName: string;
  readonly onError: (error: Error) => void;
  readonly runId: string;
}

const say = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

interface Phase {
  readonly market: MarketSimulator;
  readonly harness: Harness;
  readonly runtime: () => MarketRuntime;
  readonly clientId: string;
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
const startPhase = async (
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
    { apiKey: market.apiKey, webhookSecretSet: withWebhooks, mode: 'suggest' },
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
    sellerId: account.sellerId,
    defaultConnector: account.defaultConnector,
    uid: record.uid,
    lastTick: -1,
    ...(server ? { server } : {}),
  };
};

/** The phase's connection deleted first: the schedule ticks every connection, and a later part must see only its own. */
const stopPhase = async (phase: Phase): Promise<void> => {
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
const syncCycle = async (phase: Phase, timeoutMs: number): Promise<{ seconds: number; unread: number }> => {
  await requestFullSync(phase);
  return tickUntilRead(phase, timeoutMs);
};

/** The request of a full sync, written and its stream record settled (a measured sync then counts only what the sync wrote). */
const requestFullSync = async (phase: Phase): Promise<void> => {
  await requestSync(phase.clientId, TAKEALOT_CONNECTOR_UID);
  await phase.harness.settle();
};

/** The tick of this minute, or the one after the last sent when that is later (a tick ahead of the clock is handled like one on time). */
const nextTick = (phase: Phase, atLeast = tickOf(Date.now())): number => Math.max(atLeast, phase.lastTick + 1);

const tickTime = (tick: number): Date => new Date(tick * MARKET_SYNC.tickSeconds * 1000);

const sendTick = (phase: Phase, tick: number): Promise<unknown> => {
  if (tick <= phase.lastTick) throw new Error(`tick ${tick} was sent already`);
  phase.lastTick = tick;
  return phase.runtime().tickMarket(tickTime(tick).toISOString());
};

/**
 * One tick of the schedule (the next one, by default), then the runtime settled until every page
 * of `products` (all, by default) has been read since the tick was sent, at most `timeoutMs`.
 */
const tickUntilRead = async (
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
const servedOffers = async (clientId: string): Promise<Offer[]> => {
  const offers: Offer[] = [];
  for (let start = 0; start < 10_000_000; start += 100) {
    const query = planOfferQuery(offerQueryParameters.parse({ _include_other_offers: 'true', _start: String(start), _limit: '100', _sort: 'id' }));
    const page = await listOffers(clientId, query);
    offers.push(...page.offers);
    if (page.offers.length < 100 || offers.length >= page.total) break;
  }
  return offers;
};

const buyBoxFields = (fields: BuyBoxFields): ComparedFields => ({
  winning: fields.winning,
  winning_delivery: fields.winning_delivery,
  winning_price: fields.winning_price ?? 0,
  total_competitors: fields.total_competitors,
  competitiveness: fields.competitiveness,
});

/**
 * What the service should serve for the market as it is now: per own offer the seller API's
 * fields and its page's buy-box fields; per competitor on a page its fields there. The page is
 * the simulator's own answer read through the adapter's parser and the service's derivation,
 * so this measures whether the synced data is current and complete (the derivation's rules are
 * tested on their own: test/unit/domain/market-snapshot*.test.ts).
 */
const expectedOffers = (market: MarketSimulator, sellerId: string): Map<string, ComparedFields> => {
  const expected = new Map<string, ComparedFields>();
  for (const product of market.simulation.market.products) {
    const { own } = product;
    const page = productMarketOf(String(product.plid), productDetailsBody.parse(productDetails(market.simulation.market, product)));
    const view = deriveMarketView(page, { ownSellerId: sellerId, priceStep: 1 });
    // In stock: held at the marketplace's warehouses, so it ships now (docs/market-sync.md).
    const stock = own.takealot_warehouse_stock.reduce((sum, entry) => sum + entry.quantity_available, 0);
    const ownOnPage = view.offers.find((offer) => offer.own);
    expected.set(`own ${own.offer_id}`, {
      offer_price: own.selling_price,
      offer_status: own.status,
      stock_status: stock > 0 ? 'in_stock' : 'lead_time',
      ...buyBoxFields(ownOnPage ?? view.absentOffer(own.selling_price)),
    });
    for (const offer of view.offers) {
      if (offer.own) continue;
      expected.set(`${own.sku} / ${offer.sellerId}`, {
        offer_price: offer.price,
        offer_status: 'buyable',
        stock_status: offer.stock_status,
        seller_name: offer.seller_name,
        rating_avg: offer.rating_avg,
        rating_count: offer.rating_count,
        ...buyBoxFields(offer),
      });
    }
  }
  return expected;
};

/** A competitor's offer id is `<connector>:<product line>:<seller>`; the marketplace's own offer ids are digits. */
const servedFields = (offers: readonly Offer[]): Map<string, ComparedFields> =>
  new Map(
    offers.map((offer) => [
      offer.offer_id.includes(':') ? `${offer.product.code} / ${offer.seller_id}` : `own ${offer.offer_id}`,
      {
        offer_price: offer.offer_price,
        offer_status: offer.offer_status,
        stock_status: offer.stock_status,
        seller_name: offer.seller_name,
        rating_avg: offer.rating_avg,
        rating_count: offer.rating_count,
        winning: offer.winning,
        winning_delivery: offer.winning_delivery,
        winning_price: offer.winning_price,
        total_competitors: offer.total_competitors,
        competitiveness: offer.competitiveness,
      },
    ]),
  );

export interface ConvergenceFigures {
  readonly products: number;
  readonly historyTicks: number;
  readonly ownChanges: number;
  readonly comparedOffers: number;
  readonly comparedFields: number;
  readonly differences: number;
  readonly firstDifferences: readonly FieldDifference[];
  readonly cycleSeconds: readonly number[];
  readonly traffic: TrafficSummary;
  /** The simulator's webhooks to the service's route during the run: delivered, dropped (a fault), sent twice (a fault), failed. */
  readonly webhooks: { readonly delivered: number; readonly dropped: number; readonly duplicated: number; readonly failed: number };
}

/** Own-offer edits a seller makes in the marketplace's portal meanwhile: a new price within the RRP, or disabled / re-enabled. */
const editOwnOffers = (market: MarketSimulator, prng: ReturnType<typeof createPrng>, count: number): number => {
  const { products } = market.simulation.market;
  let changed = 0;
  for (let i = 0; i < count; i++) {
    const product = products[Math.floor(prng.next() * products.length)]!;
    const { own } = product;
    const change =
      prng.next() < 0.8
        ? { selling_price: Math.max(1, Math.min(own.rrp, Math.round(own.selling_price * (0.9 + prng.next() * 0.2)))) }
        : { status_action: own.status === 'buyable' ? 'Disable' : 'Re-enable' };
    if (market.simulation.updateOwnOffer(product, change, { via: 'patch' }).ok) changed += 1;
  }
  return changed;
};

const webhookOutcomes = (market: MarketSimulator): ConvergenceFigures['webhooks'] => {
  const deliveries = market.control.webhooks();
  return {
    delivered: deliveries.filter((delivery) => delivery.outcome === 'delivered').length,
    dropped: deliveries.filter((delivery) => delivery.outcome === 'dropped').length,
    duplicated: deliveries.filter((delivery) => delivery.duplicated).length,
    failed: deliveries.filter((delivery) => delivery.outcome === 'failed').length,
  };
};

export const measureConvergence = async (context: MarketSyncContext, settings: MarketSyncSettings): Promise<ConvergenceFigures> => {
  say(`\n== convergence: ${settings.products} products, ${settings.historyTicks} bot ticks of history under faults`);
  const phase = await startPhase(
    context,
    'convergence',
    {
      seed: settings.seed,
      products: settings.products,
      competitors: 5,
      faults: { webhookDropRate: 0.5, webhookDuplicateRate: 0.2, page2Bug: true, errorRate: 0.05 },
    },
    MARKET_SYNC.storefrontRequestsPerSecond,
    'TRIM_HORIZON',
    true,
  );
  try {
    const prng = createPrng(settings.seed + 1);
    const timeoutMs = (settings.products / MARKET_SYNC.storefrontRequestsPerSecond) * 3_000 + 120_000;
    const cycleSeconds: number[] = [];
    // A first sync, then history with a sync in its middle (the service has a past to correct), then two cycles.
    cycleSeconds.push((await syncCycle(phase, timeoutMs)).seconds);
    let ownChanges = 0;
    for (let tick = 0; tick < settings.historyTicks; tick++) {
      phase.market.control.tick(1);
      ownChanges += editOwnOffers(phase.market, prng, Math.max(1, Math.round(settings.products / 50)));
      if (tick === Math.floor(settings.historyTicks / 2)) cycleSeconds.push((await syncCycle(phase, timeoutMs)).seconds);
    }
    for (let cycle = 0; cycle < 2; cycle++) {
      const { seconds, unread } = await syncCycle(phase, timeoutMs);
      cycleSeconds.push(seconds);
      if (unread > 0) say(`  ${unread} pages not read within the cycle's bound`);
    }
    const expected = expectedOffers(phase.market, phase.sellerId);
    const served = servedFields(await servedOffers(phase.clientId));
    // A competitor that left its page stays served, marked as gone.
    for (const key of served.keys()) if (!key.startsWith('own ') && !expected.has(key)) expected.set(key, { offer_status: LEFT_PAGE_STATUS });
    const differences = compareOffers(expected, served);
    const figures: ConvergenceFigures = {
      products: settings.products,
      historyTicks: settings.historyTicks,
      ownChanges,
      comparedOffers: expected.size,
      comparedFields: [...expected.values()].reduce((sum, fields) => sum + Object.keys(fields).length, 0),
      differences: differences.length,
      firstDifferences: differences.slice(0, 10),
      cycleSeconds,
      traffic: phase.market.control.traffic(),
      webhooks: webhookOutcomes(phase.market),
    };
    say(`  ${figures.comparedOffers} offers, ${figures.comparedFields} fields compared; ${figures.differences} differ`);
    say(
      `  marketplace webhooks to the service: ${figures.webhooks.delivered} delivered, ${figures.webhooks.dropped} dropped, ${figures.webhooks.duplicated} sent twice, ${figures.webhooks.failed} failed`,
    );
    return figures;
  } finally {
    await stopPhase(phase);
  }
};

export interface CostFigures {
  readonly offers: number;
  readonly competitors: number;
  readonly initialSyncSeconds: number;
  readonly unchanged: WriteTally;
  /** A competitor without a slot moves; the buy box stays as it was. */
  readonly competitorMove: WriteTally;
  /** A competitor takes Best Price: every offer of the product changes. */
  readonly competitorTakesBuyBox: WriteTally;
  readonly ownOfferPageRequests: number;
  readonly expectedPageRequests: number;
  readonly sellerRequests: Readonly<Record<string, number>>;
  readonly traffic: TrafficSummary;
}

const requestsDelta = (before: TrafficSummary, after: TrafficSummary): Record<string, number> =>
  Object.fromEntries(Object.entries(after.requests).map(([route, count]) => [route, count - (before.requests[route] ?? 0)]));

export const measureCost = async (context: MarketSyncContext, settings: MarketSyncSettings): Promise<CostFigures> => {
  say(`\n== cost: ${settings.offers} own offers, ${settings.costCompetitors} competitors each`);
  // Pages are read fast here (the simulator's storefront limit raised to match): the figures are write units and requests, not pace.
  const rate = 200;
  const phase = await startPhase(
    context,
    'cost',
    {
      seed: settings.seed + 2,
      products: settings.offers,
      competitors: settings.costCompetitors,
      storefrontRateLimit: { capacity: rate * 2, refillPerSecond: rate * 2 },
      sellerRateLimit: { capacity: 100, refillPerSecond: 10 },
    },
    rate,
    'LATEST',
  );
  try {
    const timeoutMs = (settings.offers / rate) * 4_000 + 300_000;
    const initial = await syncCycle(phase, timeoutMs);
    say(`  initial sync: ${initial.seconds.toFixed(0)} s`);
    // Scheduled ticks from here, no sync requested: the tick on which the connection's own
    // offers come round by their phase (its pages of the hourly tier with it), a tick number
    // within the next period (a tick's time may be ahead of the clock, never more than 5 minutes behind).
    const { products } = phase.market.simulation.market;
    const dueOn = (tick: number) => products.filter((product) => pageDue(product.own.sku, 'other', tick));
    const first = nextTick(phase);
    const ownTick = Array.from({ length: 15 }, (_, i) => first + i).find((tick) => isDue(phase.uid, tick, MARKET_SYNC.ownOffersEverySeconds))!;
    const before = phase.market.control.traffic();
    const unchanged = await phase.harness.measure(() => tickUntilRead(phase, timeoutMs, ownTick, dueOn(ownTick)));
    const sellerRequests = requestsDelta(before, phase.market.control.traffic());
    say(`  unchanged sync: ${unchanged.writes.total} write units, ${sellerRequests['GET /offers'] ?? 0} offer pages, ${dueOn(ownTick).length} pages due`);
    // One competitor of a product whose page is due on a later tick moves its price: what that
    // tick writes. First a move that leaves the buy box as it was (a competitor without a slot
    // raises its price: only its own offer changes), then one that takes Best Price (every offer
    // of the product gets the new winning price), printed beside it.
    const moveTicks = Array.from({ length: 60 }, (_, i) => ownTick + 1 + i).filter(
      (tick) => dueOn(tick).length > 0 && !isDue(phase.uid, tick, MARKET_SYNC.ownOffersEverySeconds),
    );
    const moveOn = async (tick: number, move: (product: Product) => void) => {
      const product = dueOn(tick)[0]!;
      move(product);
      return phase.harness.measure(() => tickUntilRead(phase, timeoutMs, tick, dueOn(tick)));
    };
    const quiet = await moveOn(moveTicks[0]!, (product) => {
      const box = phase.market.simulation.market.buyBox(product);
      const rival = product.competitors.find((offer) => offer.available && offer.key !== box.bestPrice?.id && offer.key !== box.fastestDelivery?.id);
      if (rival) rival.price += 1;
      else say('  (no competitor without a slot on that product: nothing moved)');
    });
    say(`  one competitor's move, buy box unchanged: ${quiet.writes.total} write units (${dueOn(moveTicks[0]!).length} pages read on that tick)`);
    const winning = await moveOn(moveTicks[1]!, (product) => {
      const box = phase.market.simulation.market.buyBox(product);
      const rival = product.competitors.find((offer) => offer.key !== box.bestPrice?.id) ?? product.competitors[0]!;
      const lowest = Math.min(...phase.market.simulation.market.listedOffers(product).map((offer) => offer.price));
      Object.assign(rival, { available: true, in_stock: true, price: Math.max(1, lowest - 5) });
    });
    say(`  one competitor's move taking Best Price: ${winning.writes.total} write units`);
    return {
      offers: settings.offers,
      competitors: settings.costCompetitors,
      initialSyncSeconds: initial.seconds,
      unchanged: unchanged.writes,
      competitorMove: quiet.writes,
      competitorTakesBuyBox: winning.writes,
      ownOfferPageRequests: sellerRequests['GET /offers'] ?? 0,
      expectedPageRequests: Math.ceil(settings.offers / MARKET_SYNC.ownOffersPageSize),
      sellerRequests,
      traffic: phase.market.control.traffic(),
    };
  } finally {
    await stopPhase(phase);
  }
};

export interface FreshnessFigures {
  readonly products: number;
  readonly storefrontLimit: number;
  readonly tickSeconds: number;
  readonly seconds: number;
  readonly ticks: number;
  readonly ages: AgeFigures;
  readonly readsPerSecond: number;
  readonly traffic: TrafficSummary;
}

export const measureFreshness = async (context: MarketSyncContext, settings: MarketSyncSettings): Promise<FreshnessFigures> => {
  say(`\n== freshness: ${settings.freshnessProducts} repriced products, storefront limited to ${settings.storefrontLimit}/s, ${settings.freshnessSeconds} s`);
  const phase = await startPhase(
    context,
    'freshness',
    {
      seed: settings.seed + 3,
      products: settings.freshnessProducts,
      competitors: 5,
      // Bots move on their own (system clock) while the loop runs.
      tickIntervalMs: 5_000,
      storefrontRateLimit: { capacity: settings.storefrontLimit, refillPerSecond: settings.storefrontLimit },
    },
    MARKET_SYNC.storefrontRequestsPerSecond,
    'LATEST',
  );
  try {
    const readsFrom = Date.now();
    const initial = await syncCycle(phase, (settings.freshnessProducts / settings.storefrontLimit) * 3_000 + 120_000);
    say(`  initial sync: ${initial.seconds.toFixed(0)} s; creating ${settings.freshnessProducts} enabled repricers`);
    const owner = { clientId: phase.clientId, defaultConnector: phase.defaultConnector };
    for (const product of phase.market.simulation.market.products) {
      await createRepricerFor(owner, {
        product_code: product.own.sku,
        preferred_price: product.own.selling_price,
        preferred_profit: 0,
        min_profit: 0,
        buybox_approach: 'cheapest',
        repricer_approach: 'fixed',
        enabled: true,
      });
    }
    await phase.harness.settle();
    const started = Date.now();
    const until = started + settings.freshnessSeconds * 1000;
    let ticks = 0;
    const pending: Promise<unknown>[] = [];
    // The schedule's ticks, `tickSeconds` apart in real time, each with the next tick number (a
    // product's tier is due by the number, so none may be skipped; a tick ahead of the clock is handled like one on time).
    const first = nextTick(phase);
    for (let i = 0; started + i * settings.tickSeconds * 1000 < until && i < 1_000; i++) {
      await sleep(started + i * settings.tickSeconds * 1000 - Date.now());
      ticks += 1;
      pending.push(sendTick(phase, first + i));
      say(`  tick ${ticks} at ${((Date.now() - started) / 1000).toFixed(0)} s; ${phase.market.control.traffic().storefront_reads} pages read so far`);
    }
    await sleep(until - Date.now());
    const ended = Date.now();
    await Promise.allSettled(pending);
    const { products } = phase.market.control.reads();
    const reads = new Map(Object.entries(products));
    // Ages are sampled once a tier period has passed (or half the run, when shorter): before that the first reads are still under way.
    const tierMs = (MARKET_SYNC.repricedEverySeconds / MARKET_SYNC.tickSeconds) * settings.tickSeconds * 1000;
    const from = started + Math.min(tierMs, (ended - started) / 2);
    const ages = viewAges(reads, { readsFrom, from, to: ended, everyMs: 1_000 });
    const readsInWindow = [...reads.values()].reduce((sum, times) => sum + times.filter((t) => t >= started && t <= ended).length, 0);
    return {
      products: settings.freshnessProducts,
      storefrontLimit: settings.storefrontLimit,
      tickSeconds: settings.tickSeconds,
      seconds: (ended - started) / 1000,
      ticks,
      ages,
      readsPerSecond: readsInWindow / ((ended - started) / 1000),
      traffic: phase.market.control.traffic(),
    };
  } finally {
    await stopPhase(phase);
  }
};

export interface MarketSyncReport {
  readonly settings: Omit<MarketSyncSettings, 'skip'> & { skip: string[] };
  readonly convergence?: ConvergenceFigures;
  readonly cost?: CostFigures;
  readonly freshness?: FreshnessFigures;
  readonly targets: readonly (Target & { met: boolean })[];
  readonly lines: readonly string[];
}

const politenessTargets = (label: string, traffic: TrafficSummary): Target[] => [
  {
    label: `${label}: requests refused above the limit (seller API + storefront)`,
    value: traffic.politeness.seller.refused + traffic.politeness.storefront.refused,
    kind: 'max',
    limit: 0,
  },
  {
    label: `${label}: requests inside a Retry-After window`,
    value: traffic.politeness.seller.inside_retry_after + traffic.politeness.storefront.inside_retry_after,
    kind: 'max',
    limit: 0,
  },
];

/** The lines printed for the figures, each target with MET or MISSED. */
export const reportLines = (figures: Pick<MarketSyncReport, 'convergence' | 'cost' | 'freshness'>): { lines: string[]; targets: Target[] } => {
  const lines: string[] = [];
  const targets: Target[] = [];
  const judge = (target: Target) => {
    targets.push(target);
    lines.push(`  ${verdictLine(target)}`);
  };
  const { convergence, cost, freshness } = figures;
  if (convergence) {
    lines.push(
      `Convergence (${convergence.products} products, ${convergence.historyTicks} bot ticks, ${convergence.ownChanges} own-offer edits; cycles ${convergence.cycleSeconds.map((s) => s.toFixed(0)).join(', ')} s):`,
    );
    judge({
      label: `fields differing of ${convergence.comparedFields} (${convergence.comparedOffers} offers)`,
      value: convergence.differences,
      kind: 'max',
      limit: 0,
    });
    for (const d of convergence.firstDifferences) lines.push(`    ${d.offer} ${d.field}: market ${String(d.expected)}, served ${String(d.served)}`);
    const hooks = convergence.webhooks;
    lines.push(
      `    marketplace webhooks to the service: ${hooks.delivered} delivered, ${hooks.dropped} dropped, ${hooks.duplicated} sent twice, ${hooks.failed} failed`,
    );
  }
  if (cost) {
    lines.push(`Cost (${cost.offers} own offers, ${cost.competitors} competitors each; initial sync ${cost.initialSyncSeconds.toFixed(0)} s):`);
    judge({ label: 'write units of a full sync that finds nothing changed', value: cost.unchanged.total, kind: 'max', limit: 0 });
    judge({ label: "write units of a sync after one competitor's price move (buy box unchanged)", value: cost.competitorMove.total, kind: 'max', limit: 20 });
    lines.push(`    a competitor's move taking Best Price (every offer of the product rewritten): ${cost.competitorTakesBuyBox.total} write units`);
    judge({ label: 'seller API offer pages of a full own-offer sync', value: cost.ownOfferPageRequests, kind: 'max', limit: cost.expectedPageRequests });
    const byKind = (tally: WriteTally) =>
      Object.entries(tally.byKind)
        .map(([kind, units]) => `${kind} ${units!.table + units!.indexes}`)
        .join(', ') || 'nothing';
    lines.push(
      `    unchanged sync wrote: ${byKind(cost.unchanged)}; after the move: ${byKind(cost.competitorMove)}; after the move taking Best Price: ${byKind(cost.competitorTakesBuyBox)}`,
    );
    lines.push(`    seller API requests of the unchanged sync: ${JSON.stringify(cost.sellerRequests)}`);
  }
  if (freshness) {
    const { ages } = freshness;
    lines.push(
      `Freshness (${freshness.products} repriced products, storefront ${freshness.storefrontLimit}/s, ${freshness.seconds.toFixed(0)} s, ${freshness.ticks} ticks ${freshness.tickSeconds} s apart, ${freshness.readsPerSecond.toFixed(1)} pages/s):`,
    );
    lines.push(
      `    age of a repriced product's market view: p50 ${ages.p50Seconds.toFixed(1)} s, p99 ${ages.p99Seconds.toFixed(1)} s, max ${ages.maxSeconds.toFixed(1)} s; longest gap between reads ${ages.longestGapSeconds.toFixed(1)} s; never read ${ages.neverRead}`,
    );
    // 130 s with the schedule's minute; with faster ticks the same margin over the tier, scaled.
    const scale = freshness.tickSeconds / MARKET_SYNC.tickSeconds;
    judge({
      label: `p99 age of a repriced product’s view${scale === 1 ? '' : ` (ticks every ${freshness.tickSeconds} s: target 130 s scaled by ${scale})`}`,
      value: ages.p99Seconds,
      kind: 'below',
      limit: 130 * scale,
      unit: 's',
    });
  }
  lines.push('Politeness (from the simulator’s counters):');
  for (const [label, part] of [
    ['convergence', convergence],
    ['cost', cost],
    ['freshness', freshness],
  ] as const) {
    if (part) for (const target of politenessTargets(label, part.traffic)) judge(target);
  }
  return { lines, targets };
};

export const runMarketSyncBench = async (context: MarketSyncContext, settings: MarketSyncSettings): Promise<MarketSyncReport> => {
  useLocalSecretsKey();
  const convergence = settings.skip.has('convergence') ? undefined : await measureConvergence(context, settings);
  const cost = settings.skip.has('cost') ? undefined : await measureCost(context, settings);
  const freshness = settings.skip.has('freshness') ? undefined : await measureFreshness(context, settings);
  const figures = { ...(convergence ? { convergence } : {}), ...(cost ? { cost } : {}), ...(freshness ? { freshness } : {}) };
  const { lines, targets } = reportLines(figures);
  const { met } = await import('./market-figures.js');
  return { settings: { ...settings, skip: [...settings.skip] }, ...figures, targets: targets.map((t) => ({ ...t, met: met(t) })), lines };
};
