/**
 * The price sender when the marketplace misbehaves (docs/price-sending.md, "Faults"), against
 * the simulator on 127.0.0.1 and DynamoDB Local: the sender under test runs with a clock hours
 * ahead, while the runtime's own sender is held by the connection's seller-API hold (real time
 * is inside it, the test's clock past it). Faults the simulator has no switch for (a timeout
 * after the batch arrived, a 404, a 429 with a long Retry-After) are answered in place of it by
 * a stand-in for `fetch`; every other request reaches it.
 */
import { jest } from '@jest/globals';
import { MARKETPLACE_HOLD_MAX_MS } from '../../lambdas/config/marketplace-holds.js';
import { evaluateProduct } from '../../lambdas/functions/evaluate-repricers/evaluate.js';
import { sendChanges } from '../../lambdas/functions/send-prices/pipeline.js';
import type { PushDeps } from '../../lambdas/functions/send-prices/push.js';
import { forgetConnectionModes } from '../../lambdas/data/connections/mode.js';
import { readSendable, type PriceChangeRef } from '../../lambdas/data/price-changes/status.js';
import { changesInStatus } from '../../lambdas/data/price-changes/sending.js';
import { forgetDecision } from '../../lambdas/data/repricing/decision-states.js';
import { DEFAULT_SAFETY } from '../../lambdas/domain/connections.js';
import type { PriceChange } from '../../lambdas/domain/records.js';
import type { MarketSimulator } from '../../tools/market/index.js';
import type { Product as MarketProduct } from '../../tools/market/catalogue.js';
import { connectorRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { marketHarness } from '../support/market-harness.js';
import { captureOutput } from '../support/output-capture.js';
import { sellerApiHoldOf, setSellerApiHold } from '../support/seller-api-hold.js';
import { marketReadAt } from '../support/market-read.js';
import { startTestMarket, stopTestMarket } from '../support/test-market.js';

type Connection = { uid: string; status: string; mode: string };
type Page = { price_changes: PriceChange[] };

const PRODUCTS = 13;
const RETENTION_DAYS = 90;
const HOUR = 3_600_000;
const captured = captureOutput();
const alice: [string, string] = ['faults-alice', 'faults-alice-password-1'];
let market: MarketSimulator;
let api: TestApi;
let clientId: string;
let loop: ReturnType<typeof marketHarness>;
const repricerIds = new Map<string, number>();
/** The clock of the sender under test: hours ahead of real time, one hour further for each test. */
let clock = Date.now() + 2 * HOUR;
const advance = () => (clock += HOUR);
const iso = (ms: number) => new Date(ms).toISOString();
const realFetch = globalThis.fetch;

const products = (): readonly MarketProduct[] => market.simulation.market.products;
const received = (product: MarketProduct): number[] =>
  market.control
    .prices()
    .offers.find((history) => history.offer_id === product.own.offer_id)
    ?.received.map((entry) => entry.selling_price) ?? [];
const batchPosts = () => market.control.traffic().requests['POST /offers/batch'] ?? 0;
/** The runtime's sender waits (real time is inside the hold, which is as long as a hold may be); the sender under test is past it. */
const holdRuntimeSender = () => setSellerApiHold(clientId, 'takealot', iso(Date.now() + MARKETPLACE_HOLD_MAX_MS));
const deps = (at: number): PushDeps => ({
  now: () => at,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  retry: { baseDelayMs: 1, sleep: () => Promise.resolve() },
});
/**
 * For a push the marketplace answers 5xx every time: the sender's waits between its re-pushes
 * of the same prices (seconds each, which the clock `at` does not see pass either way) pass at
 * once. A sender that reads a batch's status still waits in real time for the simulator.
 */
const withoutRepushWaits = (at: number): PushDeps => ({ ...deps(at), sleep: () => Promise.resolve() });
/**
 * The sender under test at `at`, each change's product read a moment before (the reader's
 * record, as a page read at that time leaves it): its pushes answer to a market read just now.
 */
const sendAt = async (refs: readonly PriceChangeRef[], at: number, given: PushDeps = deps(at)): Promise<void> => {
  for (const code of new Set(refs.map((ref) => ref.productCode))) await marketReadAt(clientId, code, at - 1_000);
  await api.settle();
  await sendChanges(clientId, 'takealot', refs, given);
};
const statusOf = async (ref: PriceChangeRef) => (await readSendable(clientId, ref))?.stored.record;

const putConnection = async (mode: 'live' | 'suggest', safety?: Record<string, number>, { hold = true } = {}) => {
  const put = await api.request<Connection>('PUT', '/v1/connections/takealot', {
    auth: alice,
    body: { api_key: market.apiKey, mode, seller_id: market.options.sellerId, safety: { breaker_share_percent: 100, ...safety } },
  });
  expect([200, 201]).toContain(put.status);
  // A PUT writes the connection anew (without its hold).
  if (hold) await holdRuntimeSender();
  forgetConnectionModes();
  await api.settle();
  return put.body;
};
const patchRepricer = async (product: MarketProduct, body: Record<string, unknown>) => {
  const patched = await api.request('PATCH', `/v1/repricers/${repricerIds.get(product.own.sku)}`, { auth: alice, body });
  expect(patched.status).toBe(200);
  await api.settle();
};
const pendingOf = async (product: MarketProduct): Promise<PriceChangeRef[]> =>
  (await changesInStatus(clientId, 'takealot', 'pending', 100)).filter((ref) => ref.productCode === product.own.sku);
/** A decision for a product now: its repricer's floor and ceiling both set to `price`. */
const pin = async (product: MarketProduct, price: number): Promise<PriceChangeRef> => {
  await patchRepricer(product, { preferred_price: price, preferred_profit: 0 });
  // Settled means decided; a second look after a pause tells a late list apart from no decision.
  let pending = await pendingOf(product);
  for (let look = 0; pending.length === 0 && look < 5; look++) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await api.settle();
    pending = await pendingOf(product);
  }
  if (pending.length !== 1) {
    const preview = await api.request('GET', `/v1/repricers/${repricerIds.get(product.own.sku)}/preview`, { auth: alice });
    throw new Error(`expected one pending change for ${product.own.sku} at ${price}, found ${pending.length}; preview: ${JSON.stringify(preview.body)}`);
  }
  return pending[0]!;
};
const priceChangesOf = async (product: MarketProduct): Promise<PriceChange[]> => {
  const page = await api.request<Page>('GET', '/v1/price-changes?_limit=100', { auth: alice });
  expect(page.status).toBe(200);
  return page.body.price_changes.filter((change) => change.product_code === product.own.sku);
};

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const rateLimited = (seconds: number) => json(429, { message: 'Too Many Requests' }, { 'retry-after': String(seconds) });
interface Request {
  readonly url: string;
  readonly method: string;
  readonly body: string;
  /** Sends it to the simulator as it was. */
  readonly forward: () => Promise<Response>;
}
/** Answers the requests `answer` takes (a Response), passes the rest to the simulator. */
const standIn = (answer: (request: Request) => Promise<Response | undefined>) =>
  jest.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const forward = () => realFetch(input, init);
    const given = await answer({ url, method: init?.method ?? 'GET', body: typeof init?.body === 'string' ? init.body : '', forward });
    return given ?? forward();
  });
