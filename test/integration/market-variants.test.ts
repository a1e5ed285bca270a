import type { MarketOffer, ProductMarket } from '../../lambdas/marketplace/port.js';
import type { Product } from '../../tools/market/catalogue.js';
import type { MarketSimulator } from '../../tools/market/index.js';
import { connectorRecord, fees, productRecord } from '../support/fixtures.js';
import { marketHarness } from '../support/market-harness.js';
import { startTestMarket, stopTestMarket } from '../support/test-market.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { canonicalPriceChanges } from '../support/repricing.js';
import { step } from '../support/story.js';
import { saveSuggestConnection } from '../support/suggest-connection.js';
import { storefrontOffer } from '../support/storefront-offers.js';

/**
 * A product page's buy box belongs to one variant of its product line (docs/market-sync.md,
 * "Variants"), and what the service could not read it does not count as absent
 * (docs/market-loop.md): two SKUs on one product line never take each other's rivals, a
 * variant no page showed decides nothing, and a page whose rivals could not be read is not a
 * market without rivals.
 */
let api: TestApi;
const alice: [string, string] = ['variants-alice', 'variants-alice-password-1'];
let clientId: string;
let sync: typeof import('../../lambdas/market/market-sync.js');
let evaluate: typeof import('../../lambdas/functions/evaluate-repricers/evaluate.js');
const connector = { uid: 'takealot', sellerId: 'me', storefrontUrl: 'https://storefront.example' };
const json = { 'content-type': 'application/json' };
const both = { bestPrice: true, fastestDelivery: true };

const page = (lineId: string, offers: MarketOffer[], extra: Partial<ProductMarket> = {}): ProductMarket => ({
  productLineId: lineId,
  offers,
  buyBoxShown: offers.length > 0,
  skipped: 0,
  ...extra,
});

type Preview = { offers: { would_decide: number | null }[]; market: { state: string; reason: string | null; note: string | null } };
const decisions = async (code: string) =>
  (await canonicalPriceChanges(api.tableName, clientId)).map((item) => item.record).filter((change) => change.product_code === code);
const preview = async (id: number): Promise<Preview> => {
  const response = await api.request<Preview>('GET', `/v1/repricers/${id}/preview`, { auth: alice });
  expect(response.status).toBe(200);
  return response.body;
};
const previewBody = async (code: string): Promise<Preview> => {
  const response = await api.request<Preview>('POST', '/v1/repricers/preview', {
    auth: alice,
    body: { product_code: code, preferred_price: 300, preferred_profit: 187 },
    headers: json,
  });
  expect(response.status).toBe(200);
  return response.body;
};
/** Every offer of the connector stored under the product: id, price and status. */
const offersOf = async (code: string) => {
  const { readProductForRepricing } = await import('../../lambdas/data/repricing/inputs.js');
  return (await readProductForRepricing(clientId, code))!.offers
    .filter((offer) => offer.scope === 'other')
    .map((offer) => [offer.fields.offer_id, offer.fields.offer_price, offer.fields.offer_status] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1));
};

/** Alice's own offer on `sku`, variant `variantId` of line `lineId`, at 150 as the seller API reports it, and a repricer for it. */
const ownProduct = async (sku: string, lineId: string, variantId: string | undefined, offerId: string) => {
  await sync.applyOwnOffers(clientId, connector, [
    {
      offerId,
      sku,
      title: `Product ${sku}`,
      productLineId: lineId,
      ...(variantId === undefined ? {} : { variantId }),
      sellingPrice: 150,
      rrp: 400,
      status: 'buyable',
      stockOnHand: 3,
      shipsNow: true,
    },
  ]);
  const response = await api.request<{ id: number }>('POST', '/v1/repricers/', {
    auth: alice,
    // Floor 80 (300 - 187 / 0.85), ceiling 300.
    body: { product_code: sku, preferred_price: 300, preferred_profit: 187 },
    headers: json,
  });
  if (response.status !== 201) throw new Error(`Creating a repricer answered ${response.status}: ${response.text}`);
  await api.settle();
  return response.body.id;
};

beforeAll(async () => {
  api = await startTestApi();
  clientId = (await api.createClient(alice[0], { password: alice[1], sellerId: 'me', connector: 'takealot' })).clientId;
  await api.importRecords(alice[0], [
    connectorRecord('takealot'),
    ...['SKU-RED', 'SKU-BLUE', 'SKU-SOLO', 'SKU-TWIN', 'SKU-LONE'].map((code) => productRecord(code, { fee_estimates: { takealot: fees(5, 15) } })),
  ]);
  sync = await import('../../lambdas/market/market-sync.js');
  evaluate = await import('../../lambdas/functions/evaluate-repricers/evaluate.js');
  await saveSuggestConnection(clientId, 'tk_live_variants_key_01');
}, 120_000);
afterAll(async () => api?.close());

