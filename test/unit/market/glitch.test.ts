/**
 * A storefront glitch (tools/market/glitch.ts): a wrong page, not a wrong market. Pages show one
 * competitor at a fraction of its price on a share of the products, for a number of reads; the
 * offers, the buy-box rule and the seller API are untouched.
 */
import { ManualClock } from '../../../tools/market/clock.js';
import { checkGlitch } from '../../../tools/market/glitch.js';
import { createMarketSimulator } from '../../../tools/market/index.js';
import { MarketOptionError } from '../../../tools/market/options.js';
import { Simulation } from '../../../tools/market/simulation.js';
import type { ListedOffer } from '../../../tools/market/buy-box.js';
import type { Product } from '../../../tools/market/catalogue.js';

const PRODUCTS = 40;
const simulation = (seed = 31) => new Simulation({ seed, products: PRODUCTS, competitors: 4, clock: new ManualClock(), tickIntervalMs: 1_000 });

type Item = { price: number; seller?: { seller_id: number } };
const prices = (body: Record<string, unknown>): number[] => {
  const page = body as { buybox: { items: Item[] }; other_offers: { conditions: [{ items: Item[] }] } };
  return [...page.buybox.items, ...page.other_offers.conditions[0].items].map((item) => item.price);
};

/** A product's offers in the order its page lists them: the buy box (Best Price first), then the others. */
const pageOrder = (sim: Simulation, product: Product): ListedOffer[] => {
  const box = sim.market.buyBox(product);
  const winners = [box.bestPrice, box.fastestDelivery].filter((offer, index, all): offer is ListedOffer => offer !== undefined && all.indexOf(offer) === index);
  return [...winners, ...box.others];
};

/** Per product, the prices its page shows and the offers the market holds, in the page's order. */
const readAll = (sim: Simulation) =>
  sim.market.products.map((product: Product) => {
    const order = pageOrder(sim, product);
    return { product, order, shown: prices(sim.storefrontPage(product).body), real: order.map((offer) => offer.price) };
  });

describe('a storefront glitch', () => {
  it('shows ONE competitor at the fraction of its price on about the share of the products, and the market stays as it is', () => {
    const sim = simulation();
    const before = sim.market.snapshot();
    sim.glitch.start(checkGlitch({ fraction: 0.3, share: 0.5, reads: 1_000 }));
    const pages = readAll(sim);
    const glitched = pages.filter((page) => page.shown.some((price, index) => price !== page.real[index]));
    expect(glitched.length).toBeGreaterThan(PRODUCTS * 0.25);
    expect(glitched.length).toBeLessThan(PRODUCTS * 0.75);
    for (const page of glitched) {
      const wrong = page.shown.map((price, index) => [price, page.real[index]!] as const).filter(([shown, real]) => shown !== real);
      expect(wrong).toHaveLength(1);
      expect(wrong[0]![0]).toBe(Math.max(1, Math.round(wrong[0]![1] * 0.3)));
    }
    // Only a competitor's price glitches, never the own offer's.
    for (const page of glitched) {
      const index = page.shown.findIndex((price, position) => price !== page.real[position]);
      expect(page.order[index]!.id).not.toBe(String(page.product.own.offer_id));
    }
    expect(sim.market.snapshot()).toEqual(before);
    expect(sim.glitch.describe()).toMatchObject({ active: true, fraction: 0.3, share: 0.5, reads_left: 1_000 - PRODUCTS, glitched_pages: glitched.length });
  });

  it('touches the same products and competitors for the same seed, whatever the order of reads', () => {
    const glitchedPrices = (reverse: boolean) => {
      const sim = simulation(8);
      sim.glitch.start(checkGlitch({ fraction: 0.5, share: 0.4, reads: 1_000 }));
      const products = reverse ? [...sim.market.products].reverse() : sim.market.products;
      const shown = new Map(products.map((product) => [product.plid, prices(sim.storefrontPage(product).body)]));
      return [...shown].sort(([a], [b]) => a - b);
    };
    expect(glitchedPrices(true)).toEqual(glitchedPrices(false));
  });

  it('ends after its reads, and when cleared', () => {
    const sim = simulation();
    const normal = readAll(sim).map((page) => page.shown);
    sim.glitch.start(checkGlitch({ fraction: 0.2, share: 1, reads: 3 }));
    const first = sim.market.products.slice(0, 3).map((product) => prices(sim.storefrontPage(product).body));
    expect(first).not.toEqual(normal.slice(0, 3));
    expect(sim.glitch.describe()).toMatchObject({ active: false, reads_left: 0 });
    expect(readAll(sim).map((page) => page.shown)).toEqual(normal);

    sim.glitch.start(checkGlitch({ fraction: 0.2, share: 1, reads: 100 }));
    expect(readAll(sim).map((page) => page.shown)).not.toEqual(normal);
    expect(sim.glitch.clear()).toMatchObject({ active: false, fraction: null });
    expect(readAll(sim).map((page) => page.shown)).toEqual(normal);
  });

  it.each([
    {},
    { fraction: 0 },
    { fraction: -1 },
    { fraction: 'low' },
    { fraction: 0.3, share: 2 },
    { fraction: 0.3, reads: 0 },
    { fraction: 0.3, reads: 1.5 },
  ])('refuses %j', (request) => {
    expect(() => checkGlitch(request)).toThrow(MarketOptionError);
  });
});

