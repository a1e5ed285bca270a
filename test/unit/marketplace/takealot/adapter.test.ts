import {
  MarketplaceMalformed,
  MarketplaceRateLimited,
  MarketplaceRejected,
  MarketplaceUnauthorized,
  MarketplaceUnavailable,
} from '../../../../lambdas/marketplace/port.js';
import { createTakealotAdapter } from '../../../../lambdas/marketplace/takealot/adapter.js';
import { retryAfterMs } from '../../../../lambdas/marketplace/takealot/http.js';
import { MARKETPLACE_HOLD_MAX_MS } from '../../../../lambdas/config/marketplace-holds.js';

const KEY = 'key-0123456789abcdef';

interface Seen {
  url: string;
  init: RequestInit;
}

/** An adapter whose fetch answers from the script, recording each request. */
const scripted = (answer: (url: string) => Response | Promise<Response>) => {
  const seen: Seen[] = [];
  const fetchStub = (async (input: string | URL, init?: RequestInit) => {
    const url = input.toString();
    seen.push({ url, init: init ?? {} });
    return answer(url);
  }) as typeof fetch;
  return { seen, port: createTakealotAdapter({ sellerApiUrl: 'https://seller.test/v1/', storefrontUrl: 'https://store.test', fetch: fetchStub, pageSize: 2 }) };
};

const jsonResponse = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

const offer = (id: number, extra: Record<string, unknown> = {}) => ({
  offer_id: id,
  tsin_id: 1,
  sku: `SKU-${id}`,
  barcode: `600${id}`,
  title: `Item ${id}`,
  productline_id: 40000000 + id,
  selling_price: 100 + id,
  rrp: 200,
  minimum_leadtime_days: 3,
  status: 'buyable',
  benchmark_price: null,
  seller_warehouse_stock: [{ seller_warehouse_id: 1, quantity_available: 2 }],
  takealot_warehouse_stock: [{ warehouse: { warehouse_id: 1, name: 'JHB' }, quantity_available: 5 }],
  ...extra,
});

