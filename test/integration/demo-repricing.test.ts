import { fileURLToPath } from 'node:url';
import { readNdjson } from '../../tools/admin/import.js';
import {
  DEMO_CONNECTOR,
  DEMO_SELLER_ID,
  demoCompetitorPriceDrop,
  demoConnectorTypeRecords,
  demoRecords,
  demoRepricers,
  type DemoOffer,
} from '../../tools/local/demo-data.js';
import { ensureDemoRepricers } from '../../tools/local/demo-repricers.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import type { PriceChange, PriceChangePage } from '../support/repricing.js';
import { step } from '../support/story.js';

/**
 * `npm start`'s repricing walk-through (docs/repricing.md, "Walk-through"), on the demo data: the
 * demo repricers' first decisions are listed once the event runtime settles; the shipped
 * competitor import makes one of them undercut again; the applied price coming back decides
 * nothing; a second start creates no repricer.
 */
let api: TestApi;
const auth: [string, string] = ['demo-walkthrough', 'demo-walkthrough-password-1'];
const repricers = demoRepricers();
const drop = demoCompetitorPriceDrop();
const code = drop.repricer.request.product_code;

const list = async (path: string) => {
  const response = await api.request<PriceChangePage>('GET', path, { auth });
  expect(response.status).toBe(200);
  return response.body;
};
const summary = (change: PriceChange) => [change.product_code, change.new_price, change.reason, change.lowest_competitor_price, change.competitor_offer_id];

beforeAll(async () => {
  api = await startTestApi();
  await api.createClient(auth[0], { password: auth[1], sellerId: DEMO_SELLER_ID, connector: DEMO_CONNECTOR });
  await api.importRecords(auth[0], [...demoConnectorTypeRecords(), ...demoRecords()]);
  const { productCodes, created } = await ensureDemoRepricers(auth[0]);
  expect(created).toBe(repricers.length);
  expect(productCodes).toEqual(repricers.map((r) => r.request.product_code));
  await api.settle();
}, 180_000);

afterAll(async () => {
  await api?.close();
});

describe("npm start's demo repricers", () => {
  it("walks through npm start's demo repricers: first decisions, the example competitor import, no second creation", async () => {
    await step('are enabled, and their first decisions are listed once the runtime settles', async () => {
      const listed = await api.request<{ meta: { total: number }; repricers: { enabled: boolean }[] }>('GET', '/v1/repricers', { auth });
      expect(listed.body.meta.total).toBe(repricers.length);
      expect(listed.body.repricers.every((r) => r.enabled)).toBe(true);
      // By product: which product's first decision takes the smaller id depends on which evaluation ends first.
      const byProduct = <T extends { product_code: string }>(changes: T[]) => [...changes].sort((x, y) => x.product_code.localeCompare(y.product_code));
      const inOrder = [...repricers].sort((x, y) => x.request.product_code.localeCompare(y.request.product_code));
      const changes = byProduct((await list('/v1/price-changes')).price_changes);
      expect(changes.map(summary)).toEqual(
        inOrder.map((r) => [r.request.product_code, r.target.price, r.target.reason, r.target.lowest!.price, r.target.lowest!.offerId]),
      );
      expect(changes.map((c) => c.old_price)).toEqual(inOrder.map((r) => r.ownOffer.offer_price));
    });
    await step('undercut the competitor of docs/examples/competitor-price.ndjson, and decide nothing when the applied price comes back', async () => {
      const lines = await readNdjson(fileURLToPath(new URL('../../docs/examples/competitor-price.ndjson', import.meta.url)));
      await api.importRecords(auth[0], lines);
      const after = await list(`/v1/price-changes?product_code=${code}&_sort=created_at:DESC&_limit=1`);
      expect(after.meta.total).toBe(2);
      const competitor = drop.line.data as DemoOffer;
      expect(after.price_changes.map(summary)).toEqual([[code, drop.expected.price, 'undercut', competitor.offer_price, competitor.offer_id]]);

      await api.importRecords(auth[0], [{ type: 'offer', data: { ...drop.repricer.ownOffer, offer_price: drop.expected.price } }]);
      expect((await list(`/v1/price-changes?product_code=${code}`)).meta.total).toBe(2);
      expect((await list('/v1/price-changes')).meta.total).toBe(repricers.length + 1);
    });
    await step('are not created twice when the client already has them', async () => {
      await expect(ensureDemoRepricers(auth[0])).resolves.toEqual({ productCodes: repricers.map((r) => r.request.product_code), created: 0 });
      const listed = await api.request<{ meta: { total: number } }>('GET', '/v1/repricers', { auth });
      expect(listed.body.meta.total).toBe(repricers.length);
    });
  }, 180_000);
});