it("two SKUs on one product line: a page of one variant never moves or deletes the other's rivals, and the unseen variant decides nothing", async () => {
  const red = await ownProduct('SKU-RED', 'PLID7', 'T-RED', '701');
  const blue = await ownProduct('SKU-BLUE', 'PLID7', 'T-BLUE', '702');
  const choice = { multiVariant: true };

  await step('a page that once showed the blue variant gives SKU-BLUE its rivals, keyed by line and variant', async () => {
    const shown = page('PLID7', [storefrontOffer('s1', 160, both), storefrontOffer('s2', 170), storefrontOffer('me', 150)], { ...choice, variantId: 'T-BLUE' });
    expect(await sync.applyProductMarket(clientId, connector, 'SKU-BLUE', shown)).toMatchObject({ kind: 'applied' });
    await api.settle();
    expect(await offersOf('SKU-BLUE')).toEqual([
      ['takealot:PLID7~T-BLUE:s1', 160, 'buyable'],
      ['takealot:PLID7~T-BLUE:s2', 170, 'buyable'],
    ]);
  });
  const blueDecisions = (await decisions('SKU-BLUE')).length;
  const blueRivals = await offersOf('SKU-BLUE');

  await step('the page now shows the red variant: SKU-RED takes it, SKU-BLUE keeps its rivals as they were', async () => {
    const shown = page('PLID7', [storefrontOffer('s1', 120, both), storefrontOffer('s3', 130), storefrontOffer('me', 150)], { ...choice, variantId: 'T-RED' });
    expect(await sync.applyProductMarket(clientId, connector, 'SKU-RED', shown)).toMatchObject({ kind: 'applied' });
    expect(await sync.applyProductMarket(clientId, connector, 'SKU-BLUE', shown)).toEqual({ kind: 'unknown', reason: 'variant_not_shown', skipped: 0 });
    await api.settle();
    expect(await offersOf('SKU-RED')).toEqual([
      ['takealot:PLID7~T-RED:s1', 120, 'buyable'],
      ['takealot:PLID7~T-RED:s3', 130, 'buyable'],
    ]);
    expect(await offersOf('SKU-BLUE')).toEqual(blueRivals);
  });

  await step('SKU-RED is priced from its own page; SKU-BLUE decides nothing, and both previews say so', async () => {
    expect((await decisions('SKU-RED')).map((change) => [change.new_price, change.reason])).toEqual([[119, 'undercut']]);
    expect(await decisions('SKU-BLUE')).toHaveLength(blueDecisions);
    expect(await evaluate.evaluateProduct(clientId, 'SKU-BLUE', 90)).toEqual([]);
    expect((await preview(red)).market).toMatchObject({ state: 'known', reason: null });
    const unseen = await preview(blue);
    expect(unseen.market).toMatchObject({ state: 'unknown', reason: 'variant_not_shown' });
    expect(unseen.market.note).toMatch(/variant/);
    expect(unseen.offers.map((offer) => offer.would_decide)).toEqual([null]);
    expect((await previewBody('SKU-BLUE')).market).toMatchObject({ state: 'unknown', reason: 'variant_not_shown' });
  });

  await step('a page of several variants that shows no buy box shows no variant: neither decides, nothing is written, no quick re-read', async () => {
    const blank = page('PLID7', [], choice);
    for (const code of ['SKU-RED', 'SKU-BLUE']) {
      expect(await sync.applyProductMarket(clientId, connector, code, blank)).toEqual({ kind: 'unknown', reason: 'variant_not_shown', skipped: 0 });
    }
    await api.settle();
    expect((await preview(red)).market).toMatchObject({ state: 'unknown', reason: 'variant_not_shown' });
    expect(await offersOf('SKU-BLUE')).toEqual(blueRivals);
    expect((await offersOf('SKU-RED')).map(([, , status]) => status)).toEqual(['buyable', 'buyable']);
  });

  await step('a page of one variant naming another variant is not the product’s either', async () => {
    const other = page('PLID7', [storefrontOffer('s1', 100, both), storefrontOffer('me', 150)], { variantId: 'T-GREEN' });
    expect(await sync.applyProductMarket(clientId, connector, 'SKU-RED', other)).toEqual({ kind: 'unknown', reason: 'variant_not_shown', skipped: 0 });
  });
});