describe('listOwnOffers', () => {
  it('asks for a page with the key, the count and both stocks, and maps each offer', async () => {
    const { port, seen } = scripted(() =>
      jsonResponse(200, { items: [offer(1), offer(2, { barcode: null, rrp: null, tsin_id: '70000014' })], continuation_token: 'tok2', count: 5, limit: 2 }),
    );
    const page = await port.listOwnOffers(KEY, 'tok1');
    const url = new URL(seen[0]!.url);
    expect(url.origin + url.pathname).toBe('https://seller.test/v1/offers');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      limit: '2',
      include_count: 'true',
      expands: 'seller_warehouse_stock,takealot_warehouse_stock',
      continuation_token: 'tok1',
    });
    expect((seen[0]!.init.headers as Record<string, string>)['X-API-Key']).toBe(KEY);
    expect(page).toEqual({
      next: 'tok2',
      count: 5,
      skipped: 0,
      offers: [
        {
          offerId: '1',
          sku: 'SKU-1',
          barcode: '6001',
          title: 'Item 1',
          productLineId: '40000001',
          variantId: '1',
          sellingPrice: 101,
          rrp: 200,
          status: 'buyable',
          leadtimeDays: 3,
          stockOnHand: 7,
          shipsNow: true,
        },
        {
          offerId: '2',
          sku: 'SKU-2',
          title: 'Item 2',
          productLineId: '40000002',
          variantId: '70000014',
          sellingPrice: 102,
          status: 'buyable',
          leadtimeDays: 3,
          stockOnHand: 7,
          shipsNow: true,
        },
      ],
    });
  });

  it('reads a missing, null or empty continuation token as the last page', async () => {
    for (const token of [undefined, null, '']) {
      const { port } = scripted(() => jsonResponse(200, { items: [], ...(token === undefined ? {} : { continuation_token: token }) }));
      expect((await port.listOwnOffers(KEY)).next).toBeUndefined();
    }
  });

  it.each([
    ['a fractional price', offer(2, { selling_price: 10.5 })],
    ['a price as text', offer(2, { selling_price: '102' })],
    ['no price', offer(2, { selling_price: undefined })],
    ['no sku', offer(2, { sku: undefined })],
    ['an unstorable sku', offer(2, { sku: 'a\u0000b' })],
    ['no offer id', offer(2, { offer_id: undefined })],
    ['an offer id of another shape', offer(2, { offer_id: { id: 2 } })],
    ['not an object', 'offer 2'],
    ['null', null],
  ])('leaves out an item with %s, keeps the others and counts it', async (_, bad) => {
    const { port } = scripted(() => jsonResponse(200, { items: [offer(1), bad, offer(3)], count: 3 }));
    const page = await port.listOwnOffers(KEY);
    expect(page.offers.map((own) => own.offerId)).toEqual(['1', '3']);
    expect(page.skipped).toBe(1);
    expect(page.count).toBe(3);
  });

  it('reads an optional field of unexpected shape as unknown, and a numeric sku as text', async () => {
    const { port } = scripted(() => jsonResponse(200, { items: [offer(1, { rrp: '200', barcode: 6001, productline_id: [1], tsin_id: -3, sku: 12345 })] }));
    const page = await port.listOwnOffers(KEY);
    expect(page.skipped).toBe(0);
    expect(page.offers[0]).toMatchObject({ offerId: '1', sku: '12345', sellingPrice: 101 });
    expect(page.offers[0]).not.toHaveProperty('rrp');
    expect(page.offers[0]).not.toHaveProperty('barcode');
    expect(page.offers[0]).not.toHaveProperty('productLineId');
    expect(page.offers[0]).not.toHaveProperty('variantId');
  });

  it('refuses a page whose structure is gone: not JSON, no list of items', async () => {
    for (const body of ['<html>', JSON.stringify({ items: 'none' }), JSON.stringify({ offers: [] }), JSON.stringify([offer(1)])]) {
      const { port } = scripted(() => new Response(body, { status: 200 }));
      await expect(port.listOwnOffers(KEY)).rejects.toBeInstanceOf(MarketplaceMalformed);
    }
  });

  it.each([
    [401, MarketplaceUnauthorized],
    [403, MarketplaceUnauthorized],
    [429, MarketplaceRateLimited],
    [500, MarketplaceUnavailable],
    [503, MarketplaceUnavailable],
    [400, MarketplaceRejected],
  ])('maps %i to %p', async (status, type) => {
    const { port } = scripted(() => jsonResponse(status, { message: `refused ${KEY}` }, { 'Retry-After': '3' }));
    const error = await port.listOwnOffers(KEY).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(type);
    expect((error as Error).message).not.toContain(KEY);
    if (error instanceof MarketplaceRateLimited) expect(error.retryAfterMs).toBe(3_000);
  });

  it('maps a failed fetch and a timeout to MarketplaceUnavailable', async () => {
    const refused = scripted(() => Promise.reject(new TypeError('fetch failed')));
    await expect(refused.port.listOwnOffers(KEY)).rejects.toBeInstanceOf(MarketplaceUnavailable);
    const timedOut = scripted(() => Promise.reject(new DOMException('timed out', 'TimeoutError')));
    await expect(timedOut.port.listOwnOffers(KEY)).rejects.toThrow(/no answer within/);
  });
});

describe('checkKey', () => {
  it('answers rejected for a refused key and throws for faults', async () => {
    expect(await scripted(() => jsonResponse(200, { items: [] })).port.checkKey(KEY)).toBe('accepted');
    expect(await scripted(() => jsonResponse(403, { message: 'Invalid API key' })).port.checkKey(KEY)).toBe('rejected');
    await expect(scripted(() => jsonResponse(500, {})).port.checkKey(KEY)).rejects.toBeInstanceOf(MarketplaceUnavailable);
  });
});

