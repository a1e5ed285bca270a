/**
 * A storefront page that comes back without a buy box (`{}`, the reported empty 200) is read
 * again after a short wait (docs/market-loop.md, "Storefront pages"), a few times at most, each
 * through the reader's pace and the host's hold: a passing blank costs the product seconds, not a
 * whole tier, and a page that stays blank leaves the market honestly unknown.
 */
import { MARKET_SYNC } from '../../lambdas/config/market-sync.js';
import type { MarketSimulator } from '../../tools/market/index.js';
import { connectorRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { marketHarness } from '../support/market-harness.js';
import { captureOutput } from '../support/output-capture.js';
import { sqsEventOf } from '../support/sqs-events.js';
import { step } from '../support/story.js';
import { startTestMarket, stopTestMarket } from '../support/test-market.js';

const captured = captureOutput();
const alice: [string, string] = ['blank-alice', 'blank-alice-password-1'];
let market: MarketSimulator;
let api: TestApi;
let clientId: string;
let loop: ReturnType<typeof marketHarness>;

/** Each product's market as the reader recorded it. */
const markets = async () => {
  const { readProductForRepricing } = await import('../../lambdas/data/repricing/inputs.js');
  return Promise.all(
    market.simulation.market.products.map(async (product) => (await readProductForRepricing(clientId, product.own.sku))?.markets.get('takealot')),
  );
};
/** The reads held back, handed to the reader again as SQS would once their wait ends: delivered once more. */
const redeliver = async (receiveCount: number) => {
  const again = loop.held.splice(0).map(({ record }) => ({
    groupId: record.attributes.MessageGroupId ?? record.messageId,
    deduplicationId: record.attributes.MessageDeduplicationId ?? record.messageId,
    body: record.body,
  }));
  await loop.reader(sqsEventOf(again, receiveCount));
  await api.settle();
  return again.length;
};
const pagesRead = () => market.control.traffic().politeness.storefront.requests;

beforeAll(async () => {
  captured.start();
  market = await startTestMarket({ seed: 5, products: 3, competitors: 2 });
  api = await startTestApi();
  clientId = (await api.createClient(alice[0], { password: alice[1] })).clientId;
  await api.importRecords(alice[0], [connectorRecord('takealot')]);
  const put = await api.request('PUT', '/v1/connections/takealot', {
    auth: alice,
    body: { api_key: market.apiKey, mode: 'suggest', seller_id: market.options.sellerId },
  });
  expect(put.status).toBe(201);
  loop = marketHarness(api);
}, 120_000);

afterAll(async () => {
  captured.stop();
  await api?.close();
  await stopTestMarket(market);
});

it('reads a blank page again after a short wait, a bounded number of times', async () => {
  await step('every page blank: each read is held back for a short wait, and the market is unknown meanwhile', async () => {
    market.control.setShapes({ emptyPageRate: 1 });
    expect((await api.request('POST', '/v1/connections/takealot/sync', { auth: alice })).status).toBe(202);
    const { reads } = await loop.tick();
    expect(reads).toBe(3);
    expect(loop.held).toHaveLength(3);
    expect(loop.held.map((held) => held.delayMs)).toEqual([1, 2, 3].map(() => MARKET_SYNC.emptyPageRereadMs));
    expect((await markets()).map((state) => state && [state.state, state.state === 'unknown' ? state.reason : null])).toEqual(
      [1, 2, 3].map(() => ['unknown', 'empty_page']),
    );
  });
  await step('still blank at the second read: held again, twice as long', async () => {
    expect(await redeliver(2)).toBe(3);
    expect(loop.held.map((held) => held.delayMs)).toEqual([1, 2, 3].map(() => MARKET_SYNC.emptyPageRereadMs * 2));
  });
  await step('blank at the last read allowed: no more tries, the market stays unknown until its tier reads it again', async () => {
    const before = pagesRead();
    await redeliver(MARKET_SYNC.emptyPageRereads + 1);
    expect(pagesRead() - before).toBe(3);
    expect(loop.held).toEqual([]);
    expect((await markets()).every((state) => state?.state === 'unknown')).toBe(true);
  });
  await step('a blank that passes: the read held back shows the buy box, and the market is known again', async () => {
    expect((await api.request('POST', '/v1/connections/takealot/sync', { auth: alice })).status).toBe(202);
    await loop.tick();
    expect(loop.held).toHaveLength(3);
    market.control.setShapes({ emptyPageRate: 0 });
    await redeliver(2);
    expect(loop.held).toEqual([]);
    expect((await markets()).map((state) => state?.state)).toEqual(['known', 'known', 'known']);
  });
});
