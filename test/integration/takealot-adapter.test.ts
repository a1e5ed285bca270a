/**
 * The Takealot adapter against the marketplace simulator over real HTTP on 127.0.0.1: every own
 * offer through continuation tokens, a product page with its buy-box slots, a price batch read
 * to success, and each fault mapped to the port's error; then every page again with the
 * simulator in all its reported shapes at once.
 */
import {
  MARKETPLACE_ITSELF_SELLER_ID,
  MarketplaceRateLimited,
  MarketplaceUnauthorized,
  MarketplaceUnavailable,
  type OwnOfferSnapshot,
} from '../../lambdas/marketplace/port.js';
import { createTakealotAdapter } from '../../lambdas/marketplace/takealot/adapter.js';
import { createMarketSimulator, REPORTED_SHAPES, type MarketSimulator } from '../../tools/market/index.js';
import { step } from '../support/story.js';

const PRODUCTS = 45;
let market: MarketSimulator;

beforeAll(async () => {
  market = await createMarketSimulator({ port: 0, seed: 7, products: PRODUCTS, competitors: 4, tickIntervalMs: 0, batchDelayMs: 100 });
});

afterAll(async () => market?.stop());

const adapter = (pageSize = 20) =>
  createTakealotAdapter({ sellerApiUrl: market.sellerApiUrl, storefrontUrl: market.storefrontUrl, pageSize, timeoutMs: 2_000 });

const listAll = async (): Promise<OwnOfferSnapshot[]> => {
  const port = adapter();
  const offers: OwnOfferSnapshot[] = [];
  let next: string | undefined;
  for (let page = 0; page < 10; page++) {
    const result = await port.listOwnOffers(market.apiKey, next);
    offers.push(...result.offers);
    expect(result.count).toBe(PRODUCTS);
    next = result.next;
    if (next === undefined) break;
  }
  return offers;
};

