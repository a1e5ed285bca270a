import type { MarketOffer, ProductMarket } from '../../lambdas/marketplace/port.js';
import type { StoredSendable } from '../../lambdas/data/price-changes/status.js';
import { connectorRecord, fees, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { canonicalPriceChanges } from '../support/repricing.js';
import { step } from '../support/story.js';
import { connection as connectionRecord, open } from '../unit/functions/send-prices/fixtures.js';
import { saveSuggestConnection } from '../support/suggest-connection.js';
import { storefrontOffer } from '../support/storefront-offers.js';

/**
 * Where a push starts from (docs/price-sending.md, "Safety"): the price the marketplace has for
 * the offer now, which is the last price it confirmed until a sync has seen the offer's price
 * since. A storefront read writes the own offer too (its buy box), but sees nothing of its price:
 * it must not make the synced price, older than the confirmation, count as the newer. Otherwise
 * a push carries the price the marketplace already has, or a needed push is taken for done.
 */
let api: TestApi;
const alice: [string, string] = ['current-alice', 'current-alice-password-1'];
let clientId: string;
let sync: typeof import('../../lambdas/market/market-sync.js');
let evaluate: typeof import('../../lambdas/functions/evaluate-repricers/evaluate.js');
let repricing: typeof import('../../lambdas/data/repricing/inputs.js') & typeof import('../../lambdas/data/repricing/decision-states.js');
let plan: typeof import('../../lambdas/functions/send-prices/plan-change.js');
const connector = { uid: 'takealot', sellerId: 'me', storefrontUrl: 'https://storefront.example' };
const json = { 'content-type': 'application/json' };

const page = (lineId: string, offers: MarketOffer[]): ProductMarket => ({ productLineId: lineId, offers, buyBoxShown: true, skipped: 0 });
const both = { bestPrice: true, fastestDelivery: true };
const own = (n: number, sellingPrice: number) => ({
  offerId: `${n}`,
  sku: `SKU-${n}`,
  title: `Product ${n}`,
  productLineId: `PLID${n}`,
  sellingPrice,
  rrp: 400,
  status: 'buyable' as const,
  stockOnHand: 3,
  shipsNow: true,
});

/** The product's price changes, oldest first, each as the sender would take it (pending). */
const changes = async (code: string): Promise<StoredSendable[]> =>
  (await canonicalPriceChanges(api.tableName, clientId))
    .filter((item) => item.record.product_code === code)
    .sort((a, b) => a.record.id - b.record.id)
    .map(
      (item) =>
        ({
          ref: { productCode: code, sk: item.sk },
          stored: { entity: 'priceChange', sv: 2, record: { ...item.record, status: 'pending' } },
        }) as StoredSendable,
    );
const planOf = async (change: StoredSendable) => plan.planChange(clientId, change, open(connectionRecord()), Date.now(), new plan.ProductReads(clientId));
/** What the sender does once the marketplace confirmed a price for the change's offer. */
const confirm = (change: StoredSendable, price: number) => repricing.noteConfirmedPrice(clientId, change.stored.record, price, new Date().toISOString());
const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

/** SKU-n with Alice's own offer at `price` as the seller API reported it, and a repricer from 80 to 300. */
const ownProduct = async (n: number, price: number) => {
  await sync.applyOwnOffers(clientId, connector, [own(n, price)]);
  const response = await api.request<{ id: number }>('POST', '/v1/repricers/', {
    auth: alice,
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
    ...[1, 2].map((n) => productRecord(`SKU-${n}`, { fee_estimates: { takealot: fees(5, 15) } })),
  ]);
  sync = await import('../../lambdas/market/market-sync.js');
  evaluate = await import('../../lambdas/functions/evaluate-repricers/evaluate.js');
  repricing = { ...(await import('../../lambdas/data/repricing/inputs.js')), ...(await import('../../lambdas/data/repricing/decision-states.js')) };
  plan = await import('../../lambdas/functions/send-prices/plan-change.js');
  // Suggest mode: the decisions wait as suggestions, and the test plays the sender.
  await saveSuggestConnection(clientId, 'tk_live_current_key_01');
}, 120_000);
afterAll(async () => api?.close());

