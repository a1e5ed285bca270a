/**
 * One time for the whole market loop (lambdas/config/clock.ts, tools/local/clock.ts): the test
 * moves the API's clock hours ahead, and the read planner, the storefront reader, the handlers the
 * event runtime runs (the evaluator, the sender) and the marketplace simulator all see the moved
 * time: pages due only by then are read, and what is decided and sent is stamped then.
 */
import { jest } from '@jest/globals';
import { forgetConnectionModes } from '../../lambdas/data/connections/mode.js';
import { dueTimeOf, getPageWatch } from '../../lambdas/data/market/page-watches.js';
import { changesInStatus } from '../../lambdas/data/price-changes/sending.js';
import { sweepConnection } from '../../lambdas/functions/send-prices/worker.js';
import { defaultPushDeps } from '../../lambdas/functions/send-prices/worker.js';
import type { Offer, OffersPage, PriceChange } from '../../lambdas/domain/records.js';
import type { MarketSimulator } from '../../tools/market/index.js';
import { connectorRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { marketHarness } from '../support/market-harness.js';
import { captureOutput } from '../support/output-capture.js';
import { step } from '../support/story.js';
import { startTestMarket, stopTestMarket } from '../support/test-market.js';

const PRODUCTS = 3;
const HOUR = 3_600_000;
/** Beyond the longest time between two looks at a page (READ_PLANNER's ceilings): every page is due by then. */
const JUMP_MS = 7 * HOUR;
const captured = captureOutput();
jest.setTimeout(240_000);
const alice: [string, string] = ['clock-alice', 'clock-alice-password-1'];
let market: MarketSimulator;
let api: TestApi;
let clientId: string;
let uid: string;
let loop: ReturnType<typeof marketHarness>;

const priceChanges = async (): Promise<PriceChange[]> => {
  const page = await api.request<{ price_changes: PriceChange[] }>('GET', '/v1/price-changes?_limit=100', { auth: alice });
  expect(page.status).toBe(200);
  return page.body.price_changes;
};
const offers = async (): Promise<Offer[]> => {
  const page = await api.request<OffersPage>('GET', '/v1/offers?_include_other_offers=true&_limit=100', { auth: alice });
  expect(page.status).toBe(200);
  return page.body.offers;
};
/**
 * Until nothing of the connection is pending or sent (or two minutes of wall time): the loop ticks
 * and the sender sweeps, as the schedule has them do (a capped move's next step waits for a page read after it).
 */
const drained = async () => {
  const until = Date.now() + 120_000;
  for (;;) {
    await api.settle();
    const moving = (await changesInStatus(clientId, 'takealot', 'sent', 100)).length + (await changesInStatus(clientId, 'takealot', 'pending', 100)).length;
    if (moving === 0 || Date.now() > until) return;
    await api.request('POST', '/v1/connections/takealot/sync', { auth: alice });
    await loop.tick({ uids: [uid] });
    await sweepConnection(clientId, 'takealot', defaultPushDeps);
  }
};

beforeAll(async () => {
  captured.start();
  market = await startTestMarket({ seed: 5, products: PRODUCTS, competitors: 2, batchDelayMs: 50 });
  api = await startTestApi();
  clientId = (await api.createClient(alice[0], { password: alice[1] })).clientId;
  await api.importRecords(alice[0], [connectorRecord('takealot')]);
  const put = await api.request<{ uid: string }>('PUT', '/v1/connections/takealot', {
    auth: alice,
    body: { api_key: market.apiKey, mode: 'live', seller_id: market.options.sellerId, safety: { breaker_share_percent: 100 } },
  });
  expect(put.status).toBe(201);
  forgetConnectionModes();
  uid = put.body.uid;
  loop = marketHarness(api);
}, 120_000);

afterAll(async () => {
  captured.stop();
  await api?.close();
  await stopTestMarket(market);
});

describe('one clock for the service, its runtime and the marketplace', () => {
  it('reads the pages due by a time hours ahead, and decides and sends at that time', async () => {
    await step('the first tick syncs and reads every page', async () => {
      expect((await loop.tick({ uids: [uid] })).reads).toBe(PRODUCTS);
    });

    let decidedBefore = new Set<number>();
    let receivedBefore = 0;
    let jumped = 0;
    await step('the clock moves hours ahead: the simulator reads it too', async () => {
      for (const product of market.simulation.market.products) {
        const price = product.own.selling_price;
        const created = await api.request('POST', '/v1/repricers', {
          auth: alice,
          body: {
            product_code: product.own.sku,
            preferred_price: price,
            preferred_profit: price - Math.ceil(price * 0.5),
            connector: 'takealot',
            enabled: true,
          },
        });
        expect(created.status).toBe(201);
      }
      await api.settle();
      decidedBefore = new Set((await priceChanges()).map((change) => change.id));
      receivedBefore = market.control.prices().total;
      api.clock.advance(JUMP_MS);
      jumped = api.clock.now();
      // Hours ahead of the wall clock (the ticks moved it a little too).
      expect(jumped - Date.now()).toBeGreaterThan(JUMP_MS - 60_000);
      expect(market.control.clock.now()).toBeGreaterThanOrEqual(jumped);
      // Every rival a fifth under the own offer: the next page read shows a market to follow.
      for (const product of market.simulation.market.products) {
        for (const competitor of product.competitors) competitor.price = Math.max(1, Math.floor(product.own.selling_price * 0.8));
      }
    });

    await step('a tick then reads every page, each due only by the moved time, and the reader stamps what it saw then', async () => {
      expect((await loop.tick({ uids: [uid] })).reads).toBe(PRODUCTS);
      const reads = market.control.reads().products;
      for (const product of market.simulation.market.products) expect(reads[String(product.plid)]?.at(-1)).toBeGreaterThanOrEqual(jumped);
      // The planner's next look at each page counts from the moved time.
      for (const product of market.simulation.market.products) {
        const watch = await getPageWatch('takealot', String(product.plid));
        expect(dueTimeOf(watch!.dueSk)).toBeGreaterThan(jumped);
      }
      const seen = (await offers()).filter((offer) => offer.last_seen_at !== null);
      expect(seen.length).toBeGreaterThan(PRODUCTS);
      for (const offer of seen) expect([offer.offer_id, Date.parse(offer.last_seen_at!) >= jumped]).toEqual([offer.offer_id, true]);
    });

    await step('the decisions from those pages, and the prices the marketplace receives, are at the moved time', async () => {
      await drained();
      const decided = (await priceChanges()).filter((change) => !decidedBefore.has(change.id));
      expect(decided.length).toBeGreaterThanOrEqual(PRODUCTS);
      const latest = api.clock.now();
      for (const change of decided) {
        const stamps = [change.created_at, change.updated_at, change.sent_at, change.applied_at].filter((at): at is string => at !== null).map(Date.parse);
        expect([change.id, stamps.every((at) => at >= jumped && at <= latest)]).toEqual([change.id, true]);
      }
      expect(decided.some((change) => change.status === 'applied')).toBe(true);
      const log = market.control.prices();
      expect(log.total).toBeGreaterThan(receivedBefore);
      const received = log.offers.flatMap((history) => history.received).filter((entry) => entry.at >= jumped);
      expect(received.length).toBe(log.total - receivedBefore);
    });
  });
});