describe('the Takealot adapter against the simulator', () => {
  it('talks to the simulator: keys, paging, product pages, batches, and every fault as its typed error', async () => {
    await step('accepts the issued key and refuses another', async () => {
      await expect(adapter().checkKey(market.apiKey)).resolves.toBe('accepted');
      await expect(adapter().checkKey('not-the-key-0000000000')).resolves.toBe('rejected');
    });
    await step('lists every own offer through the continuation tokens, with stock from both warehouses', async () => {
      const offers = await listAll();
      const state = market.simulation.market;
      const own = state.ownOffers();
      expect(offers.map((offer) => offer.offerId)).toEqual(own.map((offer) => String(offer.offer_id)));
      const first = own[0]!;
      const stock = [...first.seller_warehouse_stock, ...first.takealot_warehouse_stock].reduce((sum, entry) => sum + entry.quantity_available, 0);
      expect(offers[0]).toMatchObject({
        sku: first.sku,
        sellingPrice: first.selling_price,
        rrp: first.rrp,
        productLineId: String(first.productline_id),
        stockOnHand: stock,
      });
    });
    await step('reads a product page with exactly one Best Price and one Fastest Delivery holder', async () => {
      const product = market.simulation.market.ownOffers()[0]!;
      const page = await adapter().readProductMarket(String(product.productline_id));
      expect(page.productLineId).toBe(String(product.productline_id));
      expect(page.offers.filter((offer) => offer.bestPrice)).toHaveLength(1);
      expect(page.offers.filter((offer) => offer.fastestDelivery)).toHaveLength(1);
      const box = market.simulation.market.buyBox(market.simulation.market.product(product.productline_id)!);
      const best = page.offers.find((offer) => offer.bestPrice)!;
      expect({ sku: best.sku, price: best.price }).toEqual({ sku: box.bestPrice!.sku, price: box.bestPrice!.price });
      const fastest = page.offers.find((offer) => offer.fastestDelivery)!;
      expect(fastest.sku).toBe(box.fastestDelivery!.sku);
      expect(page.offers.length).toBe(1 + box.others.length + (box.fastestDelivery === box.bestPrice ? 0 : 1));
    });
    await step('sends a batch and reads it until it succeeds', async () => {
      const page = await adapter().listOwnOffers(market.apiKey);
      const target = page.offers[0]!;
      const price = Math.max(1, (target.rrp ?? target.sellingPrice) - 3);
      const { batchId } = await adapter().sendPrices(market.apiKey, [{ offerId: target.offerId, sellingPrice: price }]);
      let status = await adapter().readBatch(market.apiKey, batchId);
      for (let poll = 0; poll < 50 && status.state === 'pending'; poll++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        status = await adapter().readBatch(market.apiKey, batchId);
      }
      expect(status).toMatchObject({ batchId, state: 'succeeded', results: [{ offerId: target.offerId, ok: true }] });
      expect(market.simulation.market.ownOffers().find((own) => String(own.offer_id) === target.offerId)!.selling_price).toBe(price);
    });
    await step('maps a 500 to MarketplaceUnavailable and a 429 to MarketplaceRateLimited with its Retry-After', async () => {
      market.control.setFaults({ errorRate: 1 });
      try {
        await expect(adapter().listOwnOffers(market.apiKey)).rejects.toBeInstanceOf(MarketplaceUnavailable);
        await expect(adapter().readProductMarket(String(market.simulation.market.ownOffers()[0]!.productline_id))).rejects.toBeInstanceOf(
          MarketplaceUnavailable,
        );
      } finally {
        market.control.setFaults({ errorRate: 0 });
      }
      // The storefront's bucket (burst 10) runs dry well within 30 requests.
      const plid = String(market.simulation.market.ownOffers()[1]!.productline_id);
      let limited: unknown;
      for (let request = 0; request < 30 && limited === undefined; request++) {
        limited = await adapter()
          .readProductMarket(plid)
          .then(() => undefined)
          .catch((error: unknown) => error);
      }
      expect(limited).toBeInstanceOf(MarketplaceRateLimited);
      expect((limited as MarketplaceRateLimited).retryAfterMs).toBeGreaterThanOrEqual(1_000);
    });
    await step('maps the seller API’s 429 to MarketplaceRateLimited with its Retry-After, and a hang past the timeout to MarketplaceUnavailable', async () => {
      const strict = await createMarketSimulator({ port: 0, seed: 8, products: 3, tickIntervalMs: 0, sellerRateLimit: { capacity: 2, refillPerSecond: 0.5 } });
      try {
        const port = createTakealotAdapter({ sellerApiUrl: strict.sellerApiUrl, storefrontUrl: strict.storefrontUrl, timeoutMs: 300 });
        const outcomes = [];
        for (let request = 0; request < 3; request++) outcomes.push(await port.listOwnOffers(strict.apiKey).catch((error: unknown) => error));
        expect(outcomes[2]).toBeInstanceOf(MarketplaceRateLimited);
        expect((outcomes[2] as MarketplaceRateLimited).retryAfterMs).toBe(2_000);

        strict.control.setFaults({ timeoutRate: 1, hangMs: 5_000 });
        const started = Date.now();
        await expect(port.readProductMarket(String(strict.simulation.market.ownOffers()[0]!.productline_id))).rejects.toThrow(/no answer within 300 ms/);
        expect(Date.now() - started).toBeLessThan(3_000);
      } finally {
        await strict.stop();
      }
    });
    await step('maps a refused connection to MarketplaceUnavailable', async () => {
      const closed = createTakealotAdapter({ sellerApiUrl: 'http://127.0.0.1:9/v1', storefrontUrl: 'http://127.0.0.1:9', timeoutMs: 1_000 });
      await expect(closed.listOwnOffers(market.apiKey)).rejects.toBeInstanceOf(MarketplaceUnavailable);
    });
    await step('maps a revoked key to MarketplaceUnauthorized, whose message does not hold the key', async () => {
      const revoked = market.apiKey;
      market.control.revokeKey(false);
      const error = await adapter()
        .listOwnOffers(revoked)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MarketplaceUnauthorized);
      expect(String((error as Error).message)).not.toContain(revoked);
      await expect(adapter().checkKey(revoked)).resolves.toBe('rejected');
    });
  }, 480_000);
});