const isBatchPost = (request: { url: string; method: string }) => request.method === 'POST' && request.url.endsWith('/offers/batch');

beforeAll(async () => {
  if (!process.env.SHOW_LOGS) captured.start();
  market = await startTestMarket({ seed: 33, products: PRODUCTS, competitors: 3, batchDelayMs: 100 });
  api = await startTestApi();
  clientId = (await api.createClient(alice[0], { password: alice[1] })).clientId;
  await api.importRecords(alice[0], [connectorRecord('takealot')]);
  // Not held yet: the first tick syncs the own offers.
  await putConnection('live', {}, { hold: false });
  loop = marketHarness(api);
  await loop.tick();
  // Each repricer's floor and ceiling at the offer's price: it decides nothing until a test pins a price.
  for (const product of products()) {
    const price = product.own.selling_price;
    const created = await api.request<{ id: number }>('POST', '/v1/repricers', {
      auth: alice,
      body: { product_code: product.own.sku, preferred_price: price, preferred_profit: 0, connector: 'takealot', enabled: true },
    });
    expect(created.status).toBe(201);
    repricerIds.set(product.own.sku, created.body.id);
  }
  await api.settle();
  await holdRuntimeSender();
}, 120_000);

afterAll(async () => {
  jest.restoreAllMocks();
  captured.stop();
  await api?.close();
  await stopTestMarket(market);
});