it('a product of unknown variant still takes a page of one variant, as before', async () => {
  const solo = await ownProduct('SKU-SOLO', 'PLID8', undefined, '801');
  const result = await sync.applyProductMarket(
    clientId,
    connector,
    'SKU-SOLO',
    page('PLID8', [storefrontOffer('s1', 140, both), storefrontOffer('me', 150)], { variantId: '9001' }),
  );
  expect(result).toMatchObject({ kind: 'applied' });
  await api.settle();
  expect(await offersOf('SKU-SOLO')).toEqual([['takealot:PLID8:s1', 140, 'buyable']]);
  expect((await preview(solo)).market).toMatchObject({ state: 'known' });
  // A second product of the line, its variant not known either, claims the same offers: they are not moved to it.
  const twin = await ownProduct('SKU-TWIN', 'PLID8', undefined, '802');
  const again = page('PLID8', [storefrontOffer('s1', 141, both), storefrontOffer('me', 150)]);
  expect(await sync.applyProductMarket(clientId, connector, 'SKU-TWIN', again)).toEqual({ kind: 'unknown', reason: 'variant_not_shown', skipped: 0 });
  await api.settle();
  expect(await offersOf('SKU-SOLO')).toEqual([['takealot:PLID8:s1', 140, 'buyable']]);
  expect(await offersOf('SKU-TWIN')).toEqual([]);
  expect((await preview(twin)).market).toMatchObject({ state: 'unknown', reason: 'variant_not_shown' });
  // ...but not a page of several variants: without its variant, it cannot tell which is its own.
  expect(
    await sync.applyProductMarket(
      clientId,
      connector,
      'SKU-SOLO',
      page('PLID8', [storefrontOffer('s1', 140, both)], { variantId: '9001', multiVariant: true }),
    ),
  ).toEqual({
    kind: 'unknown',
    reason: 'variant_not_shown',
    skipped: 0,
  });
});

it('a page whose rivals could not be read is not a market without rivals: nothing is decided, never the ceiling', async () => {
  const lone = await ownProduct('SKU-LONE', 'PLID9', undefined, '901');
  await step('the own offer read, two entries left out (no seller, no price): unknown, nothing written, no decision', async () => {
    const unreadable = page('PLID9', [storefrontOffer('me', 150, both)], { skipped: 2 });
    expect(await sync.applyProductMarket(clientId, connector, 'SKU-LONE', unreadable)).toEqual({ kind: 'unknown', reason: 'rivals_unreadable', skipped: 2 });
    await api.settle();
    // Were it read as alone, the target would be the ceiling, 300.
    expect(await decisions('SKU-LONE')).toEqual([]);
    expect(await evaluate.evaluateProduct(clientId, 'SKU-LONE', 90)).toEqual([]);
    const body = await preview(lone);
    expect(body.market).toMatchObject({ state: 'unknown', reason: 'rivals_unreadable' });
    expect(body.offers.map((offer) => offer.would_decide)).toEqual([null]);
  });
  await step('the only rival with a value the service cannot store counts the same', async () => {
    const unstorable = page('PLID9', [storefrontOffer('me', 150, both), storefrontOffer('s1', 12.345)]);
    expect(await sync.applyProductMarket(clientId, connector, 'SKU-LONE', unstorable)).toEqual({ kind: 'unknown', reason: 'rivals_unreadable', skipped: 1 });
  });
  await step('a page with a readable rival beside the unreadable entries is priced from that rival', async () => {
    const readable = page('PLID9', [storefrontOffer('me', 150), storefrontOffer('s1', 140, both)], { skipped: 1 });
    expect(await sync.applyProductMarket(clientId, connector, 'SKU-LONE', readable)).toMatchObject({ kind: 'applied', skipped: 1 });
    await api.settle();
    expect((await decisions('SKU-LONE')).map((change) => change.new_price)).toEqual([139]);
  });
  await step('alone with nothing left out is still alone: the ceiling', async () => {
    expect(await sync.applyProductMarket(clientId, connector, 'SKU-LONE', page('PLID9', [storefrontOffer('me', 139, both)]))).toMatchObject({
      kind: 'applied',
    });
    await api.settle();
    expect((await decisions('SKU-LONE')).map((change) => change.new_price).at(-1)).toBe(300);
  });
});