describe('a glitch over HTTP', () => {
  it('starts with POST /_control/glitch, shows in the state, leaves the buy box and the seller API alone, ends with DELETE', async () => {
    const market = await createMarketSimulator({
      port: 0,
      seed: 6,
      products: 6,
      competitors: 3,
      tickIntervalMs: 0,
      storefrontRateLimit: { capacity: 100, refillPerSecond: 100 },
    });
    try {
      const control = (method: string, path: string, body?: unknown) =>
        fetch(`${market.url}/_control/${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      const page = async (plid: number) =>
        (await (await fetch(`${market.storefrontUrl}/rest/v-1-12-0/product-details/PLID${plid}`)).json()) as Record<string, unknown>;
      const offers = async () =>
        ((await (await fetch(`${market.sellerApiUrl}/offers`, { headers: { 'X-API-Key': market.apiKey } })).json()) as { items: unknown[] }).items;
      const plids = market.simulation.market.products.map((product) => product.plid);
      const normal = await Promise.all(plids.map(async (plid) => prices(await page(plid))));
      const ownBefore = await offers();
      const stateBefore = (await (await control('GET', 'state')).json()) as { products: unknown[] };

      expect((await control('POST', 'glitch', { fraction: 9000 })).status).toBe(400);
      const started = await control('POST', 'glitch', { fraction: 0.3, share: 1, reads: 6 });
      expect(await started.json()).toMatchObject({ active: true, fraction: 0.3, share: 1, reads_left: 6 });
      expect(((await (await control('GET', 'state')).json()) as { glitch: unknown }).glitch).toMatchObject({ active: true });
      const glitched = [];
      for (const plid of plids) glitched.push(prices(await page(plid)));
      expect(glitched).not.toEqual(normal);
      const state = (await (await control('GET', 'state')).json()) as { products: unknown[]; glitch: { active: boolean; glitched_pages: number } };
      expect(state.glitch).toMatchObject({ active: false, reads_left: 0 });
      expect(state.glitch.glitched_pages).toBeGreaterThan(0);
      // The market the buy-box rule decides on, and the seller API, never saw the glitch.
      expect(state.products).toEqual(stateBefore.products);
      expect(await offers()).toEqual(ownBefore);
      expect(await Promise.all(plids.map(async (plid) => prices(await page(plid))))).toEqual(normal);

      await control('POST', 'glitch', { fraction: 0.3, share: 1, reads: 100 });
      expect(await (await control('DELETE', 'glitch')).json()).toMatchObject({ active: false });
      expect(await Promise.all(plids.map(async (plid) => prices(await page(plid))))).toEqual(normal);
      expect(market.control.setGlitch({ fraction: 0.5 })).toMatchObject({ active: true, share: 1, reads_left: 100 });
      expect(market.control.clearGlitch()).toMatchObject({ active: false });
    } finally {
      await market.stop();
    }
  });
});