describe('the daily cap', () => {
  it('counts only pushes the marketplace did not refuse: a push turned away by a 429 is given back', async () => {
    await putConnection('live', { max_changes_per_day: 1 });
    const product = products()[0]!;
    const target = product.own.selling_price - 2;
    const ref = await pin(product, target);
    const at = advance();
    const spy = standIn(async (request) => (isBatchPost(request) ? rateLimited(120) : undefined));
    await sendAt([ref], at);
    spy.mockRestore();
    expect((await statusOf(ref))?.status).toBe('pending');
    // Past the Retry-After: the day's one push is still there to use.
    await sendAt([ref], at + 3 * 60_000);
    expect(await statusOf(ref)).toMatchObject({ status: 'applied', sent_price: target });
    expect(received(product)).toEqual([target]);
    // A PUT keeps the limits it does not name: the cap is put back by name, or a later test on the
    // same (virtual) UTC day would meet this one push of the product as the day's cap.
    await putConnection('live', { max_changes_per_day: DEFAULT_SAFETY.max_changes_per_day });
  });
});

describe('the bounds at each push attempt', () => {
  it('does not send a price a floor raised between two attempts puts out of bounds', async () => {
    const product = products()[1]!;
    const target = product.own.selling_price - 2;
    const ref = await pin(product, target);
    const at = advance();
    let posts = 0;
    // The first attempt meets a short 429; before the retry, the client raises the floor over the price.
    const spy = standIn(async (request) => {
      if (!isBatchPost(request) || ++posts > 1) return undefined;
      await patchRepricer(product, { preferred_price: target + 1, preferred_profit: 0 });
      return rateLimited(0);
    });
    await sendAt([ref], at);
    spy.mockRestore();
    expect(received(product)).toEqual([]);
    expect(await statusOf(ref)).toMatchObject({ status: 'failed', status_reason: expect.stringMatching(/min_price/) as unknown });
    // The decision the raised floor made goes on.
    await api.settle();
    const next = await pendingOf(product);
    expect(next).toHaveLength(1);
    await sendAt(next, at + 60_000);
    expect(received(product)).toEqual([target + 1]);
  });
});