describe('the Takealot adapter against the simulator in every reported shape', () => {
  it('reads every page (numeric ratings and skus, sellers in seller_detail, M-prefixed ids, Takealot retail, v2 batches) as the simulator holds it', async () => {
    const reported = await createMarketSimulator({
      port: 0,
      seed: 12,
      products: 60,
      competitors: 4,
      tickIntervalMs: 0,
      batchDelayMs: 100,
      shapes: REPORTED_SHAPES,
      storefrontRateLimit: { capacity: 1_000, refillPerSecond: 1_000 },
    });
    try {
      const port = createTakealotAdapter({ sellerApiUrl: reported.sellerApiUrl, storefrontUrl: reported.storefrontUrl, timeoutMs: 2_000 });
      const state = reported.simulation.market;
      const sellerIdOf = (seller: { seller_id: number; is_takealot: boolean }) =>
        seller.is_takealot ? MARKETPLACE_ITSELF_SELLER_ID : String(seller.seller_id);
      let empty = 0;
      await step('every page shows its buy box (but the empty ones), with the simulator’s competitors, seller ids normalized', async () => {
        for (const product of state.products) {
          const page = await port.readProductMarket(String(product.plid));
          if (!page.buyBoxShown) {
            expect(page).toMatchObject({ offers: [], skipped: 0 });
            empty += 1;
            continue;
          }
          const listed = state.listedOffers(product);
          const box = state.buyBox(product);
          expect(page.skipped).toBe(0);
          expect(page.offers).toHaveLength(listed.length);
          expect(page.offers.map((offer) => offer.sellerId).sort()).toEqual(listed.map((offer) => sellerIdOf(offer.seller)).sort());
          for (const offer of page.offers) expect(offer.sellerId).toMatch(/^(\d+|marketplace)$/);
          expect(page.offers.filter((offer) => offer.isMarketplaceItself).map((offer) => offer.sellerId)).toEqual([MARKETPLACE_ITSELF_SELLER_ID]);
          const best = page.offers.find((offer) => offer.bestPrice)!;
          expect({ sellerId: best.sellerId, price: best.price }).toEqual({ sellerId: sellerIdOf(box.bestPrice!.seller), price: box.bestPrice!.price });
          const fastest = page.offers.find((offer) => offer.fastestDelivery)!;
          expect(fastest.sellerId).toBe(sellerIdOf(box.fastestDelivery!.seller));
          if (product.own.status === 'buyable') expect(page.offers.some((offer) => offer.sellerId === reported.options.sellerId)).toBe(true);
          for (const offer of page.offers.filter((candidate) => !candidate.bestPrice && !candidate.fastestDelivery && !candidate.isMarketplaceItself)) {
            const seller = listed.find((candidate) => String(candidate.seller.seller_id) === offer.sellerId)!.seller;
            expect(offer).toMatchObject({ ratingAvg: seller.rating_avg, sku: expect.stringMatching(/^\d{9}$/) });
          }
        }
        // Seed 12 answers one of its 60 pages with {} at the preset's 2 %: the empty case is read too.
        expect(empty).toBeGreaterThan(0);
        expect(empty).toBe(reported.simulation.emptyPageCount);
      });
      await step('reads a v2 batch status to success', async () => {
        const target = (await port.listOwnOffers(reported.apiKey)).offers[0]!;
        const price = Math.max(1, (target.rrp ?? target.sellingPrice) - 2);
        const { batchId } = await port.sendPrices(reported.apiKey, [{ offerId: target.offerId, sellingPrice: price }]);
        let status = await port.readBatch(reported.apiKey, batchId);
        for (let poll = 0; poll < 50 && status.state === 'pending'; poll++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          status = await port.readBatch(reported.apiKey, batchId);
        }
        expect(status).toEqual({ batchId, state: 'succeeded', results: [{ offerId: target.offerId, ok: true }] });
      });
    } finally {
      await reported.stop();
    }
  }, 120_000);
});
