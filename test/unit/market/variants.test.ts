/**
 * Product lines of several variants (the `variants` option, catalogue.ts variantLines): each
 * variant its own tsin, own offer, competitors and buy box under its line's plid; the line's
 * page shows its default variant's buy box, or none (the `variantPage` shape), and offers the
 * choice under `variants.selectors[].options[]`; the seller API names each own offer's tsin and line.
 */
import { ManualClock } from '../../../tools/market/clock.js';
import { offerView } from '../../../tools/market/offer-view.js';
import { Simulation } from '../../../tools/market/simulation.js';
import type { ShapeSettings } from '../../../tools/market/shapes.js';

const simulation = (variants: number, shapes: Partial<ShapeSettings> = {}, products = 6) =>
  new Simulation({ seed: 9, products, competitors: 3, variants, clock: new ManualClock(), tickIntervalMs: 1_000, shapes });

type Page = {
  variants?: { selectors: { options: { tsin: number; is_selected: boolean }[] }[] };
  buybox: { tsin?: unknown; items: { sku: string; price: number }[] };
  other_offers: { conditions: { items: unknown[] }[] };
};
const pageOf = (sim: Simulation, index: number): Page => sim.storefrontPage(sim.market.products[index]!).body as unknown as Page;

describe('product lines of several variants', () => {
  it('groups the products into lines of 1, 2, 3 variants in turn, each variant its own tsin and offers, the seller API naming both ids', () => {
    const sim = simulation(3);
    const products = sim.market.products;
    const lines = products.map((product) => product.plid);
    expect(lines).toEqual([lines[0], lines[1], lines[1], lines[3], lines[3], lines[3]]);
    expect(new Set(lines).size).toBe(3);
    expect(new Set(products.map((product) => product.own.tsin_id)).size).toBe(6);
    for (const product of products) {
      expect(offerView(product.own, { expands: new Set(), fields: undefined })).toMatchObject({ tsin_id: product.own.tsin_id, productline_id: product.plid });
    }
    expect(sim.market.lineOf(products[4]!).map((product) => product.own.tsin_id)).toEqual(products.slice(3).map((product) => product.own.tsin_id));
    expect(sim.market.product(lines[3]!)).toBe(products[3]);
  });

  it('keeps the seed’s offers and bots: only line ids and titles differ from the market without variants', () => {
    const plain = simulation(1).market.snapshot().products;
    const grouped = simulation(3).market.snapshot().products;
    const offers = (products: typeof plain) => products.map((product) => [product.own.offer_id, product.own.selling_price, product.competitors]);
    expect(offers(grouped)).toEqual(offers(plain));
    expect(simulation(1).market.snapshot()).toEqual(simulation(1).market.snapshot());
  });

  it('shows on the line’s page its default variant’s buy box, named by tsin, and the choice of every variant', () => {
    const sim = simulation(3);
    const [, red, blue] = sim.market.products;
    const page = pageOf(sim, 1);
    expect(page.buybox.tsin).toBe(red!.own.tsin_id);
    expect(page.variants!.selectors[0]!.options.map((option) => [option.tsin, option.is_selected])).toEqual([
      [red!.own.tsin_id, true],
      [blue!.own.tsin_id, false],
    ]);
    const box = sim.market.buyBox(red!);
    expect(page.buybox.items[0]!.sku).toBe(box.bestPrice!.sku);
    // The page is the line's: asked from either variant, the same.
    expect(pageOf(sim, 2)).toEqual(page);
    // A line of one variant names its tsin, and offers no choice.
    expect(pageOf(sim, 0)).toMatchObject({ buybox: { tsin: sim.market.products[0]!.own.tsin_id } });
    expect(pageOf(sim, 0)).not.toHaveProperty('variants');
  });

  it('variantPage none: a line of several variants shows no buy box until one is chosen; a line of one is as before', () => {
    const sim = simulation(3, { variantPage: 'none' });
    expect(pageOf(sim, 1)).toMatchObject({ buybox: { items: [] }, other_offers: { conditions: [] } });
    expect(pageOf(sim, 1).buybox).not.toHaveProperty('tsin');
    expect(pageOf(sim, 1).variants!.selectors[0]!.options.every((option) => !option.is_selected)).toBe(true);
    expect(pageOf(sim, 0).buybox.items.length).toBeGreaterThan(0);
  });

  it('variantPage mixed: per line, the same on every read, some lines one way and some the other', () => {
    const sim = simulation(2, {}, 40);
    sim.setShapes({ variantPage: 'mixed' });
    const multi = sim.market.products.filter((product) => sim.market.lineOf(product).length > 1 && sim.market.lineOf(product)[0] === product);
    const shows = multi.map((product) => sim.storefrontPage(product).body as unknown as Page).map((page) => page.buybox.items.length > 0);
    expect(new Set(shows)).toEqual(new Set([true, false]));
    expect(multi.map((product) => (sim.storefrontPage(product).body as unknown as Page).buybox.items.length > 0)).toEqual(shows);
  });

  it.each([
    ['string', '70000007'],
    ['absent', undefined],
  ] as const)('buyboxTsin %s', (form, expected) => {
    const page = pageOf(simulation(1, { buyboxTsin: form }), 0);
    expect(page.buybox.tsin).toBe(expected);
  });

  it('logs the slot holders of each variant apart', () => {
    const sim = simulation(2);
    const keys = Object.keys(sim.slotLog.summary().products);
    const [single, red, blue] = sim.market.products;
    expect(keys).toEqual(expect.arrayContaining([String(single!.plid), `${red!.plid}~${red!.own.tsin_id}`, `${blue!.plid}~${blue!.own.tsin_id}`]));
    expect(keys).not.toContain(String(red!.plid));
  });
});