describe('a push in doubt', () => {
  it('is never pushed again after a timeout: it is confirmed from the offer once the doubt wait has passed', async () => {
    const product = products()[2]!;
    const target = product.own.selling_price - 2;
    const ref = await pin(product, target);
    const at = advance();
    const postsBefore = batchPosts();
    // The marketplace takes the batch; its answer never reaches the sender.
    const spy = standIn(async (request) => {
      if (!isBatchPost(request)) return undefined;
      await (await request.forward()).text();
      throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    });
    await sendAt([ref], at);
    spy.mockRestore();
    expect(batchPosts()).toBe(postsBefore + 1);
    const doubtful = await readSendable(clientId, ref);
    expect(doubtful?.stored.record.status).toBe('pending');
    expect(doubtful?.pushToken).toBeDefined();
    expect(doubtful?.pushPrice).toBe(target);
    await new Promise((resolve) => setTimeout(resolve, 300));
    market.control.settleBatches();
    // Inside the doubt wait: nothing is done. After it: the offer shows the price, so it was sent.
    await sendAt([ref], at + 60_000);
    expect(batchPosts()).toBe(postsBefore + 1);
    await sendAt([ref], at + 30 * 60_000);
    expect(await statusOf(ref)).toMatchObject({ status: 'applied', sent_price: target });
    expect(batchPosts()).toBe(postsBefore + 1);
    expect(received(product)).toEqual([target]);
    expect((await readSendable(clientId, ref))?.pushToken).toBeUndefined();
  });

  it('after a 5xx is pushed again with the same price within seconds; still failing, the same price goes at its next try, seconds later', async () => {
    const product = products()[8]!;
    const target = product.own.selling_price - 2;
    const ref = await pin(product, target);
    const at = advance();
    const postsBefore = batchPosts();
    market.control.setFaults({ errorRate: 1 });
    await sendAt([ref], at, withoutRepushWaits(at));
    market.control.setFaults({ errorRate: 0 });
    // The push and three more of the same price, a few seconds apart.
    expect(batchPosts()).toBe(postsBefore + 4);
    const doubtful = await readSendable(clientId, ref);
    expect(doubtful).toMatchObject({ stored: { record: { status: 'pending' } }, pushPrice: target, attempts: 1 });
    expect(Date.parse(doubtful!.retryAt!) - at).toBeLessThanOrEqual(10_000);
    // Seconds later, not minutes: the offer does not show it, and the same price goes again.
    await sendAt([ref], at + 10_000);
    expect(await statusOf(ref)).toMatchObject({ status: 'applied', sent_price: target });
    expect(batchPosts()).toBe(postsBefore + 5);
    expect(received(product)).toEqual([target]);
  });

  it('holds a different price for the offer back until the push in doubt is told', async () => {
    const product = products()[0]!;
    const first = product.own.selling_price - 3;
    const ref = await pin(product, first);
    const at = advance();
    const before = received(product).length;
    market.control.setFaults({ errorRate: 1 });
    await sendAt([ref], at, withoutRepushWaits(at));
    market.control.setFaults({ errorRate: 0 });
    expect((await readSendable(clientId, ref))?.pushToken).toBeDefined();
    // A new decision for the offer, at another price, while the first push is in doubt.
    await patchRepricer(product, { preferred_price: first - 1, preferred_profit: 0 });
    const next = (await pendingOf(product)).filter((other) => other.sk !== ref.sk);
    expect(next).toHaveLength(1);
    const postsBefore = batchPosts();
    await sendAt([ref, ...next], at + 10_000);
    await sendAt([ref, ...next], at + 20_000);
    expect(batchPosts()).toBe(postsBefore);
    // Told once the doubt wait has passed (the offer never got it): the first is superseded, the new price goes.
    await sendAt([ref, ...next], at + 4 * 60_000);
    await sendAt(next, at + 4 * 60_000 + 1_000);
    expect((await statusOf(ref))?.status).toBe('superseded');
    expect(await statusOf(next[0]!)).toMatchObject({ status: 'applied', sent_price: first - 1 });
    expect(received(product).slice(before)).toEqual([first - 1]);
  });

  it('whose run stopped after the marketplace gave its batch is told from the batch, without reading the offer or pushing again', async () => {
    const product = products()[9]!;
    const target = product.own.selling_price - 2;
    const ref = await pin(product, target);
    const at = advance();
    const offerReads = () => market.control.traffic().requests['GET /offers/{offer_id}'] ?? 0;
    // The run stops at its first wait for the batch's status.
    const stopping: PushDeps = { ...deps(at), sleep: () => Promise.reject(new Error('the sender stopped')) };
    await expect(sendAt([ref], at, stopping)).rejects.toThrow('the sender stopped');
    expect((await readSendable(clientId, ref))?.pushToken).toBeDefined();
    await new Promise((resolve) => setTimeout(resolve, 300));
    market.control.settleBatches();
    const [readsBefore, postsBefore] = [offerReads(), batchPosts()];
    await sendAt([ref], at + 10 * 60_000);
    expect(await statusOf(ref)).toMatchObject({ status: 'applied', sent_price: target });
    expect([offerReads(), batchPosts()]).toEqual([readsBefore, postsBefore]);
    expect(received(product)).toEqual([target]);
  });
});

