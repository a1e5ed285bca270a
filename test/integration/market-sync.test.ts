import type { MarketOffer, OwnOfferSnapshot, ProductMarket } from '../../lambdas/marketplace/port.js';
import type { Offer, OffersPage } from '../../lambdas/domain/records.js';
import { WriteMeter, type WriteTally } from '../../tools/bench/write-meter.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { scanTable } from '../support/table-snapshot.js';
import { step } from '../support/story.js';

/**
 * A market sync applied (docs/market-sync.md): own offers and a product's storefront page
 * become the offers GET /v1/offers serves, through the same writes and the same stream as
 * imports; a sync that finds nothing new writes nothing; a competitor's move writes what it
 * changes and no more; a competitor that leaves the page stops being buyable.
 *
 * Measured with the bench's write meter (write units of the table and its indexes, derived data
 * included): a competitor's price move that changes only its own fields costs 11 WU (its offer,
 * its listing, rank-node counts); a move that takes the Best Price slot changes every offer of
 * the product (winning, winning_price): 37 WU for the 4 offers here.
 */
let api: TestApi;
const meter = new WriteMeter();
const alice: [string, string] = ['market-alice', 'market-alice-password-1'];
let clientId: string;
let sync: typeof import('../../lambdas/market/market-sync.js');
const connector = { uid: 'takealot', sellerId: 'me', storefrontUrl: 'https://storefront.example' };

const own = (offerId: string, sku: string, overrides: Partial<OwnOfferSnapshot> = {}): OwnOfferSnapshot => ({
  offerId,
  sku,
  barcode: `600${offerId}`,
  title: `Product ${sku}`,
  productLineId: `PLID${offerId}`,
  sellingPrice: 100,
  rrp: 150,
  status: 'buyable',
  stockOnHand: 3,
  ...overrides,
});
const entry = (sellerId: string, price: number, overrides: Partial<MarketOffer> = {}): MarketOffer => ({
  sellerId,
  sellerName: `Seller ${sellerId}`,
  price,
  inStock: true,
  ratingAvg: 4.5,
  ratingCount: 12,
  isMarketplaceItself: false,
  bestPrice: false,
  fastestDelivery: false,
  ...overrides,
});
const both = { bestPrice: true, fastestDelivery: true };
const ownOffers = [own('1001', 'SKU-1'), own('1002', 'SKU-2', { sellingPrice: 40, stockOnHand: 0, status: 'not_buyable' })];
const page = (...offers: MarketOffer[]): ProductMarket => ({
  productLineId: 'PLID1001',
  url: 'https://storefront.example/p/PLID1001',
  offers,
  buyBoxShown: true,
  skipped: 0,
});
const firstPage = page(entry('me', 100, both), entry('s1', 95, { inStock: false, leadtimeDays: 7 }), entry('s2', 108), entry('s3', 120));

const listAll = async (): Promise<Offer[]> => {
  const response = await api.request<OffersPage>('GET', '/v1/offers?_include_other_offers=true&_limit=100', { auth: alice });
  expect(response.status).toBe(200);
  return response.body.offers;
};
const byOfferId = (offers: readonly Offer[]) => new Map(offers.map((offer) => [offer.offer_id, offer]));
const buyBox = (offer: Offer | undefined) =>
  offer && [offer.offer_status, offer.offer_price, offer.winning, offer.winning_delivery, offer.winning_price, offer.total_competitors, offer.competitiveness];

/** Runs `work`, waits for the stream's work it caused, and returns what was written. */
const metered = async <T>(work: () => Promise<T>): Promise<{ result: T; writes: WriteTally }> => {
  await api.settle();
  meter.begin();
  try {
    const result = await work();
    await api.settle();
    return { result, writes: meter.end() };
  } catch (error) {
    meter.end();
    throw error;
  }
};
const changedKeys = (before: Map<string, string>, after: Map<string, string>) =>
  [...new Set([...before.keys(), ...after.keys()])].filter((key) => before.get(key) !== after.get(key)).map((key) => key.replace('\u0000', ' '));

beforeAll(async () => {
  api = await startTestApi({ events: { onRecords: meter.onRecords } });
  clientId = (await api.createClient(alice[0], { password: alice[1], sellerId: 'me', connector: 'takealot' })).clientId;
  sync = await import('../../lambdas/market/market-sync.js');
}, 60_000);
afterAll(() => api?.close());

