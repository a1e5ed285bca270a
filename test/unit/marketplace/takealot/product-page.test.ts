/**
 * The storefront page read tolerantly (docs/takealot.md section 2, docs/design.md, "The marketplace loop"): every
 * reported shape of a field reads, a field of unexpected shape is unknown, an entry without a
 * seller or a price is left out and counted, and only a page whose structure is gone is refused.
 */
import { MARKETPLACE_ITSELF_SELLER_ID, MarketplaceMalformed, type ProductMarket } from '../../../../lambdas/marketplace/port.js';
import { createTakealotAdapter } from '../../../../lambdas/marketplace/takealot/adapter.js';

const pageOf = (body: unknown): Promise<ProductMarket> => {
  const fetchStub = (async () =>
    new Response(typeof body === 'string' ? body : JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } })) as typeof fetch;
  return createTakealotAdapter({ sellerApiUrl: 'https://seller.test/v1', storefrontUrl: 'https://store.test', fetch: fetchStub }).readProductMarket('40000013');
};

const seller = (sellerId: unknown, extra: Record<string, unknown> = {}) => ({ seller_id: sellerId, display_name: `Seller ${String(sellerId)}`, ...extra });

const item = (sellerId: unknown, price: unknown, extra: Record<string, unknown> = {}) => ({
  sku: `S${String(sellerId)}`,
  price,
  is_selected: false,
  seller: seller(sellerId),
  is_takealot: false,
  stock_availability: { status: 'In stock', is_leadtime: false },
  ...extra,
});

/** A page with one buy-box item and the given other offers. */
const withOthers = (...others: unknown[]) => ({ buybox: { items: [item(1, 100, { is_selected: true })] }, other_offers: { conditions: [{ items: others }] } });

const only = async (entry: unknown) => {
  const page = await pageOf(withOthers(entry));
  expect(page.offers).toHaveLength(2);
  return page.offers[1]!;
};

describe('a storefront seller rating', () => {
  it('reads a number as the average', async () => {
    const offer = await only(item(2, 100, { seller: seller(2, { rating: 4.2 }) }));
    expect(offer.ratingAvg).toBe(4.2);
    expect(offer).not.toHaveProperty('ratingCount');
  });

  it('reads an object as average and count', async () => {
    expect(await only(item(2, 100, { seller: seller(2, { rating: { average: 3.5, count: 12 } }) }))).toMatchObject({ ratingAvg: 3.5, ratingCount: 12 });
  });

  it.each([7, -1, '4.5', [4], { average: 9, count: -2 }, null])(
    'leaves an out-of-range or ill-shaped rating %j unknown, and keeps the offer',
    async (rating) => {
      const offer = await only(item(2, 100, { seller: seller(2, { rating }) }));
      expect(offer.sellerId).toBe('2');
      expect(offer).not.toHaveProperty('ratingAvg');
      expect(offer).not.toHaveProperty('ratingCount');
    },
  );

  it('leaves an absent rating unknown', async () => {
    expect(await only(item(2, 100))).not.toHaveProperty('ratingAvg');
  });
});

describe('a storefront entry’s sku, name and ids', () => {
  it('carries a numeric sku as text, and leaves an absent or ill-shaped one out', async () => {
    expect((await only(item(2, 100, { sku: 88_001_234 }))).sku).toBe('88001234');
    expect(await only(item(2, 100, { sku: undefined }))).not.toHaveProperty('sku');
    expect(await only(item(2, 100, { sku: { id: 1 } }))).not.toHaveProperty('sku');
  });

  it('reads a missing display name as empty', async () => {
    expect((await only(item(2, 100, { seller: { seller_id: 2 } }))).sellerName).toBe('');
  });

  it('reads M-prefixed, string and numeric seller ids as one seller', async () => {
    const page = await pageOf({
      buybox: { items: [item('M12345', 100, { is_selected: true, sku: 'X' })] },
      other_offers: { conditions: [{ items: [item(12345, 100, { sku: 'X' }), item('12346', 101), item('m12347', 102), item('Mx1', 103)] }] },
    });
    // The buy-box offer listed again among the others (as 12345) is counted once.
    expect(page.offers.map((offer) => offer.sellerId)).toEqual(['12345', '12346', '12347', 'Mx1']);
  });

  it('reads a price given as text, and an id of either form', async () => {
    expect(await only(item('7', '199'))).toMatchObject({ sellerId: '7', price: 199 });
  });
});

