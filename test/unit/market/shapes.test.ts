/**
 * The reported shapes (tools/market/shapes.ts): each switch on its own renders the storefront
 * page or the batch status in its reported form, and says the same thing as the default form.
 */
import { BatchStore } from '../../../tools/market/batches.js';
import { TAKEALOT_RETAIL_SUFFIX } from '../../../tools/market/catalogue.js';
import { FLAGS, helpText, parseMarketArgs } from '../../../tools/market/cli-args.js';
import { ManualClock } from '../../../tools/market/clock.js';
import { createMarketSimulator, DEFAULT_SHAPES, REPORTED_SHAPES, type ShapeSettings } from '../../../tools/market/index.js';
import { MarketOptionError, resolveOptions } from '../../../tools/market/options.js';
import { Simulation } from '../../../tools/market/simulation.js';

const simulation = (shapes: Partial<ShapeSettings> = {}, seed = 21) =>
  new Simulation({ seed, products: 12, competitors: 4, clock: new ManualClock(), tickIntervalMs: 1_000, shapes });

type Item = Record<string, any>;
interface Page {
  seller_detail?: Item;
  buybox: { items: Item[] };
  other_offers: { conditions: [{ items: Item[] }] };
}

const pageOf = (sim: Simulation, index = 0): Page => sim.storefrontPage(sim.market.products[index]!).body as unknown as Page;
const itemsOf = (page: Page): Item[] => [...page.buybox.items, ...page.other_offers.conditions[0].items];
const allPages = (sim: Simulation): Page[] => sim.market.products.map((_, index) => pageOf(sim, index));

describe('the default shapes', () => {
  it('render each item with its seller, the seller’s SKU and the rating as an object, and no seller_detail', () => {
    const sim = simulation();
    const page = pageOf(sim);
    expect(page).not.toHaveProperty('seller_detail');
    const product = sim.market.products[0]!;
    const skus = new Set(sim.market.listedOffers(product).map((offer) => offer.sku));
    for (const item of itemsOf(page)) {
      expect(skus.has(item.sku)).toBe(true);
      expect(item.seller).toEqual({
        seller_id: expect.any(Number),
        display_name: expect.any(String),
        rating: { average: expect.any(Number), count: expect.any(Number) },
      });
    }
  });
});

