/**
 * The marketplace simulator over real HTTP on 127.0.0.1: what the connector will do against it
 * (page the offers with the key, batch-update a price and poll it, read a product page), and
 * what it must survive (a revoked key, rate limits, faults switched on through the control API).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMarketSimulator, ManualClock, signWebhook, type MarketSimulator } from '../../tools/market/index.js';
import { step } from '../support/story.js';

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
  it('serves the seller API and the storefront over HTTP, step by step: loopback, paging, the page-2 bug, batches, RRP, the buy box, limits, faults, keys, ticks', async () => {
    await step('listens on loopback only', async () => {
      expect(market.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    });
    await step('pages every own offer with the key, stock included when expanded', async () => {
      const { offers, count } = await pageAll('&expands=takealot_warehouse_stock');
      expect(count).toBe(230);
      expect(new Set(offers.map((offer) => offer.offer_id)).size).toBe(230);
      expect(offers[0]).toHaveProperty('takealot_warehouse_stock');
      expect(offers[0]).not.toHaveProperty('seller_warehouse_stock');
    });
    await step('answers page 2 without a token when the page-2 bug is switched on, and count shows what is missing', async () => {
      await control('faults', { page2Bug: true });
      try {
        const { offers, count } = await pageAll();
        expect(offers).toHaveLength(200);
        expect(count).toBe(230);
      } finally {
        await control('faults', { page2Bug: false });
      }
    });
    await step('batch-updates a price, polls it to SUCCESS, and the price is applied and counted', async () => {
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
    await step('refuses a price above RRP on PATCH with the marketplace message', async () => {
      const { offers } = await pageAll();
      const response = await seller(`/offers/${offers[0].offer_id}`, { method: 'PATCH', body: JSON.stringify({ selling_price: offers[0].rrp + 1 }) });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ message: 'selling price must be <= RRP' });
    });
    await step('serves a product page with the buy box, and the own price moves it', async () => {
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
    await step('rate-limits the storefront per caller with 429 and Retry-After', async () => {
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
    await step('answers 500 while the error rate is 1, and recovers when it is set back', async () => {
      await control('faults', { errorRate: 1 });
      try {
        expect((await seller('/offers?limit=1')).status).toBe(500);
      } finally {
        await control('faults', { errorRate: 0 });
      }
      expect((await seller('/offers?limit=1')).status).toBe(200);
    });
    await step('refuses a missing key (401), a wrong key (403) and, once revoked, the issued key (403)', async () => {
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
    await step('moves the bots on POST /_control/tick', async () => {
      const before = await control('state');
      const ticked = await control('tick', { count: 5 });
      expect(ticked.ticks).toBe(before.ticks + 5);
    });
  }, 600_000);
});

describe('the simulator sending webhooks and hanging on request', () => {
  let hooked: MarketSimulator;
  let receiver: Server;
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/events`;
    hooked = await createMarketSimulator({
      port: 0,
      seed: 2,
      products: 3,
      tickIntervalMs: 0,
      batchDelayMs: 100,
      webhook: { url, signature: 'base64-url-body' },
    });
  });

  afterAll(async () => {
    await hooked?.stop();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  const waitFor = async (condition: () => boolean) => {
    for (let poll = 0; poll < 100 && !condition(); poll++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(condition()).toBe(true);
  };

  it('sends signed events for a batch, then hangs past a caller timeout when asked, and stop() does not wait for the hang', async () => {
    await step('sends signed Offer Updated and Batch Completed events for a batch', async () => {
      const own = hooked.simulation.market.products[0]!.own;
      const response = await fetch(`${hooked.sellerApiUrl}/offers/batch`, {
        method: 'POST',
        headers: { 'X-API-Key': hooked.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ offers: [{ offer_id: own.offer_id, selling_price: own.selling_price - 1 }] }),
      });
      const { batch_id } = (await response.json()) as any;
      await waitFor(() => received.some((event) => event.headers['x-takealot-event'] === 'Batch Completed'));
      const events = received.map((event) => ({ event: event.headers['x-takealot-event'], body: JSON.parse(event.body) }));
      expect(events).toEqual([
        {
          event: 'Offer Updated',
          body: {
            seller_id: '1000001',
            offer_id: own.offer_id,
            batch_id,
            values_changed: { selling_price: { old: own.selling_price + 1, new: own.selling_price } },
          },
        },
        { event: 'Batch Completed', body: { seller_id: '1000001', batch_id, status: 'SUCCESS' } },
      ]);
      for (const event of received) {
        const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/events`;
        expect(event.headers['x-takealot-signature']).toBe(signWebhook('base64-url-body', hooked.webhookSecret, url, event.body));
      }
    });
    await step('hangs past a caller timeout when asked, and stop() does not wait for the hang', async () => {
      hooked.control.setFaults({ timeoutRate: 1, hangMs: 30_000 });
      await expect(fetch(`${hooked.sellerApiUrl}/offers`, { headers: { 'X-API-Key': hooked.apiKey }, signal: AbortSignal.timeout(300) })).rejects.toThrow();
      const hanging = fetch(`${hooked.sellerApiUrl}/offers`, { headers: { 'X-API-Key': hooked.apiKey } }).catch(() => 'closed');
      const started = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 100));
      await hooked.stop();
      await hanging;
      expect(Date.now() - started).toBeLessThan(5_000);
    });
  }, 120_000);
});

describe('the seller API rate limit over HTTP, on a manual clock', () => {
  it('refuses the request above the burst with 429 and Retry-After, and admits it once Retry-After has passed', async () => {
    const clock = new ManualClock();
    const limited = await createMarketSimulator({ port: 0, products: 2, tickIntervalMs: 0, clock, sellerRateLimit: { capacity: 2, refillPerSecond: 0.25 } });
    try {
      const get = () => fetch(`${limited.sellerApiUrl}/offers`, { headers: { 'X-API-Key': limited.apiKey } });
      const first = await get();
      expect([first.status, first.headers.get('x-ratelimit-limit'), first.headers.get('x-ratelimit-remaining')]).toEqual([200, '2', '1']);
      expect((await get()).status).toBe(200);
      const refused = await get();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('4');
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      clock.advance(3_999);
      expect((await get()).status).toBe(429);
      clock.advance(1);
      expect((await get()).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });
});