describe('who offers a buy-box item without a seller', () => {
  it('takes the selected item’s seller from the page’s seller_detail, a sponsored one’s from sponsored_ads_seller_id', async () => {
    const { seller: _selected, ...bare } = item(0, 100, { is_selected: true });
    const { seller: _second, ...sponsored } = item(0, 104, { sponsored_ads_seller_id: 'M555' });
    const page = await pageOf({ seller_detail: { seller_id: 'M444', display_name: 'Detail Seller' }, buybox: { items: [bare, sponsored] } });
    expect(page.offers.map((offer) => [offer.sellerId, offer.sellerName, offer.bestPrice, offer.fastestDelivery])).toEqual([
      ['444', 'Detail Seller', true, false],
      ['555', '', false, true],
    ]);
    expect(page).toMatchObject({ buyBoxShown: true, skipped: 0 });
  });

  it('takes the first item as the selected one when none is flagged', async () => {
    const { seller: _seller, ...bare } = item(0, 100, { is_selected: undefined });
    const page = await pageOf({ seller_detail: { seller_id: 444 }, buybox: { items: [bare] } });
    expect(page.offers).toEqual([expect.objectContaining({ sellerId: '444', bestPrice: true, fastestDelivery: true })]);
  });

  it('gives seller_detail to the selected item only: another item without a seller is left out and counted', async () => {
    const { seller: _seller, ...bare } = item(0, 104);
    const page = await pageOf({ seller_detail: { seller_id: 444 }, buybox: { items: [item(1, 100, { is_selected: true }), bare] } });
    expect(page.offers.map((offer) => offer.sellerId)).toEqual(['1']);
    expect(page.skipped).toBe(1);
    // The slot the unread item held is nobody's: the selected item does not take Fastest Delivery from it.
    expect(page.offers[0]).toMatchObject({ bestPrice: true, fastestDelivery: false });
  });

  it('reads Takealot’s own retail offer (is_takealot, no seller) as a rival with a price', async () => {
    const { seller: _seller, ...retail } = item(0, 95, { is_takealot: true });
    expect(await only(retail)).toMatchObject({ sellerId: MARKETPLACE_ITSELF_SELLER_ID, sellerName: 'Takealot', isMarketplaceItself: true, price: 95 });
  });
});

describe('entries left out', () => {
  it.each([
    ['no price', item(2, undefined)],
    ['a zero price', item(2, 0)],
    ['a negative price', item(2, -5)],
    ['a price of another shape', item(2, 'cheap')],
    ['no seller at all', { price: 100, sku: 'S2' }],
    ['a seller without an id', item(2, 100, { seller: { display_name: 'Nobody' } })],
    ['not an object', 'S2 at R100'],
  ])('leaves out an entry with %s, counts it and keeps the rest', async (_, bad) => {
    const page = await pageOf(withOthers(item(3, 110), bad, item(4, 120)));
    expect(page.offers.map((offer) => offer.sellerId)).toEqual(['1', '3', '4']);
    expect(page).toMatchObject({ buyBoxShown: true, skipped: 1 });
  });

  it('says the buy box was not shown when every buy-box item was left out, and keeps the other offers', async () => {
    const page = await pageOf({ buybox: { items: [item(1, 'n/a', { is_selected: true })] }, other_offers: { conditions: [{ items: [item(3, 110)] }] } });
    expect(page).toMatchObject({ buyBoxShown: false, skipped: 1 });
    expect(page.offers.map((offer) => offer.sellerId)).toEqual(['3']);
  });
});