const item = (sellerId: number, price: number, extra: Record<string, unknown> = {}) => ({
  sku: `S${sellerId}`,
  price,
  is_selected: false,
  seller: { seller_id: sellerId, display_name: `Seller ${sellerId}`, rating: { average: 4.5, count: 10 } },
  is_takealot: false,
  stock_availability: { status: 'In stock', is_leadtime: false },
  ...extra,
});

describe('readProductMarket', () => {
  it('reads the storefront page and marks the two buy-box slots', async () => {
    const leadtime = { stock_availability: { status: 'Ships in 5 - 7 work days', is_leadtime: true } };
    const { port, seen } = scripted(() =>
      jsonResponse(200, {
        core: { id: 40000001 },
        buybox: { items: [item(1, 100, { is_selected: true, ...leadtime }), item(2, 105)] },
        other_offers: { conditions: [{ condition: 'New', items: [item(3, 110, { is_takealot: true }), item(2, 105)] }] },
      }),
    );
    const market = await port.readProductMarket('40000001');
    expect(seen[0]!.url).toBe('https://store.test/rest/v-1-10-0/product-details/PLID40000001');
    expect(market.offers.map((o) => [o.sellerId, o.bestPrice, o.fastestDelivery, o.inStock, o.leadtimeDays, o.isMarketplaceItself])).toEqual([
      ['1', true, false, false, 5, false],
      ['2', false, true, true, undefined, false],
      ['3', false, false, true, undefined, true],
    ]);
  });

  it('gives both slots to the one buy-box item, and tolerates a page without a buy box', async () => {
    const one = await scripted(() => jsonResponse(200, { buybox: { items: [item(1, 100, { is_selected: true })] } })).port.readProductMarket('1');
    expect(one.offers).toEqual([expect.objectContaining({ sellerId: '1', bestPrice: true, fastestDelivery: true, ratingAvg: 4.5, ratingCount: 10 })]);
    expect(one).toMatchObject({ buyBoxShown: true, skipped: 0 });
    const none = await scripted(() => jsonResponse(200, { core: {} })).port.readProductMarket('1');
    expect(none).toMatchObject({ offers: [], buyBoxShown: false, skipped: 0 });
  });

  it('maps the bot protection’s 403 and a 429 to MarketplaceRateLimited, a page without its structure to MarketplaceMalformed', async () => {
    await expect(scripted(() => jsonResponse(403, {})).port.readProductMarket('1')).rejects.toBeInstanceOf(MarketplaceRateLimited);
    await expect(scripted(() => jsonResponse(429, {}, { 'Retry-After': '2' })).port.readProductMarket('1')).rejects.toMatchObject({ retryAfterMs: 2_000 });
    await expect(scripted(() => jsonResponse(200, { buybox: { items: 'none' } })).port.readProductMarket('1')).rejects.toBeInstanceOf(MarketplaceMalformed);
    await expect(scripted(() => jsonResponse(200, {})).port.readProductMarket('PLID1')).rejects.toBeInstanceOf(MarketplaceRejected);
  });
});