describe('each shape switch', () => {
  it('rating number: the average as a bare number', () => {
    const sim = simulation({ rating: 'number' });
    const product = sim.market.products[0]!;
    const bySeller = new Map(sim.market.listedOffers(product).map((offer) => [offer.seller.seller_id, offer.seller.rating_avg]));
    for (const item of itemsOf(pageOf(sim))) expect(item.seller.rating).toBe(bySeller.get(item.seller.seller_id));
  });

  it('rating absent: no rating at all', () => {
    for (const item of itemsOf(pageOf(simulation({ rating: 'absent' })))) expect(item.seller).not.toHaveProperty('rating');
  });

  it('storefrontSku number: a marketplace number per offer, the same on every read, unrelated to the seller’s SKU', () => {
    const sim = simulation({ storefrontSku: 'number' });
    const first = itemsOf(pageOf(sim)).map((item) => item.sku);
    for (const sku of first) expect(Number.isInteger(sku) && sku >= 100_000_000 && sku < 1_000_000_000).toBe(true);
    expect(new Set(first).size).toBe(first.length);
    expect(itemsOf(pageOf(sim)).map((item) => item.sku)).toEqual(first);
  });

  it('storefrontSku absent: no sku', () => {
    for (const item of itemsOf(pageOf(simulation({ storefrontSku: 'absent' })))) expect(item).not.toHaveProperty('sku');
  });

  it('buyboxSeller detail: buy-box items without seller, the selected one’s in seller_detail, the other’s in sponsored_ads_seller_id', () => {
    const sim = simulation({ buyboxSeller: 'detail' });
    const pages = allPages(sim);
    const twoItems = pages.findIndex((page) => page.buybox.items.length === 2);
    expect(twoItems).toBeGreaterThanOrEqual(0);
    pages.forEach((page, index) => {
      const box = sim.market.buyBox(sim.market.products[index]!);
      const [selected, second] = page.buybox.items;
      expect(selected).not.toHaveProperty('seller');
      expect(selected).not.toHaveProperty('sponsored_ads_seller_id');
      expect(page.seller_detail).toEqual({ seller_id: box.bestPrice!.seller.seller_id, display_name: box.bestPrice!.seller.display_name });
      if (second !== undefined) {
        expect(second).not.toHaveProperty('seller');
        expect(second.sponsored_ads_seller_id).toBe(box.fastestDelivery!.seller.seller_id);
      }
      for (const item of page.other_offers.conditions[0].items) expect(item.seller.seller_id).toEqual(expect.any(Number));
    });
  });

  it('sellerIdPrefix: every seller id as M<id> text, wherever the page names a seller', () => {
    const sim = simulation({ sellerIdPrefix: true, buyboxSeller: 'detail' });
    for (const page of allPages(sim)) {
      expect(page.seller_detail!.seller_id).toMatch(/^M\d+$/);
      for (const item of page.buybox.items.slice(1)) expect(item.sponsored_ads_seller_id).toMatch(/^M\d+$/);
      for (const item of page.other_offers.conditions[0].items) expect(item.seller.seller_id).toMatch(/^M\d+$/);
    }
    for (const item of itemsOf(pageOf(simulation({ sellerIdPrefix: true })))) expect(item.seller.seller_id).toMatch(/^M\d+$/);
  });

  it('takealotRetail: one Takealot retail offer on every product, without a seller object, the rest of the market as the seed makes it', () => {
    const plain = simulation();
    const sim = simulation({ takealotRetail: true });
    sim.market.products.forEach((product, index) => {
      const other = plain.market.products[index]!;
      const takealot = product.competitors.filter((offer) => offer.seller.is_takealot);
      expect(takealot).toHaveLength(1);
      const added = other.competitors.some((offer) => offer.seller.is_takealot) ? 0 : 1;
      expect(product.competitors).toHaveLength(other.competitors.length + added);
      expect(product.competitors.slice(0, other.competitors.length)).toEqual(other.competitors);
      const retailItems = itemsOf(pageOf(sim, index)).filter((item) => item.is_takealot === true);
      expect(retailItems).toHaveLength(1);
      expect(retailItems[0]).not.toHaveProperty('seller');
      expect(retailItems[0]!.price).toEqual(expect.any(Number));
    });
  });

  it('takealotRetail: the retail offer takes part in the buy-box rule, and joins and leaves the market with the switch', () => {
    const sim = simulation();
    sim.setShapes({ takealotRetail: true });
    const product = sim.market.products.find((candidate) => candidate.competitors.some((offer) => offer.key.endsWith(`-${TAKEALOT_RETAIL_SUFFIX}`)))!;
    const retail = product.competitors.find((offer) => offer.key.endsWith(`-${TAKEALOT_RETAIL_SUFFIX}`))!;
    retail.price = 1;
    expect(sim.market.buyBox(product).bestPrice?.id).toBe(retail.key);
    expect(pageOf(sim, sim.market.products.indexOf(product)).buybox.items[0]).toMatchObject({ is_takealot: true, price: 1, is_selected: true });
    sim.setShapes({ takealotRetail: false });
    expect(product.competitors.some((offer) => offer.key === retail.key)).toBe(false);
    expect(sim.market.buyBox(product).bestPrice?.id).not.toBe(retail.key);
  });

  it('emptyPageRate: answers {} at the rate, drawn from the seed, and an empty page is not a read of the product', () => {
    const always = simulation({ emptyPageRate: 1 });
    expect(always.storefrontPage(always.market.products[0]!)).toEqual({ body: {}, shown: false });
    expect(always.emptyPageCount).toBe(1);
    const draws = (seed: number) => {
      const sim = simulation({ emptyPageRate: 0.3 }, seed);
      return Array.from({ length: 200 }, () => sim.storefrontPage(sim.market.products[0]!).shown);
    };
    const empties = draws(5).filter((shown) => !shown).length;
    expect(empties).toBeGreaterThan(30);
    expect(empties).toBeLessThan(90);
    expect(draws(5)).toEqual(draws(5));
  });

  it('emptyPageRate leaves the bots’ market as the seed makes it', () => {
    const quiet = simulation();
    const busy = simulation({ emptyPageRate: 0.5 });
    for (let round = 0; round < 5; round++) {
      for (const product of busy.market.products) busy.storefrontPage(product);
      busy.tick(2);
      quiet.tick(2);
    }
    expect(busy.market.snapshot()).toEqual(quiet.market.snapshot());
  });

  it('batchStatus v2: result[] of { offer, validation_errors }, empty errors for an applied entry', () => {
    const sim = simulation({ batchStatus: 'v2' });
    const [a, b] = sim.market.ownOffers();
    const batch = sim.submitBatch(
      [
        { offer_id: a!.offer_id, selling_price: a!.selling_price - 1 },
        { offer_id: b!.offer_id, selling_price: b!.rrp + 1 },
        { offer_id: 7, selling_price: 10 },
      ],
      undefined,
    );
    expect(BatchStore.view(batch, 'v2')).toMatchObject({ batch_id: batch.batch_id, status: 'pending', result: [] });
    sim.tick(3);
    const view = BatchStore.view(sim.batches.get(batch.batch_id)!, sim.shapes.batchStatus);
    expect(view).not.toHaveProperty('results');
    expect(view).toMatchObject({
      status: 'FAILURE',
      result: [
        { offer: { offer_id: a!.offer_id, selling_price: a!.selling_price }, validation_errors: [] },
        {
          offer: { offer_id: b!.offer_id, selling_price: b!.selling_price },
          validation_errors: [{ message: 'selling price must be <= RRP', code: expect.any(String) }],
        },
        { offer: { offer_id: 7, selling_price: null }, validation_errors: [{ message: 'offer not found' }] },
      ],
    });
    expect(BatchStore.view(sim.batches.get(batch.batch_id)!, 'v1')).toHaveProperty('results');
  });
});