describe('pages that show no buy box', () => {
  it.each([{}, { core: { id: 1 } }, { buybox: null }, { buybox: {} }, { buybox: { items: [] } }, { buybox: { items: null } }, { other_offers: {} }])(
    'reads %j as no buy box shown and no offers',
    async (body) => {
      expect(await pageOf(body)).toEqual({ productLineId: '40000013', offers: [], buyBoxShown: false, skipped: 0 });
    },
  );

  it('skips a condition that is not an object', async () => {
    const page = await pageOf({ buybox: { items: [item(1, 100)] }, other_offers: { conditions: ['New', { items: [item(2, 101)] }] } });
    expect(page.offers.map((offer) => offer.sellerId)).toEqual(['1', '2']);
  });
});

describe('pages whose structure is gone', () => {
  it.each([
    ['buybox.items a string', { buybox: { items: 'none' } }],
    ['buybox a string', { buybox: 'none' }],
    ['buybox a list', { buybox: [item(1, 100)] }],
    ['other_offers.conditions a string', { buybox: { items: [item(1, 100)] }, other_offers: { conditions: 'New' } }],
    ['a condition’s items a string', { buybox: { items: [item(1, 100)] }, other_offers: { conditions: [{ items: 'none' }] } }],
    ['the body a list', [item(1, 100)]],
    ['the body a string', JSON.stringify('page')],
  ])('refuses a page with %s as malformed', async (_, body) => {
    await expect(pageOf(body)).rejects.toBeInstanceOf(MarketplaceMalformed);
  });
});

describe('the variant a page shows', () => {
  const selectors = (...tsins: unknown[]) => ({ selectors: [{ name: 'Colour', options: tsins.map((tsin, n) => ({ tsin, value: `Colour ${n}` })) }] });

  it.each([
    ['a number', 70_000_014, '70000014'],
    ['text', '70000014', '70000014'],
  ])('reads the buy box’s tsin given as %s, on a page of one variant', async (_, tsin, expected) => {
    const page = await pageOf({ buybox: { tsin, items: [item(1, 100, { is_selected: true })] } });
    expect(page.variantId).toBe(expected);
    expect(page).not.toHaveProperty('multiVariant');
  });

  it('reads a page with variants.selectors[].options[] as one of several variants, showing the buy box’s tsin', async () => {
    const page = await pageOf({ variants: selectors(70_000_014, 70_000_021), buybox: { tsin: 70_000_021, items: [item(1, 100, { is_selected: true })] } });
    expect(page).toMatchObject({ variantId: '70000021', multiVariant: true, buyBoxShown: true });
  });

  it.each([
    ['no buy box at all', {}],
    ['an empty buy box with a tsin', { buybox: { tsin: 70_000_014, items: [] } }],
    ['buy-box items but no tsin', { buybox: { items: [item(1, 100, { is_selected: true })] } }],
    ['a tsin of unreadable shape', { buybox: { tsin: { id: 7 }, items: [item(1, 100, { is_selected: true })] } }],
  ])('says a page of several variants with %s shows no variant', async (_, body) => {
    const page = await pageOf({ variants: selectors(70_000_014, 70_000_021), ...body });
    expect(page.multiVariant).toBe(true);
    expect(page).not.toHaveProperty('variantId');
  });

  it.each([
    ['variants absent', undefined],
    ['variants null', null],
    ['selectors empty', { selectors: [] }],
    ['selectors null', { selectors: null }],
  ])('reads a page with %s as one variant', async (_, variants) => {
    const page = await pageOf({ ...(variants === undefined ? {} : { variants }), buybox: { items: [item(1, 100, { is_selected: true })] } });
    expect(page).not.toHaveProperty('multiVariant');
    expect(page.buyBoxShown).toBe(true);
  });

  it('counts selectors of an unexpected shape as a choice of variants: they cannot rule one out', async () => {
    expect((await pageOf({ variants: { selectors: 'Colour' }, buybox: { tsin: 5, items: [item(1, 100)] } })).multiVariant).toBe(true);
  });
});