describe('an offer the marketplace no longer has', () => {
  it('fails only its own change (a 404 for the batch); the batch’s other prices go', async () => {
    const [gone, kept] = [products()[3]!, products()[4]!];
    const goneRef = await pin(gone, gone.own.selling_price - 2);
    const keptTarget = kept.own.selling_price - 2;
    const keptRef = await pin(kept, keptTarget);
    const at = advance();
    // The marketplace answers 404 for any push that carries the gone offer, and for the offer itself.
    const spy = standIn(async (request) =>
      (isBatchPost(request) && request.body.includes(`"offer_id":${gone.own.offer_id},`)) ||
      (request.method === 'GET' && new URL(request.url).pathname.endsWith(`/offers/${gone.own.offer_id}`))
        ? json(404, { message: 'Offer not found' })
        : undefined,
    );
    await sendAt([goneRef, keptRef], at);
    spy.mockRestore();
    expect(await statusOf(goneRef)).toMatchObject({ status: 'failed', status_reason: 'The marketplace no longer has this offer.' });
    expect(await statusOf(keptRef)).toMatchObject({ status: 'applied', sent_price: keptTarget });
    expect(received(kept)).toEqual([keptTarget]);
    expect(received(gone)).toEqual([]);
  });

  it('fails no change for a 404 about something else than the offer (the offer is there): the push is tried again later', async () => {
    const product = products()[10]!;
    const target = product.own.selling_price - 2;
    const ref = await pin(product, target);
    const at = advance();
    const spy = standIn(async (request) => (isBatchPost(request) ? json(404, { message: 'Not found' }) : undefined));
    await sendAt([ref], at);
    spy.mockRestore();
    const waiting = await readSendable(clientId, ref);
    expect(waiting).toMatchObject({ stored: { record: { status: 'pending' } }, attempts: 1 });
    expect(waiting?.pushToken).toBeUndefined();
    await sendAt([ref], at + 10 * 60_000);
    expect(await statusOf(ref)).toMatchObject({ status: 'applied', sent_price: target });
    expect(received(product)).toEqual([target]);
  });
});

describe('a batch refused whole (400) for one of its prices', () => {
  it('fails only the refused price, with the marketplace message; the batch’s other prices go', async () => {
    const [refused, kept] = [products()[11]!, products()[12]!];
    const refusedRef = await pin(refused, refused.own.selling_price - 2);
    const keptTarget = kept.own.selling_price - 2;
    const keptRef = await pin(kept, keptTarget);
    const at = advance();
    const spy = standIn(async (request) =>
      isBatchPost(request) && request.body.includes(`"offer_id":${refused.own.offer_id},`) ? json(400, { message: 'selling_price is not allowed' }) : undefined,
    );
    await sendAt([refusedRef, keptRef], at);
    spy.mockRestore();
    expect(await statusOf(refusedRef)).toMatchObject({ status: 'failed', status_reason: expect.stringMatching(/selling_price is not allowed/) as unknown });
    expect(await statusOf(keptRef)).toMatchObject({ status: 'applied', sent_price: keptTarget });
  });
});

