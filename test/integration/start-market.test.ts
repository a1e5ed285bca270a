/**
 * `npm start`'s market steps (tools/local/start-market.ts) against a marketplace simulator and
 * the local API: the demo client is connected in live mode with the simulator's webhooks
 * pointing at its connection; once its own offers are synced, the market repricers are created
 * on them through the same use case as POST /v1/repricers/.
 */
import { TAKEALOT_SELLER_API_URL_ENV, TAKEALOT_STOREFRONT_URL_ENV, marketplaceFor } from '../../lambdas/marketplace/registry.js';
import { connectDemoClient, readMarketState, waitForSyncedOffers } from '../../tools/local/demo-connection.js';
import { DEMO_CONNECTOR, DEMO_SELLER_ID, demoConnectorTypeRecords } from '../../tools/local/demo-data.js';
import { demoMarketRepricers } from '../../tools/local/demo-market.js';
import { ensureMarketRepricers } from '../../tools/local/demo-repricers.js';
import { createMarketSimulator, type MarketSimulator } from '../../tools/market/index.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { step } from '../support/story.js';

type Connection = { uid: string; mode: string; status: string; connector: string; webhook_secret_set: boolean };
type Repricer = { product: { code: string }; connector_type: { uid: string }; enabled: boolean; min_price: number; preferred_price: number };

const auth: [string, string] = ['demo-start-market', 'demo-start-market-password-1'];
let market: MarketSimulator;
let api: TestApi;
let clientId: string;

beforeAll(async () => {
  market = await createMarketSimulator({ port: 0, seed: 1, products: 8, competitors: 3, tickIntervalMs: 0, sellerId: DEMO_SELLER_ID });
  process.env[TAKEALOT_SELLER_API_URL_ENV] = market.sellerApiUrl;
  process.env[TAKEALOT_STOREFRONT_URL_ENV] = market.storefrontUrl;
  api = await startTestApi();
  clientId = (await api.createClient(auth[0], { password: auth[1], sellerId: DEMO_SELLER_ID, connector: DEMO_CONNECTOR })).clientId;
  await api.importRecords(auth[0], demoConnectorTypeRecords());
}, 60_000);

afterAll(async () => {
  await api?.close();
  await market?.stop();
  delete process.env[TAKEALOT_SELLER_API_URL_ENV];
  delete process.env[TAKEALOT_STOREFRONT_URL_ENV];
});

const connect = () =>
  connectDemoClient({
    apiUrl: api.baseUrl,
    auth,
    apiKey: market.apiKey,
    webhookSecret: market.webhookSecret,
    sellerId: market.options.sellerId,
    setWebhookUrl: (url) => market.setWebhookUrl(url),
    webhookApiUrl: api.baseUrl,
  });

describe("npm start's market steps", () => {
  it('connect the demo client in live mode, point the webhooks at it, and reprice its synced offers', async () => {
    let uid = '';
    await step('connects in live mode, and the simulator sends its webhooks to the connection', async () => {
      expect(market.simulation.webhooks.targetUrl()).toBeUndefined();
      const { connection, webhookUrl } = await connect();
      uid = connection.uid;
      const stored = await api.request<Connection>('GET', '/v1/connections/takealot', { auth });
      expect(stored.status).toBe(200);
      expect(stored.body).toMatchObject({ connector: 'takealot', uid, mode: 'live', status: 'connected', webhook_secret_set: true });
      expect(webhookUrl).toBe(`${api.baseUrl}/v1/marketplace-events/${uid}`);
      expect(market.simulation.webhooks.targetUrl()).toBe(webhookUrl);
    });

    await step('a second start replaces the key and keeps the uid the webhooks point at', async () => {
      const again = await connect();
      expect(again.connection.uid).toBe(uid);
      expect(market.simulation.webhooks.targetUrl()).toBe(`${api.baseUrl}/v1/marketplace-events/${uid}`);
    });

    await step('after the own offers are synced, creates enabled takealot repricers with a floor under and a ceiling at or over each price', async () => {
      // The own-offer sync's writes, as the sync worker makes them (the adapter over the simulator).
      const lookup = marketplaceFor('takealot');
      if (lookup.kind !== 'adapter') throw new Error('the registry should see the simulator');
      const page = await lookup.port.listOwnOffers(market.apiKey);
      const { applyOwnOffers } = await import('../../lambdas/market/market-sync.js');
      await applyOwnOffers(clientId, { uid: 'takealot', sellerId: DEMO_SELLER_ID, storefrontUrl: market.storefrontUrl }, page.offers);
      await api.settle();

      const state = (await readMarketState(market.url))!;
      const codes = new Set(state.products.map((p) => p.own.sku));
      const synced = await waitForSyncedOffers({ apiUrl: api.baseUrl, auth, codes, timeoutMs: 10_000, intervalMs: 200 });
      expect(synced).toEqual(codes);

      const requests = demoMarketRepricers(state, synced);
      expect(requests.length).toBeGreaterThan(0);
      expect((await ensureMarketRepricers(auth[0], requests)).created).toBe(requests.length);
      expect((await ensureMarketRepricers(auth[0], requests)).created).toBe(0);

      const listed = await api.request<{ repricers: Repricer[] }>('GET', '/v1/repricers?_limit=100', { auth });
      expect(listed.body.repricers.map((r) => r.product.code).sort()).toEqual(requests.map((r) => r.product_code).sort());
      for (const repricer of listed.body.repricers) {
        const own = state.products.find((p) => p.own.sku === repricer.product.code)!.own;
        expect(repricer).toMatchObject({ enabled: true, connector_type: { uid: 'takealot' } });
        expect(repricer.min_price).toBeLessThan(own.selling_price);
        expect(repricer.preferred_price).toBeGreaterThanOrEqual(own.selling_price);
        expect(repricer.preferred_price).toBeLessThanOrEqual(own.rrp);
      }
    });
  });
});
