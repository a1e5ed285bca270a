import type { MarketOffer, ProductMarket } from '../../lambdas/marketplace/port.js';
import { connectorRecord, fees, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { canonicalPriceChanges } from '../support/repricing.js';
import { step } from '../support/story.js';
import { saveSuggestConnection } from '../support/suggest-connection.js';
import { storefrontOffer } from '../support/storefront-offers.js';

/**
 * What the service did not see, it does not price (docs/design.md, "The marketplace loop", docs/market-sync.md): a
 * repricer on a connected marketplace decides only from a market a storefront page showed. A
 * product whose page was never read, or came back without a buy box, is unknown, not alone; a
 * known market read too long ago decides nothing, down or up. And the market sync's two
 * writers of an own offer (the seller API's sync, the storefront reader) never put back a copy
 * the other has changed.
 */
let api: TestApi;
const alice: [string, string] = ['trust-alice', 'trust-alice-password-1'];
let clientId: string;
let sync: typeof import('../../lambdas/market/market-sync.js');
let evaluate: typeof import('../../lambdas/functions/evaluate-repricers/evaluate.js');
const connector = { uid: 'takealot', sellerId: 'me', storefrontUrl: 'https://storefront.example' };
const json = { 'content-type': 'application/json' };

const page = (lineId: string, offers: MarketOffer[], buyBoxShown = true): ProductMarket => ({ productLineId: lineId, offers, buyBoxShown, skipped: 0 });
const both = { bestPrice: true, fastestDelivery: true };

const decisions = async (code: string) =>
  (await canonicalPriceChanges(api.tableName, clientId)).map((item) => item.record).filter((c) => c.product_code === code);
const preview = async (id: number) => {
  const response = await api.request<{ offers: { would_decide: number | null }[]; market: { state: string; reason: string | null } }>(
    'GET',
    `/v1/repricers/${id}/preview`,
    { auth: alice },
  );
  expect(response.status).toBe(200);
  return response.body;
};

/** The product SKU-n with Alice's own offer on it, at 130, as the seller API reports it. */
const ownProduct = async (n: number) => {
  await sync.applyOwnOffers(clientId, connector, [
    {
      offerId: `${n}`,
      sku: `SKU-${n}`,
      title: `Product ${n}`,
      productLineId: `PLID${n}`,
      sellingPrice: 130,
      rrp: 400,
      status: 'buyable',
      stockOnHand: 3,
      shipsNow: true,
    },
  ]);
  const response = await api.request<{ id: number }>('POST', '/v1/repricers/', {
    auth: alice,
    // Floor 80: 300 - 187 / 0.85 (docs/api.md, "Computed fields"); ceiling 300.
    body: { product_code: `SKU-${n}`, preferred_price: 300, preferred_profit: 187 },
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
    ...[1, 2, 3].map((n) => productRecord(`SKU-${n}`, { fee_estimates: { takealot: fees(5, 15) } })),
  ]);
  sync = await import('../../lambdas/market/market-sync.js');
  evaluate = await import('../../lambdas/functions/evaluate-repricers/evaluate.js');
  // Connected in suggest mode with the seller id the client stated, as PUT /v1/connections/takealot stores it.
  await saveSuggestConnection(clientId, 'tk_live_trust_key_0001');
}, 120_000);
afterAll(async () => api?.close());

it('decides nothing from a market it did not see, then from the page that showed it', async () => {
  const repricer = await ownProduct(1);
  await step('a product whose page was never read decides nothing, and the preview says why', async () => {
    expect(await decisions('SKU-1')).toEqual([]);
    const body = await preview(repricer);
    expect(body.market).toMatchObject({ state: 'unknown', reason: 'not_read' });
    expect(body.offers.map((offer) => offer.would_decide)).toEqual([null]);
    // The repricer's price changes say it too: none, and the market it would decide from.
    const list = await api.request<{ price_changes: unknown[]; market: { state: string; reason: string } }>('GET', `/v1/repricers/${repricer}/price-changes`, {
      auth: alice,
    });
    expect([list.status, list.body.price_changes, list.body.market.state, list.body.market.reason]).toEqual([200, [], 'unknown', 'not_read']);
  });
  await step('a page that came back without a buy box (an empty 200) is not a market without rivals: still nothing, no ceiling', async () => {
    const result = await sync.applyProductMarket(clientId, connector, 'SKU-1', page('PLID1', [], false));
    await api.settle();
    expect(result).toEqual({ kind: 'unseen' });
    expect(await decisions('SKU-1')).toEqual([]);
    expect((await preview(repricer)).market).toMatchObject({ state: 'unknown', reason: 'empty_page' });
  });
  await step('a page that shows the buy box with rivals at 100 and 110 decides one step under the lowest', async () => {
    await sync.applyProductMarket(
      clientId,
      connector,
      'SKU-1',
      page('PLID1', [storefrontOffer('s1', 100, both), storefrontOffer('me', 130), storefrontOffer('s2', 110)]),
    );
    await api.settle();
    expect((await decisions('SKU-1')).map((change) => [change.new_price, change.reason])).toEqual([[99, 'undercut']]);
    expect((await preview(repricer)).market).toMatchObject({ state: 'known', reason: null });
  });
  await step('the page empty again: the market is unknown again and the repricer decides nothing more', async () => {
    await sync.applyProductMarket(clientId, connector, 'SKU-1', page('PLID1', [], false));
    await api.settle();
    // Were it read as "alone", the target would be the ceiling, 300.
    expect(await evaluate.evaluateProduct(clientId, 'SKU-1', 90)).toEqual([]);
    expect((await decisions('SKU-1')).map((change) => change.new_price)).toEqual([99]);
  });
});