describe('a target that ended for a reason of the connection', () => {
  it('is decided again once its repricer, disabled before the push, is enabled again', async () => {
    const product = products()[5]!;
    const target = product.own.selling_price - 2;
    const ref = await pin(product, target);
    const first = (await statusOf(ref))!;
    await patchRepricer(product, { enabled: false });
    const at = advance();
    await sendAt([ref], at);
    expect((await statusOf(ref))?.status).toBe('superseded');
    await patchRepricer(product, { enabled: true });
    const again = (await priceChangesOf(product)).filter((change) => change.id > first.id);
    expect(again).toMatchObject([{ status: 'pending', new_price: target }]);
    await sendAt(await pendingOf(product), at + 60_000);
    expect(received(product)).toEqual([target]);
    // The first decision's end, told again, does not forget the later one.
    expect(await forgetDecision(clientId, first, ref.sk)).toBe(false);
    expect(await evaluateProduct(clientId, product.own.sku, RETENTION_DAYS)).toEqual([]);
  });

  it('turned back by the kill switch, is decided again: as a suggestion in suggest mode, then sent once the connection is live', async () => {
    const product = products()[6]!;
    const target = product.own.selling_price - 2;
    const ref = await pin(product, target);
    await putConnection('suggest');
    const at = advance();
    await sendAt([ref], at);
    expect((await statusOf(ref))?.status).toBe('suggested');
    expect(await evaluateProduct(clientId, product.own.sku, RETENTION_DAYS)).toMatchObject([{ status: 'suggested', new_price: target }]);
    // A suggestion does not stand for a live decision.
    await putConnection('live');
    expect(await evaluateProduct(clientId, product.own.sku, RETENTION_DAYS)).toMatchObject([{ status: 'pending', new_price: target }]);
    await api.settle();
    await sendAt(await pendingOf(product), at + 60_000);
    expect(received(product)).toEqual([target]);
  });
  it('failed because the marketplace could not be reached for 24 hours, is decided again once it can be', async () => {
    const product = products()[7]!;
    const target = product.own.selling_price - 2;
    const ref = await pin(product, target);
    const at = advance();
    market.control.setFaults({ errorRate: 1 });
    await sendAt([ref], at, withoutRepushWaits(at));
    market.control.setFaults({ errorRate: 0 });
    expect(received(product)).toEqual([]);
    // A day on, the push's doubt told (the offer never got it), the change has waited its whole retry window.
    await sendAt([ref], at + 25 * HOUR);
    expect(await statusOf(ref)).toMatchObject({ status: 'failed', status_reason: 'The marketplace could not be reached for 24 hours.' });
    expect(await evaluateProduct(clientId, product.own.sku, RETENTION_DAYS)).toMatchObject([{ status: 'pending', new_price: target }]);
    // Decided now, on the real clock (a day on, for the sender under test, it would be a day old): sent on it.
    await setSellerApiHold(clientId, 'takealot', iso(0));
    await api.settle();
    await sendAt(await pendingOf(product), Date.now());
    await holdRuntimeSender();
    expect(received(product)).toEqual([target]);
  });
});

describe('one seller-API hold for the connection', () => {
  it('holds the sync worker’s own-offer sync while in force, and a 429 the sync meets sets it', async () => {
    const { uid } = (await api.request<Connection>('GET', '/v1/connections/takealot', { auth: alice })).body;
    const listed = () => market.control.traffic().requests['GET /offers'] ?? 0;
    // A full sync asked for: the next tick would list every offer, but the hold (the runtime sender's, in force) stops it.
    expect((await api.request('POST', '/v1/connections/takealot/sync', { auth: alice })).status).toBe(202);
    const before = listed();
    expect((await loop.tick({ uids: [uid] })).syncFailures).toBe(0);
    expect(listed()).toBe(before);
    // Lifted: the sync meets a 429 with a Retry-After longer than it waits, and holds the seller API for the sender too.
    await setSellerApiHold(clientId, 'takealot', iso(0));
    const start = Date.now();
    const spy = standIn(async (request) => (request.method === 'GET' && /\/offers\?/.test(request.url) ? rateLimited(120) : undefined));
    expect((await loop.tick({ uids: [uid] })).syncFailures).toBe(0);
    spy.mockRestore();
    const hold = await sellerApiHoldOf(clientId, 'takealot');
    expect(Date.parse(hold ?? '')).toBeGreaterThanOrEqual(start + 119_000);
    await holdRuntimeSender();
  });
});