describe('shape settings', () => {
  it('default to the first forms; the reported preset turns on every other form', () => {
    expect(resolveOptions().shapes).toEqual(DEFAULT_SHAPES);
    expect(REPORTED_SHAPES).toEqual({
      rating: 'number',
      storefrontSku: 'number',
      buyboxSeller: 'detail',
      sellerIdPrefix: true,
      takealotRetail: true,
      emptyPageRate: 0.02,
      buyboxTsin: 'string',
      variantPage: 'mixed',
      batchStatus: 'v2',
    });
    for (const key of Object.keys(DEFAULT_SHAPES) as (keyof ShapeSettings)[]) expect(REPORTED_SHAPES[key]).not.toEqual(DEFAULT_SHAPES[key]);
  });

  it.each([
    { rating: 'stars' },
    { storefrontSku: 1 },
    { buyboxSeller: 'page' },
    { sellerIdPrefix: 'yes' },
    { takealotRetail: 1 },
    { emptyPageRate: 2 },
    { batchStatus: 'v3' },
    { buyboxTsin: 'hex' },
    { variantPage: 'first' },
    { colour: 'red' },
  ])('refuses %j at startup and at runtime, changing nothing', (bad) => {
    expect(() => resolveOptions({ shapes: bad as Partial<ShapeSettings> })).toThrow(MarketOptionError);
    const sim = simulation();
    expect(() => sim.setShapes(bad as Partial<ShapeSettings>)).toThrow(MarketOptionError);
    expect(sim.shapes).toEqual(DEFAULT_SHAPES);
  });

  it('come from the CLI: --shapes reported, single switches after it, each flag in --help', () => {
    expect(resolveOptions(parseMarketArgs(['--shapes', 'reported']).options).shapes).toEqual(REPORTED_SHAPES);
    expect(resolveOptions(parseMarketArgs(['--shapes', 'reported', '--rating', 'object', '--batch-status=v1']).options).shapes).toEqual({
      ...REPORTED_SHAPES,
      rating: 'object',
      batchStatus: 'v1',
    });
    const single = parseMarketArgs([
      '--storefront-sku',
      'absent',
      '--buybox-seller',
      'detail',
      '--seller-id-prefix',
      '--takealot-retail',
      '--empty-page-rate',
      '0.1',
    ]);
    expect(resolveOptions(single.options).shapes).toEqual({
      ...DEFAULT_SHAPES,
      storefrontSku: 'absent',
      buyboxSeller: 'detail',
      sellerIdPrefix: true,
      takealotRetail: true,
      emptyPageRate: 0.1,
    });
    expect(() => parseMarketArgs(['--shapes', 'odd'])).toThrow(MarketOptionError);
    expect(() => resolveOptions(parseMarketArgs(['--rating', 'stars']).options)).toThrow(MarketOptionError);
    const names = FLAGS.map((flag) => flag.name);
    for (const name of [
      'shapes',
      'rating',
      'storefront-sku',
      'buybox-seller',
      'seller-id-prefix',
      'takealot-retail',
      'empty-page-rate',
      'buybox-tsin',
      'variant-page',
      'batch-status',
    ]) {
      expect(names).toContain(name);
      expect(helpText()).toContain(`--${name}`);
    }
  });
});

describe('shapes over the control API', () => {
  it('sets them at runtime (a preset, single switches), shows them in the state, and refuses a bad one with a 400', async () => {
    const market = await createMarketSimulator({
      port: 0,
      seed: 4,
      products: 3,
      tickIntervalMs: 0,
      storefrontRateLimit: { capacity: 100, refillPerSecond: 100 },
    });
    try {
      const post = (body: unknown) => fetch(`${market.url}/_control/shapes`, { method: 'POST', body: JSON.stringify(body) });
      const set = await post({ preset: 'reported', emptyPageRate: 0 });
      expect(set.status).toBe(200);
      expect(await set.json()).toEqual({ ...REPORTED_SHAPES, emptyPageRate: 0 });
      const plid = market.simulation.market.products[0]!.plid;
      const page = (await (await fetch(`${market.storefrontUrl}/rest/v-1-10-0/product-details/PLID${plid}`)).json()) as Page;
      expect(page.seller_detail?.seller_id ?? page.buybox.items[0]!.is_takealot).toBeTruthy();
      for (const item of page.other_offers.conditions[0].items) {
        if (item.is_takealot !== true)
          expect(item.seller).toEqual({ seller_id: expect.stringMatching(/^M\d+$/), display_name: expect.any(String), rating: expect.any(Number) });
        expect(typeof item.sku).toBe('number');
      }
      expect((await post({ rating: 'stars' })).status).toBe(400);
      expect((await post({ preset: 'odd' })).status).toBe(400);
      const state = (await (await fetch(`${market.url}/_control/state`)).json()) as { shapes: ShapeSettings; empty_pages: number };
      expect(state.shapes).toEqual({ ...REPORTED_SHAPES, emptyPageRate: 0 });
      expect(state.empty_pages).toBe(0);
      expect(market.control.setShapes({ rating: 'absent' })).toMatchObject({ rating: 'absent', buyboxSeller: 'detail' });
    } finally {
      await market.stop();
    }
  });
});
