import { ManualClock } from '../../../tools/market/clock.js';
import { createMarketSimulator, type MarketSimulator } from '../../../tools/market/index.js';
import { MAX_READS_PER_PRODUCT, sellerRouteName, TrafficLog } from '../../../tools/market/traffic.js';

describe('politeness counters', () => {
  it('counts a request inside a Retry-After window given to the same caller, not one at its end nor from another caller', () => {
    const log = new TrafficLog();
    log.arrived('storefront', 'a', 1_000);
    log.refused('storefront', 'a', 1_000, 'rate-limit', 2);
    log.arrived('storefront', 'b', 1_500);
    log.arrived('seller', 'a', 1_500);
    log.arrived('storefront', 'a', 2_999);
    log.arrived('storefront', 'a', 3_000);
    expect(log.summary().politeness).toEqual({
      storefront: { requests: 4, refused: 1, blocked: 0, inside_retry_after: 1 },
      seller: { requests: 1, refused: 0, blocked: 0, inside_retry_after: 0 },
    });
  });

  it('keeps the later end when a caller is refused again inside its window, and opens no window for a 403 without Retry-After', () => {
    const log = new TrafficLog();
    log.refused('seller', 'k', 0, 'rate-limit', 5);
    log.refused('seller', 'k', 1_000, 'rate-limit', 1);
    log.arrived('seller', 'k', 4_000);
    log.refused('storefront', 'h', 0, 'blocked', undefined);
    log.arrived('storefront', 'h', 10);
    const { seller, storefront } = log.summary().politeness;
    expect(seller).toMatchObject({ refused: 2, inside_retry_after: 1 });
    expect(storefront).toMatchObject({ blocked: 1, refused: 0, inside_retry_after: 0 });
  });

  it('names seller API routes without their ids', () => {
    expect(sellerRouteName('GET', '/offers')).toBe('GET /offers');
    expect(sellerRouteName('PATCH', '/offers/123')).toBe('PATCH /offers/{offer_id}');
    expect(sellerRouteName('GET', '/offers/batch/7')).toBe('GET /offers/batch/{batch_id}');
    expect(sellerRouteName('GET', '/offers/by_sku/ABC-1')).toBe('GET /offers/by_sku/{sku}');
    expect(sellerRouteName('GET', '/nothing/here')).toBe('GET (other)');
  });

  it('keeps the latest reads of each product line, oldest first', () => {
    const log = new TrafficLog();
    for (let i = 0; i < MAX_READS_PER_PRODUCT + 5; i++) log.read(7, i);
    log.read(3, 42);
    const { products } = log.readLog();
    expect(Object.keys(products)).toEqual(['3', '7']);
    expect(products['7']).toHaveLength(MAX_READS_PER_PRODUCT);
    expect(products['7']![0]).toBe(5);
    expect(log.summary().storefront_reads).toBe(MAX_READS_PER_PRODUCT + 6);
  });
});

describe('the counters over HTTP', () => {
  // A simulator per test: its counters start at zero whatever order the tests run in.
  let market: MarketSimulator;
  let clock: ManualClock;
  beforeEach(async () => {
    clock = new ManualClock();
    market = await createMarketSimulator({
      port: 0,
      products: 3,
      tickIntervalMs: 0,
      clock,
      storefrontRateLimit: { capacity: 1, refillPerSecond: 1 },
      sellerRateLimit: { capacity: 2, refillPerSecond: 1 },
    });
  });
  afterEach(() => market.stop());

  const page = (plid: number) => fetch(`${market.storefrontUrl}/rest/v-1-10-0/product-details/PLID${plid}`);
  const seller = (path: string) => fetch(`${market.sellerApiUrl}${path}`, { headers: { 'x-api-key': market.apiKey } });

  it('shows refusals, requests inside Retry-After, requests by route and the read log in /_control/state and /_control/reads', async () => {
    const plid = market.simulation.market.products[0]!.plid;
    expect((await page(plid)).status).toBe(200);
    const refused = await page(plid);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    clock.advance(500);
    expect((await page(plid)).status).toBe(429);
    clock.advance(1_000);
    expect((await page(plid)).status).toBe(200);

    const offerId = market.simulation.market.products[0]!.own.offer_id;
    expect((await seller('/offers')).status).toBe(200);
    expect((await seller(`/offers/${offerId}`)).status).toBe(200);
    expect((await seller('/offers')).status).toBe(429);

    const state = (await (await fetch(`${market.url}/_control/state`)).json()) as Record<string, any>;
    expect(state.politeness).toEqual({
      storefront: { requests: 4, refused: 2, blocked: 0, inside_retry_after: 1 },
      seller: { requests: 3, refused: 1, blocked: 0, inside_retry_after: 0 },
    });
    expect(state.requests).toEqual({ 'GET /offers': 2, 'GET /offers/{offer_id}': 1 });
    expect(JSON.stringify(state)).not.toContain(market.apiKey);
    const reads = (await (await fetch(`${market.url}/_control/reads`)).json()) as { products: Record<string, number[]> };
    const start = Date.UTC(2026, 0, 1);
    expect(reads.products).toEqual({ [String(plid)]: [start, start + 1_500] });
    expect(market.control.reads()).toEqual(reads);
    expect(market.control.traffic().storefront_reads).toBe(2);
  });

  it('counts bot-protection 403s as blocked, without a Retry-After window, and logs no read for them', async () => {
    const plid = market.simulation.market.products[1]!.plid;
    market.control.setFaults({ storefrontBlockRate: 1, storefrontBlockLength: 1 });
    try {
      const blocked = await page(plid);
      expect(blocked.status).toBe(403);
      expect(blocked.headers.get('retry-after')).toBeNull();
    } finally {
      market.control.setFaults({ storefrontBlockRate: 0 });
    }
    clock.advance(1_000);
    expect((await page(plid)).status).toBe(200);
    expect(market.control.traffic().politeness.storefront).toEqual({ requests: 2, refused: 0, blocked: 1, inside_retry_after: 0 });
    expect(market.control.reads().products[String(plid)]).toHaveLength(1);
  });
});