it('starts from the confirmed price after a storefront read touched the offer, until a sync has seen the price', async () => {
  await ownProduct(1, 130);
  let first: StoredSendable | undefined;
  await step('a page with a rival at 100: the repricer decides 99 from 130', async () => {
    await sync.applyProductMarket(clientId, connector, 'SKU-1', page('PLID1', [storefrontOffer('s1', 100, both), storefrontOffer('me', 130)]));
    await api.settle();
    const found = await changes('SKU-1');
    expect(found.map((change) => change.stored.record.new_price)).toEqual([99]);
    first = found[0];
  });
  await step('the marketplace confirms 99, then the next page shows the own offer winning at 99 (the offer written, its synced price still 130)', async () => {
    await pause();
    await confirm(first!, 99);
    await pause();
    await sync.applyProductMarket(clientId, connector, 'SKU-1', page('PLID1', [storefrontOffer('me', 99, both), storefrontOffer('s1', 100)]));
    await api.settle();
    const offer = (await repricing.readProductForRepricing(clientId, 'SKU-1'))!.offers.find((o) => o.scope === 'own')!;
    expect([offer.fields.offer_price, offer.fields.winning]).toEqual([130, true]);
  });
  await step('99 again (the decision forgotten, as a stopped move is): decided from 99, nothing to push', async () => {
    await repricing.forgetDecision(clientId, first!.stored.record, first!.ref.sk);
    await evaluate.evaluateProduct(clientId, 'SKU-1', 90);
    await api.settle();
    // Were 130 taken as the price now, 99 would be decided again and pushed to an offer that has it.
    const found = await changes('SKU-1');
    expect(await planOf(found.at(-1)!)).toMatchObject({ kind: 'move', to: 'applied' });
    expect(found.map((change) => change.stored.record.new_price)).toEqual([99]);
  });
  await step('the rival rises to 131: 130 is decided from 99 and pushed (the offer does not have it)', async () => {
    await sync.applyProductMarket(clientId, connector, 'SKU-1', page('PLID1', [storefrontOffer('me', 99, both), storefrontOffer('s1', 131)]));
    await api.settle();
    const latest = (await changes('SKU-1')).at(-1)!;
    expect([latest.stored.record.old_price, latest.stored.record.new_price]).toEqual([99, 130]);
    expect(await planOf(latest)).toMatchObject({ kind: 'push', current: 99, price: 118 });
  });
  await step('a sync that saw the offer after the confirmation: its price is the price now', async () => {
    await pause();
    await sync.applyOwnOffers(clientId, connector, [own(1, 105)]);
    const latest = (await changes('SKU-1')).at(-1)!;
    expect(await planOf(latest)).toMatchObject({ kind: 'push', current: 105, price: 126 });
  });
});

it("never counts a sync's look taken before the confirmation as newer, however late it is written", async () => {
  await ownProduct(2, 130);
  await sync.applyProductMarket(clientId, connector, 'SKU-2', page('PLID2', [storefrontOffer('s1', 100, both), storefrontOffer('me', 130)]));
  await api.settle();
  const [first] = await changes('SKU-2');
  // The sync reads the offer list: 125 (the seller's own change), before the push of 99 landed...
  const sawAt = new Date().toISOString();
  await pause();
  await confirm(first!, 99);
  await pause();
  await sync.applyProductMarket(clientId, connector, 'SKU-2', page('PLID2', [storefrontOffer('me', 99, both), storefrontOffer('s1', 100)]));
  // ...and writes it after the confirmation and after a page read: the item is newer, the price it saw is not.
  await sync.applyOwnOffers(clientId, connector, [own(2, 125)], sawAt);
  const offer = (await repricing.readProductForRepricing(clientId, 'SKU-2'))!.offers.find((o) => o.scope === 'own')!;
  expect(offer.fields.offer_price).toBe(125);
  await repricing.forgetDecision(clientId, first!.stored.record, first!.ref.sk);
  expect(await planOf(first!)).toMatchObject({ kind: 'move', to: 'applied' });
});