it('decides nothing from a stale market, down or up, until a page is read again', async () => {
  await ownProduct(2);
  await sync.applyProductMarket(clientId, connector, 'SKU-2', page('PLID2', [storefrontOffer('s1', 150, both), storefrontOffer('me', 130)]));
  await api.settle();
  // Winning at 130 under a rival at 150: the repricer raised to 149 from the fresh page.
  expect((await decisions('SKU-2')).map((change) => change.new_price)).toEqual([149]);
  const later = api.clock.now() + 60 * 60_000;
  await sync.applyProductMarket(clientId, connector, 'SKU-2', page('PLID2', [storefrontOffer('s1', 180, both), storefrontOffer('me', 130)]));
  // An hour on, with no page read since: 179 would be a raise from a view an hour old.
  expect(await evaluate.evaluateProduct(clientId, 'SKU-2', 90, later)).toEqual([]);
  await sync.applyProductMarket(clientId, connector, 'SKU-2', page('PLID2', [storefrontOffer('s1', 120, both), storefrontOffer('me', 130)]));
  // ...and 119 a drop from it: a stale view moves no price either way.
  expect(await evaluate.evaluateProduct(clientId, 'SKU-2', 90, later)).toEqual([]);
  await api.settle();
  // From the fresh page, the drop is decided.
  expect((await decisions('SKU-2')).map((change) => change.new_price)).toContain(119);
});

it("keeps both writers' fields of an own offer: a page written between the sync's read and its write is not put back", async () => {
  await ownProduct(3);
  const { planOffers, writeOfferPlan } = await import('../../lambdas/data/offers/write.js');
  const { readProductForRepricing } = await import('../../lambdas/data/repricing/inputs.js');
  const stored = (await readProductForRepricing(clientId, 'SKU-3'))!.offers.find((offer) => offer.scope === 'own')!;
  // The seller API's sync computes a new price from the offer as it read it...
  const plan = await planOffers({ clientId, sellerId: 'me', defaultConnector: 'takealot' }, [
    { ...stored.fields, offer_price: 125, product_code: 'SKU-3', connector: 'takealot' },
  ]);
  // ...the storefront reader writes the buy box meanwhile...
  await sync.applyProductMarket(clientId, connector, 'SKU-3', page('PLID3', [storefrontOffer('me', 130, both), storefrontOffer('s1', 150)]));
  // ...and the sync's write of its older copy is refused, not written over the reader's.
  expect(await writeOfferPlan(plan, { guarded: true })).toEqual(['3']);
  const after = (await readProductForRepricing(clientId, 'SKU-3'))!.offers.find((offer) => offer.scope === 'own')!;
  expect([after.fields.offer_price, after.fields.winning]).toEqual([130, true]);
  // Planned again from what is stored, the sync keeps the reader's fields.
  await sync.applyOwnOffers(clientId, connector, [
    { offerId: '3', sku: 'SKU-3', title: 'Product 3', productLineId: 'PLID3', sellingPrice: 125, rrp: 400, status: 'buyable', stockOnHand: 3, shipsNow: true },
  ]);
  const final = (await readProductForRepricing(clientId, 'SKU-3'))!.offers.find((offer) => offer.scope === 'own')!;
  expect([final.fields.offer_price, final.fields.winning]).toEqual([125, true]);
});

