/**
 * Several seller accounts on shared product lines (the `sellers` option, catalogue.ts
 * accountOffers): each account its own key and seller id; every account's offer on a product is
 * on its page and in the buy-box rule; each account's seller API sees and moves only its own
 * offers and batches; one seller (the default) is the market it always was.
 */
import { ManualClock } from '../../../tools/market/clock.js';
import { createMarketSimulator, type MarketSimulator } from '../../../tools/market/index.js';
import { Simulation } from '../../../tools/market/simulation.js';

const SEEDS = [1, 7, 23];
const simulation = (seed: number, sellers: number, sellersPerProduct = 3) =>
  new Simulation({ seed, products: 12, competitors: 3, sellers, sellersPerProduct, variants: 2, clock: new ManualClock(), tickIntervalMs: 1_000 });

const sellersOn = (sim: Simulation, index: number): number[] => {
  const product = sim.market.products[index]!;
  return [0, ...(product.accounts ?? []).map((entry) => entry.account)];
};

describe('several seller accounts', () => {
  it.each(SEEDS)('seed %i: one seller is the market as it was; several add offers of their own, seeded, each product sold by 1..k accounts', (seed) => {
    const one = simulation(seed, 1).market.snapshot();
    const several = simulation(seed, 4);
    // The first account's offers, the competitors and the bots are the seed's whatever the number of sellers.
    const base = (products: typeof one.products) => products.map((product) => [product.own, product.competitors]);
    expect(base(several.market.snapshot().products)).toEqual(base(one.products));
    expect(one.products.every((product) => product.accounts === undefined)).toBe(true);
    expect(simulation(seed, 4).market.snapshot()).toEqual(several.market.snapshot());
    const counts = several.market.products.map((_, index) => sellersOn(several, index).length);
    expect(counts.every((count) => count >= 1 && count <= 3)).toBe(true);
    expect(new Set(counts).size).toBeGreaterThan(1);
    // Ids are unique across the accounts; each account's ids are in its own range.
    const ids = several.market.products.flatMap((product) => [product.own.offer_id, ...(product.accounts ?? []).map((entry) => entry.offer.offer_id)]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(several.accounts.map((account) => account.sellerId)).toEqual(['1000001', '1000002', '1000003', '1000004']);
    expect(new Set(several.accounts.map((account) => account.initialApiKey)).size).toBe(4);
  });

  it.each(SEEDS)('seed %i: every account selling a product is on its page and in the buy-box rule', (seed) => {
    const sim = simulation(seed, 4);
    for (const product of sim.market.products) {
      const listed = sim.market.listedOffers(product).map((offer) => offer.seller.seller_id);
      for (const account of [0, ...(product.accounts ?? []).map((entry) => entry.account)]) {
        expect(listed).toContain(Number(sim.accounts[account]!.sellerId));
      }
      const others = sim.accounts.filter((account) => account.index !== 0 && !(product.accounts ?? []).some((entry) => entry.account === account.index));
      for (const account of others) expect(listed).not.toContain(Number(account.sellerId));
    }
    // The cheapest offer of a second account wins Best Price when nobody undercuts it.
    const contested = sim.market.products.find((product) => (product.accounts ?? []).length > 0)!;
    const seat = contested.accounts![0]!;
    seat.offer.selling_price = 1;
    expect(sim.market.buyBox(contested).bestPrice?.id).toBe(String(seat.offer.offer_id));
  });

  it.each(SEEDS)('seed %i: a storefront glitch shows a bot’s price wrong, never an account’s offer', (seed) => {
    const sim = simulation(seed, 4, 4);
    sim.glitch.start({ fraction: 0.3, share: 1, reads: 100 });
    for (const product of sim.market.products) {
      const wrong = sim.glitch.wrongPriceOn(product, sim.market.listedOffers(product));
      const accounts = [product.own, ...(product.accounts ?? []).map((entry) => entry.offer)].map((offer) => String(offer.offer_id));
      if (wrong) expect(accounts).not.toContain(wrong.offerId);
    }
  });

  it('answers refused keys as before: a wrong key 403 invalid, a revoked key of any account 403 revoked', () => {
    const sim = simulation(1, 3);
    expect(sim.accountFor(undefined)).toEqual({ check: 'missing' });
    expect(sim.accountFor('not-a-key-of-anyone')).toEqual({ check: 'invalid' });
    expect(sim.accountFor(sim.accounts[2]!.initialApiKey)).toEqual({ check: 'ok', account: 2 });
    sim.accounts[2]!.keys.revoke(false);
    expect(sim.accountFor(sim.accounts[2]!.initialApiKey)).toEqual({ check: 'revoked' });
    expect(sim.accountFor(sim.accounts[1]!.initialApiKey)).toEqual({ check: 'ok', account: 1 });
  });
});

describe('several seller accounts over HTTP', () => {
  let market: MarketSimulator;

  beforeAll(async () => {
    market = await createMarketSimulator({ port: 0, seed: 5, products: 10, competitors: 2, sellers: 3, tickIntervalMs: 0, batchDelayMs: 0 });
  });
  afterAll(async () => {
    await market?.stop();
  });

  type OfferItem = { offer_id: number; sku: string; selling_price: number; productline_id: number };
  const seller = async (account: number, path: string, init: { method?: string; body?: unknown } = {}) => {
    const response = await fetch(`${market.sellerApiUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: { 'X-API-Key': market.sellers[account]!.apiKey, 'Content-Type': 'application/json' },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const offersOf = async (account: number) => (await seller(account, '/offers?limit=1000')).body.items as OfferItem[];

  it("lists each account's own offers only, and refuses another account's offer and batch", async () => {
    const sim = market.simulation;
    const [first, second] = [await offersOf(0), await offersOf(1)];
    expect(first.map((offer) => offer.offer_id)).toEqual(sim.market.products.map((product) => product.own.offer_id));
    expect(second.map((offer) => offer.offer_id)).toEqual(sim.market.accountSeats(1).map((seat) => seat.offer.offer_id));
    expect(second.length).toBeGreaterThan(0);
    expect(second.every((offer) => !first.some((own) => own.offer_id === offer.offer_id))).toBe(true);
    // The second account's offers are on product lines the first sells too.
    expect(second.every((offer) => first.some((own) => own.productline_id === offer.productline_id))).toBe(true);
    expect((await seller(1, `/offers/${first[0]!.offer_id}`)).status).toBe(404);
    expect((await seller(0, `/offers/${second[0]!.offer_id}`)).status).toBe(404);
    const batch = await seller(0, '/offers/batch', {
      method: 'POST',
      body: { offers: [{ offer_id: first[0]!.offer_id, selling_price: first[0]!.selling_price }] },
    });
    expect((await seller(1, `/offers/batch/${String(batch.body.batch_id)}`)).status).toBe(404);
    expect((await seller(0, `/offers/batch/${String(batch.body.batch_id)}`)).status).toBe(200);
  });

  it("moves only the pushing account's offers; the page of the product shows every account's offer at its price", async () => {
    const sim = market.simulation;
    const seat = sim.market.accountSeats(1)[0]!;
    const ownBefore = seat.product.own.selling_price;
    const price = Math.max(1, seat.offer.selling_price - 3);
    // A batch naming the first account's offer of the same product by its id changes nothing of it: not this account's.
    const batch = await seller(1, '/offers/batch', {
      method: 'POST',
      body: {
        offers: [
          { sku: seat.offer.sku, selling_price: price },
          { offer_id: seat.product.own.offer_id, selling_price: 1 },
        ],
      },
    });
    market.control.settleBatches();
    const status = await seller(1, `/offers/batch/${String(batch.body.batch_id)}`);
    expect(status.body).toMatchObject({ status: 'FAILURE', results: [{ offer_id: seat.offer.offer_id, status: 'SUCCESS' }, { status: 'FAILURE' }] });
    expect(seat.offer.selling_price).toBe(price);
    expect(seat.product.own.selling_price).toBe(ownBefore);
    const page = (await (await fetch(`${market.storefrontUrl}/rest/v-1-10-0/product-details/PLID${seat.product.plid}`)).json()) as {
      buybox: { items: { price: number; seller: { seller_id: number } }[] };
      other_offers: { conditions: { items: { price: number; seller: { seller_id: number } }[] }[] };
    };
    const shown = [...page.buybox.items, ...page.other_offers.conditions.flatMap((condition) => condition.items)];
    expect(shown).toContainEqual(expect.objectContaining({ price, seller: expect.objectContaining({ seller_id: Number(market.sellers[1]!.sellerId) }) }));
    expect(shown).toContainEqual(
      expect.objectContaining({ price: ownBefore, seller: expect.objectContaining({ seller_id: Number(market.sellers[0]!.sellerId) }) }),
    );
  });

  it('lists the accounts in /_control/state with the last 4 characters of each key only', async () => {
    const response = await fetch(`${market.url}/_control/state`);
    const text = await response.text();
    const state = JSON.parse(text) as { sellers: { seller_id: string; api_key: { last4: string }; offers: number }[] };
    expect(state.sellers.map((entry) => [entry.seller_id, entry.api_key.last4])).toEqual(
      market.sellers.map((entry) => [entry.sellerId, entry.apiKey.slice(-4)]),
    );
    expect(state.sellers[0]!.offers).toBe(10);
    for (const entry of market.sellers) expect(text).not.toContain(entry.apiKey);
  });
});