describe('sendPrices and readBatch', () => {
  it('posts whole-rand prices by offer id and returns the batch id', async () => {
    const { port, seen } = scripted(() => jsonResponse(200, { batch_id: 42, status: 'pending' }));
    expect(await port.sendPrices(KEY, [{ offerId: '90001', sellingPrice: 115 }])).toEqual({ batchId: '42' });
    expect(seen[0]!.init.method).toBe('POST');
    expect(JSON.parse(seen[0]!.init.body as string)).toEqual({ offers: [{ offer_id: 90001, selling_price: 115 }] });
  });

  it('refuses a fractional price before sending, and maps a validation error to MarketplaceRejected with its message', async () => {
    const { port, seen } = scripted(() => jsonResponse(400, { message: 'selling price must be <= RRP' }));
    await expect(port.sendPrices(KEY, [{ offerId: '1', sellingPrice: 9.5 }])).rejects.toBeInstanceOf(MarketplaceRejected);
    expect(seen).toHaveLength(0);
    await expect(port.sendPrices(KEY, [{ offerId: '1', sellingPrice: 900 }])).rejects.toThrow('selling price must be <= RRP');
  });

  it('reads a batch in either case of its status, with per-offer results', async () => {
    const body = {
      batch_id: 42,
      status: 'FAILURE',
      results: [
        { offer_id: 1, status: 'SUCCESS' },
        { offer_id: 2, status: 'FAILURE', message: 'selling price must be <= RRP' },
      ],
    };
    expect(await scripted(() => jsonResponse(200, body)).port.readBatch(KEY, '42')).toEqual({
      batchId: '42',
      state: 'failed',
      results: [
        { offerId: '1', ok: true },
        { offerId: '2', ok: false, message: 'selling price must be <= RRP' },
      ],
    });
    expect((await scripted(() => jsonResponse(200, { batch_id: '42', status: 'success' })).port.readBatch(KEY, '42')).state).toBe('succeeded');
    expect((await scripted(() => jsonResponse(200, { batch_id: 42, status: 'pending' })).port.readBatch(KEY, '42')).state).toBe('pending');
    await expect(scripted(() => jsonResponse(200, { batch_id: 42, status: 'exploded' })).port.readBatch(KEY, '42')).rejects.toBeInstanceOf(
      MarketplaceMalformed,
    );
  });
});

describe('readBatch: the reported shapes', () => {
  it('reads the v2 shape: ok when an offer has no validation error, the messages when it has', async () => {
    const body = {
      batch_id: 42,
      status: 'FAILURE',
      result: [
        { offer: { offer_id: 1, selling_price: 115 }, validation_errors: [] },
        { offer: { offer_id: '2', selling_price: 900 }, validation_errors: [{ message: 'selling price must be <= RRP', code: 'rrp' }] },
        { offer: { offer_id: 3 } },
        { offer: { sku: 'SKU-4' }, validation_errors: [{ code: 'selling_price_whole' }] },
      ],
    };
    expect(await scripted(() => jsonResponse(200, body)).port.readBatch(KEY, '42')).toEqual({
      batchId: '42',
      state: 'failed',
      results: [
        { offerId: '1', ok: true },
        { offerId: '2', ok: false, message: 'selling price must be <= RRP' },
        { offerId: '3', ok: true },
        { offerId: 'SKU-4', ok: false, message: 'selling_price_whole' },
      ],
    });
  });

  it('leaves out a result entry it cannot read, and takes the batch id asked for when the body names none', async () => {
    const body = {
      status: 'SUCCESS',
      results: [{ offer_id: 1, status: 'SUCCESS' }, 'garbage', { status: 'SUCCESS' }, { offer_id: 2 }],
      result: [{ offer: 'gone' }, { offer: { offer_id: 3 }, validation_errors: 'none' }, { offer: { offer_id: 4 } }],
    };
    expect(await scripted(() => jsonResponse(200, body)).port.readBatch(KEY, '42')).toEqual({
      batchId: '42',
      state: 'succeeded',
      results: [
        { offerId: '1', ok: true },
        { offerId: '4', ok: true },
      ],
    });
    const unlisted = await scripted(() => jsonResponse(200, { batch_id: 42, status: 'pending', results: 'later' })).port.readBatch(KEY, '42');
    expect(unlisted).toEqual({ batchId: '42', state: 'pending', results: [] });
  });

  it('refuses only a body whose batch state cannot be read', async () => {
    for (const body of [{ batch_id: 42 }, { batch_id: 42, status: 7 }, { batch_id: 42, status: 'exploded' }, [{ status: 'SUCCESS' }]]) {
      await expect(scripted(() => jsonResponse(200, body)).port.readBatch(KEY, '42')).rejects.toBeInstanceOf(MarketplaceMalformed);
    }
  });
});