it("never lifts or hides a pause from a status it read before: a sync's write from that read is refused", async () => {
  const { getConnection, pauseConnection, recordSyncOutcome } = await import('../../lambdas/data/connections/connections.js');
  const seen = (await getConnection(clientId, 'takealot'))!.record;
  expect(seen.status).toBe('connected');
  // The breaker pauses the connection while a sync that read it `connected` is under way...
  expect(await pauseConnection(clientId, seen, 'Paused by the circuit breaker: a test glitch.')).toBe(true);
  // ...and the sync's outcome, written from its older read, would lift the pause and clear the reason.
  expect(await recordSyncOutcome(clientId, seen, { status: 'connected', last_error: null })).toBe(false);
  const after = await api.request<{ status: string; last_error: string | null }>('GET', '/v1/connections/takealot', { auth: alice });
  expect([after.body.status, after.body.last_error]).toEqual(['paused', 'Paused by the circuit breaker: a test glitch.']);
  // Only the client's resume lifts it.
  expect((await api.request('POST', '/v1/connections/takealot/resume', { auth: alice })).status).toBe(200);
  const resumed = await api.request<{ status: string }>('GET', '/v1/connections/takealot', { auth: alice });
  expect(resumed.body.status).toBe('connected');
});

it("holds the target to the marketplace's rrp: decided at the rrp, with the rrp listed as the bound that set it", async () => {
  await sync.applyOwnOffers(clientId, connector, [
    { offerId: '5', sku: 'SKU-5', title: 'Product 5', productLineId: 'PLID5', sellingPrice: 110, rrp: 120, status: 'buyable', stockOnHand: 3, shipsNow: true },
  ]);
  const created = await api.request<{ id: number }>('POST', '/v1/repricers/', {
    auth: alice,
    body: { product_code: 'SKU-5', preferred_price: 300, preferred_profit: 187 },
    headers: json,
  });
  expect(created.status).toBe(201);
  // A product the sync created, without fees: floor 300 - 187. A rival at 200: undercutting it (199) would go over the rrp, which the marketplace refuses.
  await sync.applyProductMarket(clientId, connector, 'SKU-5', page('PLID5', [storefrontOffer('s1', 200, both), storefrontOffer('me', 110)]));
  await api.settle();
  const [change] = await decisions('SKU-5');
  expect([change?.new_price, change?.reason]).toEqual([120, 'ceiling']);
  expect(change?.explanation?.bounds).toEqual([
    { bound: 'floor', value: 113, applied: false },
    { bound: 'ceiling', value: 300, applied: false },
    { bound: 'rrp', value: 120, applied: true },
  ]);
});

it('keeps the stock current from the seller API: a cost_based floor and ceiling follow the stock mode a sync sees', async () => {
  // In stock: fulfilment 5; leadtime: 30; commission 15 % either way.
  await api.importRecords(alice[0], [productRecord('SKU-6', { fee_estimates: { takealot: fees(5, 15, 30) } })]);
  const own = (stockOnHand: number) => ({
    offerId: '6',
    sku: 'SKU-6',
    title: 'Product 6',
    productLineId: 'PLID6',
    sellingPrice: 130,
    rrp: 400,
    status: 'buyable',
    stockOnHand,
    shipsNow: stockOnHand > 0,
  });
  const product = async () => (await api.request<{ soh: number }>('GET', '/v1/products/SKU-6', { auth: alice })).body;
  const bounds = async (id: number) => {
    const response = await api.request<{ min_price: number; preferred_price: number; fixed_fulfilment_fee: number }>('GET', `/v1/repricers/${id}`, {
      auth: alice,
    });
    return [response.body.min_price, response.body.preferred_price, response.body.fixed_fulfilment_fee];
  };
  await sync.applyOwnOffers(clientId, connector, [own(3)]);
  const created = await api.request<{ id: number }>('POST', '/v1/repricers/', {
    auth: alice,
    body: { product_code: 'SKU-6', repricer_approach: 'cost_based', unit_cost: 50, preferred_profit: 20, min_profit: 5 },
    headers: json,
  });
  expect(created.status).toBe(201);
  await api.settle();
  // (50 + 5 + 5) / 0.85 and (50 + 5 + 20) / 0.85, rounded up.
  expect([(await product()).soh, ...(await bounds(created.body.id))]).toEqual([3, 70.59, 88.24, 5]);
  await step('the stock runs out: the sync writes it, and the leadtime fees price the bounds', async () => {
    await sync.applyOwnOffers(clientId, connector, [own(0)]);
    await api.settle();
    // (50 + 30 + 5) / 0.85 and (50 + 30 + 20) / 0.85.
    expect([(await product()).soh, ...(await bounds(created.body.id))]).toEqual([0, 100, 117.65, 30]);
  });
  await step('stock again: in-stock fees again', async () => {
    await sync.applyOwnOffers(clientId, connector, [own(7)]);
    await api.settle();
    expect([(await product()).soh, ...(await bounds(created.body.id))]).toEqual([7, 70.59, 88.24, 5]);
  });
});
