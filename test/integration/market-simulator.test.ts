/**
 * The marketplace simulator over real HTTP on 127.0.0.1: what the connector will do against it
 * (page the offers with the key, batch-update a price and poll it, read a product page), and
 * what it must survive (a revoked key, rate limits, faults switched on through the control API).
 */
import { createMarketSimulator, type MarketSimulator } from '../../tools/market/index.js';

let market: MarketSimulator;

beforeAll(async () => {
  market = await createMarketSimulator({
    port: 0,
    seed: 11,
    products: 230,
    competitors: 5,
    tickIntervalMs: 0,
    batchDelayMs: 300,
    storefrontRateLimit: { capacity: 3, refillPerSecond: 0.5 },
  });
});

afterAll(async () => market?.stop());

const seller = (path: string, init: RequestInit & { key?: string } = {}) =>
  fetch(`${market.sellerApiUrl}${path}`, {
    ...init,
    headers: {
      'content-type': 'application/json',
      ...(init.key === undefined ? { 'X-API-Key': market.apiKey } : init.key === '' ? {} : { 'X-API-Key': init.key }),
      ...init.headers,
    },
  });

const control = async (path: string, body?: unknown) =>
  (await fetch(`${market.url}/_control/${path}`, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) })).json() as Promise<any>;

const pageAll = async (query = '') => {
  const offers: any[] = [];
  let token: string | null = null;
  let count = 0;
  for (let page = 0; page < 20; page++) {
    const response = await seller(`/offers?limit=100&include_count=true${query}${token === null ? '' : `&continuation_token=${encodeURIComponent(token)}`}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-limit')).toBe('100');
    const body: any = await response.json();
    offers.push(...body.items);
    count = body.count;
    token = body.continuation_token;
    if (token === null) break;
  }
  return { offers, count };
};

describe('the marketplace simulator over HTTP', () => {
  it('listens on loopback only', () => {
    expect(market.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('pages every own offer with the key, stock included when expanded', async () => {
    const { offers, count } = await pageAll('&expands=takealot_warehouse_stock');
    expect(count).toBe(230);
    expect(new Set(offers.map((offer) => offer.offer_id)).size).toBe(230);
    expect(offers[0]).toHaveProperty('takealot_warehouse_stock');
    expect(offers[0]).not.toHaveProperty('seller_warehouse_stock');
  });

  it('answers page 2 without a token when the page-2 bug is switched on, and count shows what is missing', async () => {
    await control('faults', { page2Bug: true });
    try {
      const { offers, count } = await pageAll();
      expect(offers).toHaveLength(200);
      expect(count).toBe(230);
    } finally {
      await control('faults', { page2Bug: false });
    }
  });

  it('batch-updates a price, polls it to SUCCESS, and the price is applied and counted', async () => {
    const { offers } = await pageAll();
    const target = offers[3];
    const price = target.selling_price - 7;
    const submitted = await seller('/offers/batch', {
      method: 'POST',
      body: JSON.stringify({ offers: [{ sku: target.sku, selling_price: price }] }),
      headers: { 'X-Request-Id': 'r-1' },
    });
    expect(submitted.status).toBe(200);
    const { batch_id, status } = (await submitted.json()) as any;
    expect(status).toBe('pending');
    let batch: any;
    for (let poll = 0; poll < 40; poll++) {
      batch = await (await seller(`/offers/batch/${batch_id}`)).json();
      if (batch.status !== 'pending') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(batch).toMatchObject({ batch_id, status: 'SUCCESS', results: [{ offer_id: target.offer_id, sku: target.sku, status: 'SUCCESS' }] });
    const offer: any = await (await seller(`/offers/by_sku/${encodeURIComponent(target.sku)}`)).json();
    expect(offer.selling_price).toBe(price);
    const prices = await control('prices');
    expect(prices.offers.find((entry: any) => entry.offer_id === target.offer_id)).toMatchObject({ count: 1, min: price, max: price });
  });

  it('refuses a price above RRP on PATCH with the marketplace message', async () => {
    const { offers } = await pageAll();
    const response = await seller(`/offers/${offers[0].offer_id}`, { method: 'PATCH', body: JSON.stringify({ selling_price: offers[0].rrp + 1 }) });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ message: 'selling price must be <= RRP' });
  });

  it('serves a product page with the buy box, and the own price moves it', async () => {
    const product = market.simulation.market.products[0]!;
    const page = async (minor: number) => {
      const response = await fetch(`${market.storefrontUrl}/rest/v-1-${minor}-0/product-details/PLID${product.plid}`);
      expect(response.status).toBe(200);
      return (await response.json()) as any;
    };
    const before = await page(10);
    expect(before.buybox.items[0].is_selected).toBe(true);
    const all = [...before.buybox.items, ...before.other_offers.conditions[0].items];
    expect(all).toHaveLength(1 + product.competitors.filter((offer) => offer.available).length);
    const patched = await seller(`/offers/${product.own.offer_id}`, { method: 'PATCH', body: JSON.stringify({ selling_price: 1 }) });
    expect(patched.status).toBe(200);
    const after = await page(19);
    expect(after.buybox.items[0]).toMatchObject({ sku: product.own.sku, price: 1, is_selected: true });
  });

  it('rate-limits the storefront per caller with 429 and Retry-After', async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let request = 0; request < 6; request++) {
      const response = await fetch(`${market.storefrontUrl}/rest/v-1-10-0/product-details/PLID${market.simulation.market.products[1]!.plid}`);
      statuses.push(response.status);
      if (response.status === 429) retryAfter = response.headers.get('retry-after');
      await response.arrayBuffer();
    }
    expect(statuses).toContain(429);
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(4);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  });

  it('answers 500 while the error rate is 1, and recovers when it is set back', async () => {
    await control('faults', { errorRate: 1 });
    try {
      expect((await seller('/offers?limit=1')).status).toBe(500);
    } finally {
      await control('faults', { errorRate: 0 });
    }
    expect((await seller('/offers?limit=1')).status).toBe(200);
  });

  it('refuses a missing key (401), a wrong key (403) and, once revoked, the issued key (403)', async () => {
    expect((await seller('/offers', { key: '' })).status).toBe(401);
    expect((await seller('/offers', { key: 'not-the-key-at-all' })).status).toBe(403);
    const revoked = await control('revoke-key', {});
    expect(revoked).toEqual({ revoked: true });
    const response = await seller('/offers');
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ message: 'API key has been revoked' });
    const { api_key } = await control('revoke-key', { reissue: true });
    expect((await seller('/offers?limit=1', { key: api_key })).status).toBe(200);
  });

  it('moves the bots on POST /_control/tick', async () => {
    const before = await control('state');
    const ticked = await control('tick', { count: 5 });
    expect(ticked.ticks).toBe(before.ticks + 5);
  });
});