describe('retryAfterMs', () => {
  it('reads seconds, an HTTP date, the rate-limit reset, and defaults', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2_000);
    expect(retryAfterMs(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 4_000)).toBe(6_000);
    expect(retryAfterMs(new Headers({ 'x-ratelimit-reset': '5' }))).toBe(5_000);
    expect(retryAfterMs(new Headers())).toBe(1_000);
  });

  const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
  const reset = (value: string) => retryAfterMs(new Headers({ 'x-ratelimit-reset': value }), NOW);

  it('reads x-RateLimit-Reset as a delta in seconds, an epoch in seconds or an epoch in milliseconds', () => {
    expect(reset('30')).toBe(30_000);
    expect(reset(String(NOW / 1000 + 45))).toBe(45_000);
    expect(reset(String(NOW + 12_500))).toBe(12_500);
    // A reset already passed asks for no wait.
    expect(reset(String(NOW / 1000 - 5))).toBe(0);
  });

  it('bounds every wait by the hold cap, whatever the header says', () => {
    expect(reset(String(NOW / 1000 + 3 * 3600))).toBe(MARKETPLACE_HOLD_MAX_MS);
    expect(reset(String(10 * 365 * 24 * 3600))).toBe(MARKETPLACE_HOLD_MAX_MS);
    expect(retryAfterMs(new Headers({ 'retry-after': '86400' }), NOW)).toBe(MARKETPLACE_HOLD_MAX_MS);
    expect(retryAfterMs(new Headers({ 'retry-after': new Date(NOW + 2 * 3600_000).toUTCString() }), NOW)).toBe(MARKETPLACE_HOLD_MAX_MS);
    expect(retryAfterMs(new Headers({ 'retry-after': new Date(NOW - 60_000).toUTCString() }), NOW)).toBe(0);
  });

  it('takes x-RateLimit-Reset when Retry-After cannot be read, and the default when neither can', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon', 'x-ratelimit-reset': '7' }), NOW)).toBe(7_000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), NOW)).toBe(1_000);
    expect(retryAfterMs(new Headers({ 'x-ratelimit-reset': '-3' }), NOW)).toBe(1_000);
  });

  it('bounds a rate limit built anywhere (the port error itself)', () => {
    expect(new MarketplaceRateLimited(1_700_000_000_000).retryAfterMs).toBe(MARKETPLACE_HOLD_MAX_MS);
    expect(new MarketplaceRateLimited(-5).retryAfterMs).toBe(0);
    expect(new MarketplaceRateLimited(2_000).retryAfterMs).toBe(2_000);
  });
});

describe('readOwnOffer', () => {
  it('reads one offer by id with both stocks; in stock only with stock in Takealot warehouses', async () => {
    const { port, seen } = scripted(() => jsonResponse(200, offer(7, { takealot_warehouse_stock: [{ quantity_available: 0 }] })));
    const snapshot = await port.readOwnOffer(KEY, '7');
    expect(new URL(seen[0]!.url).pathname).toBe('/v1/offers/7');
    expect(new URL(seen[0]!.url).searchParams.get('expands')).toBe('seller_warehouse_stock,takealot_warehouse_stock');
    expect((seen[0]!.init.headers as Record<string, string>)['X-API-Key']).toBe(KEY);
    expect(snapshot).toMatchObject({ offerId: '7', sku: 'SKU-7', sellingPrice: 107, stockOnHand: 2, shipsNow: false });
  });

  it('answers undefined for an offer the marketplace does not have, and for an id that is not one of its ids', async () => {
    const { port, seen } = scripted(() => jsonResponse(404, { message: 'offer not found' }));
    await expect(port.readOwnOffer(KEY, '8')).resolves.toBeUndefined();
    await expect(port.readOwnOffer(KEY, '../offers?limit=1')).resolves.toBeUndefined();
    expect(seen).toHaveLength(1);
  });

  it('maps a malformed offer and a refused key to their faults', async () => {
    await expect(scripted(() => jsonResponse(200, { offer_id: 'x' })).port.readOwnOffer(KEY, '9')).rejects.toBeInstanceOf(MarketplaceMalformed);
    await expect(scripted(() => jsonResponse(401, { message: 'bad key' })).port.readOwnOffer(KEY, '9')).rejects.toBeInstanceOf(MarketplaceUnauthorized);
  });
});
