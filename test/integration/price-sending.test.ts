/**
 * Prices out, end to end (docs/price-sending.md): decisions of a live connection are sent to the
 * marketplace simulator on 127.0.0.1 by the price sender the event runtime runs, confirmed, and
 * never leave their bounds; a big move goes in capped steps; `suggest` stops sending; a revoked
 * key holds the prices until a new key is put; a marketplace that fails keeps them pending with
 * a retry, and a sender that stops between the push and its record pushes nothing twice.
 */
import { jest } from '@jest/globals';
import { defaultPushDeps, sweepConnection } from '../../lambdas/functions/send-prices/worker.js';
import { sendChanges } from '../../lambdas/functions/send-prices/pipeline.js';
import { forgetConnectionModes } from '../../lambdas/data/connections/mode.js';
import { readSendable, transitionPriceChange, type PriceChangeRef } from '../../lambdas/data/price-changes/status.js';
import { changesInStatus } from '../../lambdas/data/price-changes/sending.js';
import type { PriceChange } from '../../lambdas/domain/records.js';
import { MIN_BREAKER_DROPS } from '../../lambdas/domain/price-push.js';
import type { MarketSimulator } from '../../tools/market/index.js';
import type { Product as MarketProduct } from '../../tools/market/catalogue.js';
import { connectorRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { marketHarness } from '../support/market-harness.js';
import { setSellerApiHold } from '../support/seller-api-hold.js';
import { marketReadAt } from '../support/market-read.js';
import { captureOutput } from '../support/output-capture.js';
import { step } from '../support/story.js';
import { startTestMarket, stopTestMarket } from '../support/test-market.js';

type Connection = { uid: string; status: string; mode: string; last_error: string | null; prices_sent: number };
type Page = { price_changes: PriceChange[]; meta: { total: number } };

const PRODUCTS = 4;
const captured = captureOutput();
const alice: [string, string] = ['send-alice', 'send-alice-password-1'];
let market: MarketSimulator;
let api: TestApi;
let clientId: string;
let loop: ReturnType<typeof marketHarness>;
/** Each product's floors and ceilings by SKU, each from the count of prices its offer had received when it was set. */
const bounds = new Map<string, { from: number; floor: number; ceiling: number }[]>();
const repricerIds = new Map<string, number>();
const receivedCount = (product: MarketProduct) => received().offers.find((h) => h.offer_id === product.own.offer_id)?.count ?? 0;
const setBounds = (product: MarketProduct, floor: number, ceiling: number) =>
  bounds.set(product.own.sku, [...(bounds.get(product.own.sku) ?? []), { from: receivedCount(product), floor, ceiling }]);

const connection = async (): Promise<Connection> => (await api.request<Connection>('GET', '/v1/connections/takealot', { auth: alice })).body;
const putConnection = async (mode: 'live' | 'suggest', apiKey = market.apiKey, safety?: Record<string, number>) => {
  const put = await api.request<Connection>('PUT', '/v1/connections/takealot', {
    auth: alice,
    body: { api_key: apiKey, mode, seller_id: market.options.sellerId, ...(safety ? { safety } : {}) },
  });
  expect([200, 201]).toContain(put.status);
  forgetConnectionModes();
  await api.settle();
  return put.body;
};
/** Every price change of the client, read from the canonical items through the list (all of them: a few dozen here). */
const priceChanges = async (): Promise<PriceChange[]> => {
  const page = await api.request<Page>('GET', '/v1/price-changes?_limit=100', { auth: alice });
  expect(page.status).toBe(200);
  return page.body.price_changes;
};
const products = (): readonly MarketProduct[] => market.simulation.market.products;
/** Moves every competitor of a product to a price, as a bot would, so the next page read shows it. */
const moveCompetitors = (product: MarketProduct, price: number) => {
  for (const competitor of product.competitors) competitor.price = price;
};
const received = () => market.control.prices();
/**
 * A new decision for a product without waiting for its page's tier: its repricer's floor and
 * ceiling both set to a price a little under the offer's, so that price is the target.
 */
const pinPrice = async (product: MarketProduct) => {
  const price = product.own.selling_price - 2;
  setBounds(product, price, price);
  const patched = await api.request('PATCH', `/v1/repricers/${repricerIds.get(product.own.sku)}`, {
    auth: alice,
    body: { preferred_price: price, preferred_profit: 0 },
  });
  expect(patched.status).toBe(200);
};
/**
 * Waits for the runtime's sender: a capped move is a chain of pushes, each step sent once a page
 * read after the last step still supports it, so the loop ticks (reading every page) and the
 * sender sweeps, as the schedule has them do, until no change is on its way (or three minutes).
 */
const drained = async ({ pending = true }: { readonly pending?: boolean } = {}) => {
  const until = Date.now() + 180_000;
  for (;;) {
    await api.settle();
    const moving = (await changesInStatus(clientId, 'takealot', 'sent', 100)).length;
    const record = await connection();
    const waiting = pending && record.status === 'connected' ? (await changesInStatus(clientId, 'takealot', 'pending', 100)).length : 0;
    if (moving + waiting === 0 || Date.now() > until) return;
    if (waiting > 0) {
      // Every page read on this tick (a full sync asked for), so each waiting step has its fresh read.
      await api.request('POST', '/v1/connections/takealot/sync', { auth: alice });
      await loop.tick({ uids: [record.uid] });
      await sweepConnection(clientId, 'takealot', defaultPushDeps);
    } else await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

/** How many prices the offer had received in an earlier copy of the simulator's log. */
const countsAt = (offerId: number, log: ReturnType<typeof received>) => log.offers.find((history) => history.offer_id === offerId)?.count ?? 0;

const expectInBounds = () => {
  const log = received();
  for (const history of log.offers) {
    const product = products().find((p) => p.own.offer_id === history.offer_id)!;
    const periods = bounds.get(product.own.sku) ?? [];
    history.received.forEach((entry, index) => {
      // The bounds in force when it was sent: the last set at or before its place in the log.
      const limits = periods.filter((period) => period.from <= index).at(-1);
      if (!limits) return;
      expect(Number.isInteger(entry.selling_price)).toBe(true);
      expect(entry.selling_price).toBeGreaterThanOrEqual(limits.floor);
      expect(entry.selling_price).toBeLessThanOrEqual(Math.min(limits.ceiling, product.own.rrp));
    });
  }
  expect(log.duplicates).toEqual({ request_id: 0, within_batch: 0, unchanged_price: 0 });
};

beforeAll(async () => {
  if (!process.env.SHOW_LOGS) captured.start();
  market = await startTestMarket({ seed: 21, products: PRODUCTS, competitors: 3, batchDelayMs: 100 });
  api = await startTestApi();
  clientId = (await api.createClient(alice[0], { password: alice[1] })).clientId;
  await api.importRecords(alice[0], [connectorRecord('takealot')]);
  // The breaker would trip on the first step's sharp drops of every offer: its own step turns it back on.
  await putConnection('live', market.apiKey, { breaker_share_percent: 100 });
  loop = marketHarness(api);
  await loop.tick();
}, 120_000);

afterAll(async () => {
  captured.stop();
  await api?.close();
  await stopTestMarket(market);
});

describe('sending prices', () => {
  it('sends, confirms, caps, stops, holds and never sends twice', async () => {
    await step('a live connection sends its decisions in capped steps; each ends applied, in bounds, once', async () => {
      for (const product of products()) {
        const price = product.own.selling_price;
        // A floor far under the market, so the target is a big drop: more than one push of 20 %.
        const floor = Math.max(1, Math.floor(price * 0.3));
        const ceiling = Math.min(product.own.rrp, price + 10);
        setBounds(product, floor, ceiling);
        moveCompetitors(product, Math.floor(price * 0.5));
        const created = await api.request<{ id: number }>('POST', '/v1/repricers', {
          auth: alice,
          body: { product_code: product.own.sku, preferred_price: ceiling, preferred_profit: ceiling - floor, connector: 'takealot', enabled: true },
        });
        expect(created.status).toBe(201);
        repricerIds.set(product.own.sku, created.body.id);
      }
      await loop.tick({ uids: [(await connection()).uid] });
      await drained();
      const changes = await priceChanges();
      // A repricer decides when it is created (from the view it had) and again once the page showing the move is read.
      const latest = new Map<string, PriceChange>();
      for (const change of changes) if ((latest.get(change.offer_id)?.id ?? 0) < change.id) latest.set(change.offer_id, change);
      expect(latest.size).toBe(PRODUCTS);
      for (const change of latest.values()) {
        expect(change).toMatchObject({ status: 'applied', status_reason: null, sent_price: change.new_price });
        expect(change.applied_at).not.toBeNull();
        const product = products().find((p) => String(p.own.offer_id) === change.offer_id)!;
        expect(product.own.selling_price).toBe(change.new_price);
      }
      for (const change of changes) expect(['applied', 'superseded']).toContain(change.status);
      // Every push moved the price by at most 20 % of the price before it: a drop to half took steps.
      for (const history of received().offers) {
        for (const entry of history.received) expect(entry.selling_price).toBeGreaterThanOrEqual(Math.ceil(entry.previous_price * 0.8));
      }
      expect(received().offers.some((history) => history.count > 1)).toBe(true);
      expectInBounds();
      expect((await connection()).prices_sent).toBe(received().total);
    });

    await step('rivals all moving down together are the market: sharp drops that follow them send, the breaker stays closed', async () => {
      await putConnection('live', market.apiKey, { breaker_share_percent: 30 });
      const before = received().total;
      for (const product of products()) moveCompetitors(product, Math.floor(product.own.selling_price * 0.85));
      await loop.tick({ uids: [(await connection()).uid] });
      await loop.tick({ uids: [(await connection()).uid] });
      await drained();
      expect((await connection()).status).toBe('connected');
      expect(received().total).toBeGreaterThan(before);
      expectInBounds();
    });

    await step(
      'a storefront glitch (one rival read at a fraction of its price on every page) trips the breaker; cleared and resumed, none of its prices go',
      async () => {
        const before = received().total;
        market.control.setGlitch({ fraction: 0.3, share: 1, reads: 1_000 });
        await loop.tick({ uids: [(await connection()).uid] });
        await loop.tick({ uids: [(await connection()).uid] });
        await drained();
        const paused = await connection();
        expect(paused.status).toBe('paused');
        expect(paused.last_error).toMatch(/circuit breaker/);
        // A lone sharp drop never trips the breaker: the batch that carried the first may have gone (one step, in bounds); no more did.
        const atPause = received().total;
        const atPauseLog = received();
        expect(atPause - before).toBeLessThanOrEqual(MIN_BREAKER_DROPS - 1);
        market.control.clearGlitch();
        const held = (await priceChanges()).filter((change) => change.status === 'pending');
        expect(held.length).toBeGreaterThan(0);
        // Only a paused connection resumes.
        const resumed = await api.request<Connection>('POST', '/v1/connections/takealot/resume', { auth: alice });
        expect(resumed.status).toBe(200);
        expect(resumed.body.status).toBe('connected');
        expect((await api.request('POST', '/v1/connections/takealot/resume', { auth: alice })).status).toBe(409);
        // The resume's own look at the held changes sends nothing: they wait for a page read after it.
        await api.settle();
        expect(received().total).toBe(atPause);
        // That read shows the glitch gone: the held drops no longer answer to the market and none goes out; the
        // one glitch step that may have gone before the pause is undone (a raise), nothing drops further.
        await drained();
        const afterResume = received().offers.flatMap((history) => history.received.slice(countsAt(history.offer_id, atPauseLog)));
        for (const entry of afterResume) expect(entry.selling_price).toBeGreaterThan(entry.previous_price);
        const after = await priceChanges();
        for (const change of held) expect(after.find((c) => c.id === change.id)?.status).toBe('superseded');
        expect(after.filter((change) => change.status === 'pending' || change.status === 'sent')).toEqual([]);
        expectInBounds();
      },
    );

    await step('suggest mode: a decision waits as suggested and nothing reaches the marketplace', async () => {
      await putConnection('suggest');
      const before = received().total;
      await pinPrice(products()[3]!);
      await drained();
      // Products whose own price already is the new target decide nothing.
      const waiting = (await priceChanges()).filter((change) => change.status === 'suggested');
      expect(waiting.length).toBeGreaterThan(0);
      expect((await priceChanges()).filter((change) => change.status === 'pending' || change.status === 'sent')).toEqual([]);
      expect(received().total).toBe(before);
    });

    await step('a revoked key: the change is held, the connection unauthorized; a new key sends it', async () => {
      await putConnection('live', market.apiKey, { breaker_share_percent: 100 });
      // A new key's first tick syncs everything; the key is revoked after it, so only the next push meets the refusal.
      await loop.tick({ uids: [(await connection()).uid] });
      await drained();
      const newKey = market.control.revokeKey(true)!;
      const product = products()[0]!;
      await pinPrice(product);
      await drained();
      const record = await connection();
      expect(record.status).toBe('unauthorized');
      const held = (await priceChanges()).filter((change) => change.status === 'pending');
      expect(held.length).toBeGreaterThan(0);
      const sentBefore = received().total;
      market.apiKey = newKey;
      await putConnection('live', newKey);
      await drained();
      expect((await connection()).status).toBe('connected');
      const after = await priceChanges();
      for (const change of held) expect(after.find((c) => c.id === change.id)?.status).toMatch(/^(applied|superseded)$/);
      expect(received().total).toBeGreaterThan(sentBefore);
      expectInBounds();
    });

    await step('a marketplace answering 5xx: the same price is pushed again within seconds, and once healed it lands', async () => {
      // The runtime's own sender is held (as after a long rate limit) so this test drives the sender's clock.
      const clockNow = api.clock.now();
      await setSellerApiHold(clientId, 'takealot', new Date(clockNow + 10 * 60_000).toISOString());
      const product = products()[1]!;
      await pinPrice(product);
      await drained({ pending: false });
      const pending = (await changesInStatus(clientId, 'takealot', 'pending', 50)).filter((ref) => ref.productCode === product.own.sku);
      expect(pending.length).toBe(1);
      const at = clockNow + 20 * 60_000;
      // The page read just before the sender's clock: the push answers to a market read a moment ago.
      await marketReadAt(clientId, product.own.sku, at - 1_000);
      await api.settle();
      const posts = () => market.control.traffic().requests['POST /offers/batch'] ?? 0;
      const postsBefore = posts();
      market.control.setFaults({ errorRate: 1 });
      const waits: number[] = [];
      await sendChanges(clientId, 'takealot', pending, {
        now: () => at,
        sleep: (ms) => {
          waits.push(ms);
          return Promise.resolve();
        },
        retry: { baseDelayMs: 1 },
      });
      // The first push and three more of the same price, seconds apart; then in doubt, told within seconds.
      expect(posts() - postsBefore).toBe(4);
      expect(waits.reduce((sum, ms) => sum + ms, 0)).toBeLessThanOrEqual(10_000);
      const stored = await readSendable(clientId, pending[0]!);
      expect(stored).toMatchObject({ stored: { record: { status: 'pending' } }, attempts: 1 });
      expect(stored?.pushToken).toBeDefined();
      expect(Date.parse(stored!.retryAt!) - at).toBeLessThanOrEqual(10_000);
      market.control.setFaults({ errorRate: 0 });
      // Healed, seconds later: the offer does not show the price, the same price goes again at once.
      await marketReadAt(clientId, product.own.sku, at + 5_000);
      await sweepConnection(clientId, 'takealot', { now: () => at + 10_000, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) });
      expect((await readSendable(clientId, pending[0]!))?.stored.record.status).toMatch(/^(sent|applied)$/);
      expectInBounds();
    });

    await step('a sender that stops between the push and its record pushes nothing twice', async () => {
      const product = products()[2]!;
      await pinPrice(product);
      await drained({ pending: false });
      const pending = await changesInStatus(clientId, 'takealot', 'pending', 50);
      const ref: PriceChangeRef | undefined = pending.find((r) => r.productCode === product.own.sku);
      expect(ref).toBeDefined();
      const before = received().offers.find((h) => h.offer_id === product.own.offer_id)?.count ?? 0;
      // The process "dies" at its first look at the clock after the batch was accepted.
      let pushed = false;
      const realFetch = globalThis.fetch;
      const spy = jest.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
        const response = await realFetch(input, init);
        const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
        if (init?.method === 'POST' && url.endsWith('/offers/batch')) pushed = true;
        return response;
      });
      const at = api.clock.now() + 60 * 60_000;
      await marketReadAt(clientId, product.own.sku, at - 1_000);
      await api.settle();
      await expect(
        sendChanges(clientId, 'takealot', [ref!], {
          now: () => {
            if (pushed) throw new Error('the sender stopped');
            return at;
          },
          sleep: () => Promise.resolve(),
        }),
      ).rejects.toThrow('the sender stopped');
      spy.mockRestore();
      const stranded = await readSendable(clientId, ref!);
      expect(stranded?.stored.record.status).toBe('pending');
      expect(stranded?.pushToken).toBeDefined();
      // The marketplace settles the batch; the next sweep finds the price there and records it, no second push.
      await new Promise((resolve) => setTimeout(resolve, 300));
      market.control.settleBatches();
      await sweepConnection(clientId, 'takealot', { now: () => at + 5 * 60_000, sleep: () => Promise.resolve() });
      const settled = await readSendable(clientId, ref!);
      expect(settled?.stored.record.status).toMatch(/^(applied|pending)$/);
      expect(settled?.pushToken).toBeUndefined();
      const after = received().offers.find((h) => h.offer_id === product.own.offer_id)!;
      // Exactly one push of that price: the stranded one; a further one only for a next capped step.
      const prices = after.received.slice(before).map((entry) => entry.selling_price);
      expect(new Set(prices).size).toBe(prices.length);
      expectInBounds();
    });

    await step('nothing is lost: every price change ends applied, failed, superseded or suggested', async () => {
      await transitionPriceChange(clientId, { productCode: 'none', sk: 'none' }, { from: ['pending'], to: 'failed', now: new Date().toISOString() });
      await setSellerApiHold(clientId, 'takealot', new Date(0).toISOString());
      await sweepConnection(clientId, 'takealot', { now: () => api.clock.now() + 2 * 3_600_000, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) });
      await drained();
      const statuses = new Set((await priceChanges()).map((change) => change.status));
      for (const status of statuses) expect(['applied', 'failed', 'superseded', 'suggested']).toContain(status);
      expect(api.failures()).toEqual([]);
    });
  }, 480_000);
});
