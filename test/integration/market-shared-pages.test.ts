/**
 * Several sellers on one deployment, selling overlapping product lines (the simulator's seller
 * accounts): each storefront page is read once per look for every tenant that sells it, and each
 * tenant's view of it is its own, found by its own seller id.
 */
import type { Connection } from '../../lambdas/domain/connections.js';
import type { Offer, OffersPage } from '../../lambdas/domain/records.js';
import type { MarketSimulator } from '../../tools/market/index.js';
import { connectorRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { marketHarness } from '../support/market-harness.js';
import { captureOutput } from '../support/output-capture.js';
import { startTestMarket, stopTestMarket } from '../support/test-market.js';

const PRODUCTS = 12;
const SELLERS = 3;

let market: MarketSimulator;
let api: TestApi;
let loop: ReturnType<typeof marketHarness>;
const captured = captureOutput();
const tenants: { auth: [string, string]; sellerId: string; clientId: string }[] = [];

const offersOf = async (auth: [string, string]): Promise<Offer[]> => {
  const response = await api.request<OffersPage>('GET', '/v1/offers?_include_other_offers=true&_limit=100', { auth });
  expect(response.status).toBe(200);
  return response.body.offers;
};

/** The reads the simulator answered per product line, in total so far. */
const readsPerLine = (): Map<string, number> => new Map(Object.entries(market.control.reads().products).map(([line, times]) => [line, times.length]));

beforeAll(async () => {
  captured.start();
  market = await startTestMarket({ seed: 23, products: PRODUCTS, competitors: 2, sellers: SELLERS, sellersPerProduct: SELLERS });
  api = await startTestApi();
  for (const [n, seller] of market.sellers.entries()) {
    const auth: [string, string] = [`shared-${n}`, `shared-${n}-password-1`];
    const clientId = (await api.createClient(auth[0], { password: auth[1] })).clientId;
    await api.importRecords(auth[0], [connectorRecord('takealot')]);
    const put = await api.request<Connection>('PUT', '/v1/connections/takealot', {
      auth,
      body: { api_key: seller.apiKey, webhook_secret: market.webhookSecret, mode: 'suggest', seller_id: seller.sellerId },
    });
    expect(put.status).toBe(201);
    tenants.push({ auth, sellerId: seller.sellerId, clientId });
  }
  loop = marketHarness(api);
}, 120_000);

afterAll(async () => {
  captured.stop();
  await api?.close();
  await stopTestMarket(market);
});

describe('pages shared by several sellers', () => {
  it('reads each page once per look for every tenant selling it, and gives each tenant its own view of it', async () => {
    const shared = market.simulation.market.products.filter((product) => (product.accounts ?? []).length > 0);
    expect(shared.length).toBeGreaterThan(0);

    // Act: the first tick syncs every tenant and looks at every page; the second looks again.
    const before = readsPerLine();
    const first = await loop.tick();
    const afterFirst = readsPerLine();
    const second = await loop.tick();
    const afterSecond = readsPerLine();

    // Assert: one read per product line per look, however many tenants sell it.
    expect(first.syncFailures).toBe(0);
    expect(first.reads).toBe(PRODUCTS);
    expect(second.reads).toBe(PRODUCTS);
    for (const product of market.simulation.market.products) {
      const line = String(product.plid);
      expect([line, (afterFirst.get(line) ?? 0) - (before.get(line) ?? 0)]).toEqual([line, 1]);
      expect([line, (afterSecond.get(line) ?? 0) - (afterFirst.get(line) ?? 0)]).toEqual([line, 1]);
    }

    // Each tenant's own offers are its account's, found on the shared page by its own seller id.
    const views = await Promise.all(tenants.map(async (tenant) => ({ tenant, offers: await offersOf(tenant.auth) })));
    for (const { tenant, offers } of views) {
      const own = offers.filter((offer) => offer.seller_id === tenant.sellerId);
      expect(own.length).toBeGreaterThan(0);
      const ownCodes = new Set(own.map((offer) => offer.product.code));
      // A rival tenant's offer on a page both sell is a competitor here: its seller id is not this tenant's.
      const others = tenants.filter((other) => other !== tenant).map((other) => other.sellerId);
      const rivalsSeen = offers.filter((offer) => others.includes(offer.seller_id) && ownCodes.has(offer.product.code));
      for (const rival of rivalsSeen) expect(rival.seller_id).not.toBe(tenant.sellerId);
      // Nothing of another tenant's own records (its SKUs, its seller-API offer ids) is in this tenant's products.
      for (const other of views.filter((view) => view.tenant !== tenant)) {
        const theirOwnIds = new Set(other.offers.filter((offer) => offer.seller_id === other.tenant.sellerId).map((offer) => offer.offer_id));
        expect(own.filter((offer) => theirOwnIds.has(offer.offer_id))).toEqual([]);
      }
    }
    // Some page is shared, and both of its tenants saw their own offers and each other's on it.
    const sharedSeen = views.some(({ tenant, offers }) =>
      offers.some((offer) => offer.seller_id !== tenant.sellerId && tenants.some((t) => t.sellerId === offer.seller_id)),
    );
    expect(sharedSeen).toBe(true);
  });
});
