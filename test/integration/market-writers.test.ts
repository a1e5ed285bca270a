/**
 * The marketplace's own word on an own offer, against the simulator on 127.0.0.1, through the
 * real sync worker, storefront reader, evaluator and sender (docs/market-sync.md, "Writes"):
 * each writer of an own offer writes only from the copy it read, so a page read that began
 * before a sync never puts back what the sync saw; a price the marketplace shows that differs
 * from the one the service believes live ends that belief, and the offer is decided and pushed
 * again; and a sync keeps the product's stock current.
 */
import { defaultPushDeps, sweepConnection } from '../../lambdas/functions/send-prices/worker.js';
import { changesInStatus } from '../../lambdas/data/price-changes/sending.js';
import { forgetConnectionModes } from '../../lambdas/data/connections/mode.js';
import { pageReadMessage } from '../../lambdas/read-planning/plan-reads.js';
import { marketSyncWorker } from '../../lambdas/functions/sync-market/sync.js';
import { storefrontReader } from '../../lambdas/functions/read-storefront/read.js';
import type { MarketSyncMessage } from '../../lambdas/events/market-sync.js';
import type { PriceChange } from '../../lambdas/domain/records.js';
import type { MarketSimulator } from '../../tools/market/index.js';
import type { Product as MarketProduct } from '../../tools/market/catalogue.js';
import { connectorRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { marketHarness } from '../support/market-harness.js';
import { captureOutput } from '../support/output-capture.js';
import { sqsEventOf } from '../support/sqs-events.js';
import { step } from '../support/story.js';
import { startTestMarket, stopTestMarket } from '../support/test-market.js';

type Connection = { uid: string; status: string };
type Page = { price_changes: PriceChange[] };

const captured = captureOutput();
const alice: [string, string] = ['writers-alice', 'writers-alice-password-1'];
let market: MarketSimulator;
let api: TestApi;
let clientId: string;
let uid: string;
let loop: ReturnType<typeof marketHarness>;
let partitions: typeof import('../../lambdas/data/repricing/inputs.js');

const products = (): readonly MarketProduct[] => market.simulation.market.products;
const requestFullSync = async () => expect((await api.request('POST', '/v1/connections/takealot/sync', { auth: alice })).status).toBe(202);
const tickMessage = (): MarketSyncMessage => ({ kind: 'tick', uid, at: new Date(api.clock.now()).toISOString() });
const ownOffer = async (code: string) => (await partitions.readProductForRepricing(clientId, code))!.offers.find((offer) => offer.scope === 'own')!;
/** Every rival of the product at one price, in stock and on the page, as bots would have them. */
const moveRivals = (product: MarketProduct, price: number) => {
  for (const competitor of product.competitors) Object.assign(competitor, { price, in_stock: true, available: true });
};

/**
 * A test seam outside the code under test: a middleware on the SDK client the data layer shares.
 * Armed, it runs `between` right after the first response of the table that carries the named
 * item (the moment a writer has read it), before that writer goes on.
 */
let armed: { readonly sk: string; readonly between: () => Promise<void> } | undefined;
let fired = 0;
const interleave = (sk: string, between: () => Promise<void>) => {
  armed = { sk, between };
};

/** Waits for the sender: until nothing of the connection is pending or sent (or two minutes). */
const drained = async () => {
  const until = Date.now() + 120_000;
  for (;;) {
    await api.settle();
    const moving = (await changesInStatus(clientId, 'takealot', 'sent', 100)).length + (await changesInStatus(clientId, 'takealot', 'pending', 100)).length;
    if (moving === 0 || Date.now() > until) return;
    await sweepConnection(clientId, 'takealot', defaultPushDeps);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};
const changesOf = async (offerId: string): Promise<PriceChange[]> => {
  const page = await api.request<Page>('GET', '/v1/price-changes?_limit=100', { auth: alice });
  expect(page.status).toBe(200);
  return page.body.price_changes.filter((change) => change.offer_id === offerId).sort((a, b) => a.id - b.id);
};
/** Only the own-offer sync of a tick (the seller API), its page reads dropped: what the sync alone sees. */
const syncOnly = async () => {
  await requestFullSync();
  const result = await marketSyncWorker({})(sqsEventOf([{ groupId: uid, deduplicationId: `sync-${Date.now()}`, body: JSON.stringify(tickMessage()) }]));
  expect(result.batchItemFailures).toEqual([]);
};

beforeAll(async () => {
  if (!process.env.SHOW_LOGS) captured.start();
  market = await startTestMarket({ seed: 31, products: 3, competitors: 2, batchDelayMs: 50 });
  api = await startTestApi();
  clientId = (await api.createClient(alice[0], { password: alice[1] })).clientId;
  await api.importRecords(alice[0], [connectorRecord('takealot')]);
  const put = await api.request<Connection>('PUT', '/v1/connections/takealot', {
    auth: alice,
    body: { api_key: market.apiKey, mode: 'live', seller_id: market.options.sellerId },
  });
  expect(put.status).toBe(201);
  uid = put.body.uid;
  forgetConnectionModes();
  partitions = await import('../../lambdas/data/repricing/inputs.js');
  const { documentClient } = await import('../../lambdas/data/table/dynamo.js');
  documentClient.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const hook = armed;
      if (hook && JSON.stringify(result.output).includes(`"${hook.sk}"`)) {
        armed = undefined;
        fired++;
        await hook.between();
      }
      return result;
    },
    { step: 'initialize', name: 'interleaveForTest' },
  );
  loop = marketHarness(api);
  await loop.tick();
}, 120_000);