describe('against the simulator: a product line of two variants, the page showing the default one', () => {
  let market: MarketSimulator;
  const bob: [string, string] = ['variants-bob', 'variants-bob-password-1'];

  beforeAll(async () => {
    // Lines of 1 and 2 variants: product 1 alone, products 2 (the default variant) and 3 on one line.
    market = await startTestMarket({ seed: 17, products: 3, competitors: 3, variants: 2 });
  });
  afterAll(async () => stopTestMarket(market));

  it('prices the shown variant from its page, and never the other from it: its rivals stay, it decides nothing, the preview says why', async () => {
    const [, shown, unseen] = market.simulation.market.products as [Product, Product, Product];
    expect([shown.plid, market.simulation.market.lineOf(unseen)[0]]).toEqual([unseen.plid, shown]);
    const { clientId: bobId } = await api.createClient(bob[0], { password: bob[1] });
    await api.importRecords(bob[0], [connectorRecord('takealot')]);
    const put = await api.request<{ uid: string }>('PUT', '/v1/connections/takealot', {
      auth: bob,
      body: { api_key: market.apiKey, mode: 'suggest', seller_id: market.options.sellerId },
    });
    expect(put.status).toBe(201);
    const loop = marketHarness(api);
    const tick = () => loop.tick({ uids: [put.body.uid], redeliver: 2 });
    const ofBob = async (code: string) => {
      const { readProductForRepricing } = await import('../../lambdas/data/repricing/inputs.js');
      return (await readProductForRepricing(bobId, code))!;
    };

    await step('the first tick syncs both variants with their tsins and reads the line’s page for each', async () => {
      await tick();
      expect((await ofBob(shown.own.sku)).variantId).toBe(String(shown.own.tsin_id));
      expect((await ofBob(unseen.own.sku)).variantId).toBe(String(unseen.own.tsin_id));
    });

    const repricers = new Map<string, number>();
    for (const product of [shown, unseen]) {
      const created = await api.request<{ id: number }>('POST', '/v1/repricers', {
        auth: bob,
        body: {
          product_code: product.own.sku,
          preferred_price: product.own.rrp,
          preferred_profit: product.own.rrp - Math.ceil(product.own.selling_price / 2),
          connector: 'takealot',
        },
        headers: json,
      });
      expect(created.status).toBe(201);
      repricers.set(product.own.sku, created.body.id);
    }
    await api.settle();

    // As if the storefront had once shown the unseen variant: its own rivals, under its own product.
    const once: ProductMarket = {
      productLineId: String(unseen.plid),
      variantId: String(unseen.own.tsin_id),
      multiVariant: true,
      offers: [storefrontOffer('31000001', unseen.own.selling_price + 40, both), storefrontOffer(market.options.sellerId, unseen.own.selling_price)],
      buyBoxShown: true,
      skipped: 0,
    };
    const bobConnector = { uid: 'takealot', sellerId: market.options.sellerId, storefrontUrl: market.storefrontUrl };
    await sync.applyProductMarket(bobId, bobConnector, unseen.own.sku, once);
    await api.settle();
    const rivalsOnce = (await ofBob(unseen.own.sku)).offers.filter((offer) => offer.scope === 'other').map((offer) => offer.fields);
    expect(rivalsOnce.map((offer) => offer.offer_id)).toEqual([`takealot:${unseen.plid}~${unseen.own.tsin_id}:31000001`]);
    const bobDecisions = async (code: string) =>
      (await canonicalPriceChanges(api.tableName, bobId)).map((item) => item.record).filter((change) => change.product_code === code);
    const unseenDecisions = (await bobDecisions(unseen.own.sku)).length;

    await step('while the bots move, every page read serves the shown variant and leaves the other as it was', async () => {
      for (let round = 0; round < 3; round++) {
        market.control.tick(3);
        await api.request('POST', '/v1/connections/takealot/sync', { auth: bob });
        await tick();
      }
      const shownRivals = (await ofBob(shown.own.sku)).offers.filter((offer) => offer.scope === 'other' && offer.fields.offer_status === 'buyable');
      const listed = market.simulation.market.listedOffers(shown).filter((offer) => offer.seller.seller_id !== Number(market.options.sellerId));
      expect(shownRivals.map((offer) => offer.fields.offer_id).sort()).toEqual(
        listed.map((offer) => `takealot:${shown.plid}~${shown.own.tsin_id}:${offer.seller.seller_id}`).sort(),
      );
      expect((await ofBob(unseen.own.sku)).offers.filter((offer) => offer.scope === 'other').map((offer) => offer.fields)).toEqual(rivalsOnce);
      expect(await bobDecisions(unseen.own.sku)).toHaveLength(unseenDecisions);
    });

    await step('the previews say which market each would decide from', async () => {
      const shownPreview = await api.request<Preview>('GET', `/v1/repricers/${repricers.get(shown.own.sku)}/preview`, { auth: bob });
      expect(shownPreview.body.market).toMatchObject({ state: 'known' });
      const unseenPreview = await api.request<Preview>('GET', `/v1/repricers/${repricers.get(unseen.own.sku)}/preview`, { auth: bob });
      expect(unseenPreview.body.market).toMatchObject({ state: 'unknown', reason: 'variant_not_shown' });
      expect(unseenPreview.body.offers.map((offer) => offer.would_decide)).toEqual([null]);
    });
  });
});