describe('a market sync', () => {
  it('follows one market through its syncs: own offers, a page, nothing new, a move, Best Price taken, a competitor leaving and coming back, an own offer off the page', async () => {
    await step('applies own offers: products by SKU and own offers, listed by GET /v1/offers; a malformed snapshot is skipped whole', async () => {
      // Act
      const result = await sync.applyOwnOffers(clientId, connector, [...ownOffers, own('1003', 'SKU-3', { title: 'Bad\u0000title' })]);
      await api.settle();

      // Assert
      expect(result).toMatchObject({ products: { created: 2, updated: 0 }, offers: { created: 2, updated: 0 }, skipped: 1 });
      expect(result.problems).toEqual([expect.stringMatching(/^own offer 3: title: /)]);
      const offers = byOfferId(await listAll());
      expect([...offers.keys()].sort()).toEqual(['1001', '1002']);
      expect(offers.get('1001')).toMatchObject({
        offer_price: 100,
        offer_status: 'buyable',
        stock_status: 'in_stock',
        seller_id: 'me',
        competitiveness: 'unknown',
        product: { code: 'SKU-1', title: 'Product SKU-1', barcode: '6001001', retail_price: 150, soh: 3 },
      });
      expect(offers.get('1002')).toMatchObject({ offer_price: 40, offer_status: 'not_buyable', stock_status: 'lead_time', product: { code: 'SKU-2' } });
    });
    await step('applies a product page: competitor offers under stable ids, buy box fields on every offer, totals right', async () => {
      // Act
      const result = await sync.applyProductMarket(clientId, connector, 'SKU-1', firstPage);
      await api.settle();

      // Assert
      expect(result).toMatchObject({ kind: 'applied', offers: { created: 3, updated: 1, unchanged: 0 }, skipped: 0, left: 0 });
      const offers = byOfferId(await listAll());
      expect([...offers.keys()].sort()).toEqual(['1001', '1002', 'takealot:PLID1001:s1', 'takealot:PLID1001:s2', 'takealot:PLID1001:s3']);
      expect(buyBox(offers.get('1001'))).toEqual(['buyable', 100, true, true, 100, 3, 'high']);
      expect(buyBox(offers.get('takealot:PLID1001:s1'))).toEqual(['buyable', 95, false, false, 100, 3, 'high']);
      expect(buyBox(offers.get('takealot:PLID1001:s2'))).toEqual(['buyable', 108, false, false, 100, 3, 'medium']);
      expect(buyBox(offers.get('takealot:PLID1001:s3'))).toEqual(['buyable', 120, false, false, 100, 3, 'low']);
      expect(offers.get('takealot:PLID1001:s1')).toMatchObject({
        seller_id: 's1',
        seller_name: 'Seller s1',
        stock_status: 'lead_time',
        rating_avg: 4.5,
        rating_count: '12',
        url: 'https://storefront.example/p/PLID1001',
        product: { code: 'SKU-1' },
      });
      expect(offers.get('1001')).toMatchObject({ seller_name: 'Seller me', offer_price: 100, url: 'https://storefront.example/p/PLID1001' });
      // The filters read the same fields.
      const filtered = await api.request<OffersPage>('GET', '/v1/offers?_include_other_offers=true&total_competitors_gte=3&competitiveness=high', {
        auth: alice,
      });
      expect(filtered.body.offers.map((o) => o.offer_id).sort()).toEqual(['1001', 'takealot:PLID1001:s1']);
      // The own offer in stock at 100 took Best Price over s1's leadtime 95: the premium is at least 5 %.
      const product = await api.request<{ in_stock_premium: unknown }>('GET', '/v1/products/SKU-1', { auth: alice });
      expect(product.body.in_stock_premium).toEqual({ takealot: { low_percent: 5, high_percent: 10, observations: 1 } });
    });
    await step('writes nothing when a sync finds nothing new', async () => {
      // Prepare
      const before = await scanTable(api.tableName);

      // Act
      const { result, writes } = await metered(async () => [
        await sync.applyOwnOffers(clientId, connector, ownOffers),
        await sync.applyProductMarket(clientId, connector, 'SKU-1', { ...firstPage, offers: [...firstPage.offers].reverse() }),
      ]);

      // Assert
      expect(result).toEqual([
        expect.objectContaining({ products: { created: 0, updated: 0, unchanged: 2 }, offers: { created: 0, updated: 0, unchanged: 2 } }),
        expect.objectContaining({ offers: { created: 0, updated: 0, unchanged: 4 } }),
      ]);
      expect(writes.writes).toBe(0);
      expect(await scanTable(api.tableName)).toEqual(before);
    });
    await step('a competitor price move writes that offer and what derives from it, and no more (<= 20 WU)', async () => {
      // Prepare
      const before = await scanTable(api.tableName);
      const moved = page(entry('me', 100, both), entry('s1', 95, { inStock: false, leadtimeDays: 7 }), entry('s2', 109), entry('s3', 120));

      // Act
      const { result, writes } = await metered(() => sync.applyProductMarket(clientId, connector, 'SKU-1', moved));

      // Assert
      expect(result).toMatchObject({ offers: { created: 0, updated: 1, unchanged: 3 } });
      const canonical = changedKeys(before, await scanTable(api.tableName)).filter((key) => / O#/.test(key));
      expect(canonical).toEqual([expect.stringMatching(/#P#SKU-1 O#takealot%3APLID1001%3As2$/)]);
      expect(buyBox(byOfferId(await listAll()).get('takealot:PLID1001:s2'))).toEqual(['buyable', 109, false, false, 100, 3, 'medium']);
      expect(writes.total).toBeLessThanOrEqual(20);
      // Measured: 11 WU (the offer 1, its listing 1 + 5 in indexes, 4 rank-node counts).
      expect(writes.byKind.offer?.writes).toBe(1);
      expect(writes.byKind.offerListing?.writes).toBe(1);
    });
    await step('a competitor taking the Best Price slot changes every offer whose buy box fields change', async () => {
      // Prepare
      const taken = page(
        entry('me', 100, { fastestDelivery: true }),
        entry('s1', 90, { inStock: false, leadtimeDays: 7, bestPrice: true }),
        entry('s2', 109),
        entry('s3', 120),
      );

      // Act
      const { result, writes } = await metered(() => sync.applyProductMarket(clientId, connector, 'SKU-1', taken));

      // Assert
      expect(result).toMatchObject({ offers: { created: 0, updated: 4, unchanged: 0 } });
      const offers = byOfferId(await listAll());
      expect(buyBox(offers.get('1001'))).toEqual(['buyable', 100, false, true, 90, 3, 'high']);
      expect(buyBox(offers.get('takealot:PLID1001:s1'))).toEqual(['buyable', 90, true, false, 90, 3, 'high']);
      expect(buyBox(offers.get('takealot:PLID1001:s2'))).toEqual(['buyable', 109, false, false, 90, 3, 'low']);
      // Measured: 37-41 WU, about 10 per offer of the product: winning_price is on every offer, so
      // all of them change (listing items near a 1 KB boundary and rank-node moves vary by a few).
      expect(writes.byKind.offer?.writes).toBe(4);
      expect(writes.total).toBeLessThanOrEqual(4 * 12);
    });
    await step('a competitor that leaves the page is no longer buyable, and the others count one competitor less', async () => {
      // Prepare
      const gone = page(entry('me', 100, { fastestDelivery: true }), entry('s1', 90, { inStock: false, leadtimeDays: 7, bestPrice: true }), entry('s2', 109));

      // Act
      const result = await sync.applyProductMarket(clientId, connector, 'SKU-1', gone);
      await api.settle();

      // Assert
      expect(result).toMatchObject({ left: 1 });
      const offers = byOfferId(await listAll());
      expect(buyBox(offers.get('takealot:PLID1001:s3'))).toEqual(['not_buyable', 120, false, false, 90, 3, 'low']);
      expect(buyBox(offers.get('1001'))).toEqual(['buyable', 100, false, true, 90, 2, 'high']);
      expect(buyBox(offers.get('takealot:PLID1001:s2'))).toEqual(['buyable', 109, false, false, 90, 2, 'low']);

      // ... and once marked, it is not written again while it stays away.
      const { writes } = await metered(() => sync.applyProductMarket(clientId, connector, 'SKU-1', gone));
      expect(writes.writes).toBe(0);
    });
    await step('a competitor that comes back is buyable again under the same id', async () => {
      // Prepare
      const idBefore = byOfferId(await listAll()).get('takealot:PLID1001:s3')?.id;

      // Act
      await sync.applyProductMarket(clientId, connector, 'SKU-1', page(entry('me', 100, both), entry('s3', 99)));
      await api.settle();

      // Assert
      const offers = byOfferId(await listAll());
      expect(offers.get('takealot:PLID1001:s3')).toMatchObject({
        id: idBefore,
        offer_status: 'buyable',
        offer_price: 99,
        total_competitors: 1,
        competitiveness: 'high',
      });
      // Gone from the page, s1 keeps the fields of its last look.
      expect(buyBox(offers.get('takealot:PLID1001:s1'))).toEqual(['not_buyable', 90, false, false, 90, 2, 'high']);
    });
    await step('an own offer the page does not show gets no slot and every seller on the page as its competitors', async () => {
      // Act
      const result = await sync.applyProductMarket(clientId, connector, 'SKU-2', {
        productLineId: 'PLID1002',
        offers: [entry('s1', 37, both), entry('s4', 41)],
        buyBoxShown: true,
        skipped: 0,
      });
      await api.settle();

      // Assert
      expect(result).toMatchObject({ kind: 'applied', offers: { created: 2, updated: 1 } });
      const offers = byOfferId(await listAll());
      expect(buyBox(offers.get('1002'))).toEqual(['not_buyable', 40, false, false, 37, 2, 'medium']);
      expect(offers.get('takealot:PLID1002:s1')).toMatchObject({ url: 'https://storefront.example', product: { code: 'SKU-2' } });
      expect(await sync.applyProductMarket(clientId, connector, 'NO-SUCH', firstPage)).toEqual({ kind: 'no-product' });
    });
  }, 480_000);
});

afterAll(() => {
  // Every stream record and queue message of the file went through.
  expect(api.failures()).toEqual([]);
});