afterAll(async () => {
  captured.stop();
  await api?.close();
  await stopTestMarket(market);
});

it("loses nothing when a page read and a sync interleave: the sync's price stays, the page's buy box is written", async () => {
  const product = products()[0]!;
  const code = product.own.sku;
  const offerId = String(product.own.offer_id);
  const before = await ownOffer(code);
  const rivals = product.own.selling_price - 20;
  const seen = product.own.selling_price - 3;
  moveRivals(product, rivals);
  await requestFullSync();
  let syncStarted = '';
  // The reader has read the offer (and the page showing the rivals' move); before it writes, the seller
  // changes the price and the own-offer sync runs from start to end.
  interleave(`O#${offerId}`, async () => {
    product.own.selling_price = seen;
    syncStarted = new Date(api.clock.now()).toISOString();
    const result = await marketSyncWorker({})(
      sqsEventOf([{ groupId: uid, deduplicationId: `interleaved-${Date.now()}`, body: JSON.stringify(tickMessage()) }]),
    );
    expect(result.batchItemFailures).toEqual([]);
  });
  const reader = storefrontReader(() => Promise.resolve(), { stageRequestsPerSecond: 200 });
  const read = await reader(sqsEventOf([pageReadMessage('takealot', String(product.own.productline_id), 0, new Date(api.clock.now()).toISOString())]));
  expect(read.batchItemFailures).toEqual([]);
  expect(fired).toBe(1);

  const after = await ownOffer(code);
  // The sync's price, stamped with the sync's look, not put back to the copy the reader read first.
  expect(before.fields.offer_price).not.toBe(seen);
  expect(after.fields.offer_price).toBe(seen);
  expect(after.price_at! >= syncStarted).toBe(true);
  // And the page's buy box: the rivals at `rivals` hold Best Price.
  expect([after.fields.winning, after.fields.winning_price]).toEqual([false, rivals]);
});

it('takes the marketplace as the truth: a price the seller set back by hand is seen by a sync, decided again and pushed again', async () => {
  const product = products()[1]!;
  const code = product.own.sku;
  const offerId = String(product.own.offer_id);
  const start = product.own.selling_price;
  const target = start - 6;

  await step('the repricer undercuts rivals at start - 5 and the push is applied', async () => {
    moveRivals(product, start - 5);
    const created = await api.request<{ id: number }>('POST', '/v1/repricers', {
      auth: alice,
      body: { product_code: code, preferred_price: Math.min(product.own.rrp, start + 10), preferred_profit: 20, connector: 'takealot', enabled: true },
    });
    expect(created.status).toBe(201);
    await requestFullSync();
    await loop.tick({ uids: [uid] });
    await drained();
    expect(product.own.selling_price).toBe(target);
    expect((await changesOf(offerId)).at(-1)).toMatchObject({ new_price: target, status: 'applied' });
  });

  await step('a sync that sees the price applied changes nothing', async () => {
    const count = (await changesOf(offerId)).length;
    await syncOnly();
    await drained();
    expect((await ownOffer(code)).fields.offer_price).toBe(target);
    expect(await changesOf(offerId)).toHaveLength(count);
  });

  for (const round of [1, 2]) {
    await step(`the seller sets the price back by hand (${round}): the next sync sees it, and the same target is decided and pushed again`, async () => {
      const count = (await changesOf(offerId)).length;
      product.own.selling_price = start;
      await syncOnly();
      expect((await ownOffer(code)).fields.offer_price).toBe(start);
      await drained();
      const changes = await changesOf(offerId);
      expect(changes.length).toBeGreaterThan(count);
      expect(changes.at(-1)).toMatchObject({ new_price: target, old_price: start, status: 'applied' });
      expect(product.own.selling_price).toBe(target);
    });
  }

  await step('set back once more, and seen by a page read alone (no sync): the page records it, and it is decided and pushed again', async () => {
    const count = (await changesOf(offerId)).length;
    product.own.selling_price = start;
    const reader = storefrontReader(() => Promise.resolve(), { stageRequestsPerSecond: 200 });
    await reader(sqsEventOf([pageReadMessage('takealot', String(product.own.productline_id), 0, new Date(api.clock.now()).toISOString())]));
    expect((await ownOffer(code)).fields.offer_price).toBe(start);
    await drained();
    const changes = await changesOf(offerId);
    expect(changes.length).toBeGreaterThan(count);
    expect(changes.at(-1)).toMatchObject({ new_price: target, old_price: start, status: 'applied' });
    expect(product.own.selling_price).toBe(target);
  });
});
