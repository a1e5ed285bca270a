/**
 * Eight importers loading disjoint offers into one tenant at the same time, through the
 * import code the CLI runs, against DynamoDB Local with the list maintenance running from the
 * table's stream: every offer lands, once, and every total is exact.
 */
import { connectorRecord, offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { bySize } from '../support/profile.js';
import { nodeDiscrepancies, type OrderNodes } from '../support/rank-check.js';

let api: TestApi;
const username = 'bulk';
const auth: [string, string] = [username, 'bulk-password-1'];
const OWN = 'seller-bulk';
const IMPORTERS = 8;
// Contention needs eight writers, not volume: 25 offers each here, 250 nightly; the import
// benchmark (`npm run bench`) measures throughput at 10,000 offers.
const PER_IMPORTER = bySize(25, 250);
const PRODUCTS = Array.from({ length: 20 }, (_, i) => `BULK-${i}`);
const COMPETITIVENESS = ['high', 'medium', 'low'];

interface Spec {
  readonly offerId: string;
  readonly own: boolean;
  readonly competitiveness: string;
  readonly totalCompetitors: number;
  readonly price: number;
}
const specOf = (importer: number, i: number): Spec => {
  const n = importer * PER_IMPORTER + i;
  return {
    offerId: `bulk-${importer}-${i}`,
    own: n % 4 !== 0,
    competitiveness: COMPETITIVENESS[n % 3]!,
    totalCompetitors: n % 17,
    price: (100 + ((n * 7919) % 50_000)) / 100,
  };
};
const SPECS = Array.from({ length: IMPORTERS }, (_, importer) => Array.from({ length: PER_IMPORTER }, (_, i) => specOf(importer, i)));

type Page = { meta: { total: number; limit: number; start: number }; offers: { offer_id: string; offer_price: number; id: number }[] };
const list = (query: string) => api.request<Page>('GET', `/v1/offers?${query}`, { auth });

beforeAll(async () => {
  api = await startTestApi();
  await api.createClient(username, { password: auth[1], sellerId: OWN });
  await api.importRecords(username, [connectorRecord('amazon'), ...PRODUCTS.map((code) => productRecord(code))]);
}, 120_000);

afterAll(async () => api?.close());

describe('eight importers of one tenant at once', () => {
  let clientId: string;

  beforeAll(async () => {
    // Act
    const { importRecords } = await import('../../tools/admin/import.js');
    const { getClient } = await import('../../lambdas/data/clients/clients.js');
    clientId = (await getClient(username))!.clientId;
    const summaries = await Promise.all(
      SPECS.map((specs) =>
        importRecords(
          specs.map((s, i) =>
            offerRecord(s.offerId, PRODUCTS[i % PRODUCTS.length]!, {
              seller_id: s.own ? OWN : 'seller-other',
              competitiveness: s.competitiveness,
              total_competitors: s.totalCompetitors,
              offer_price: s.price,
            }),
          ),
          { username },
        ),
      ),
    );
    expect(summaries.map((summary) => summary.offers)).toEqual(Array(IMPORTERS).fill(PER_IMPORTER));
    await api.settle();
  }, 600_000);

  it('lists every offer exactly once, with distinct ids', async () => {
    // Act
    const pages = await Promise.all(
      Array.from({ length: (IMPORTERS * PER_IMPORTER) / 100 }, (_, p) => list(`_include_other_offers=true&_limit=100&_start=${p * 100}`)),
    );

    // Assess
    const offers = pages.flatMap((page) => page.body.offers);
    expect(pages.every((page) => page.status === 200 && page.body.meta.total === IMPORTERS * PER_IMPORTER)).toBe(true);
    expect(offers.map((o) => o.offer_id).sort()).toEqual(
      SPECS.flat()
        .map((s) => s.offerId)
        .sort(),
    );
    expect(new Set(offers.map((o) => o.id)).size).toBe(IMPORTERS * PER_IMPORTER);
  }, 60_000);

  it.each<[string, (s: Spec) => boolean]>([
    ['', (s) => s.own],
    ['_include_other_offers=true', () => true],
    ['competitiveness=medium', (s) => s.own && s.competitiveness === 'medium'],
    ['total_competitors_gte=9&_include_other_offers=true', (s) => s.totalCompetitors >= 9],
    ['total_competitors_gte=16&competitiveness=low&_sort=offer_price:DESC', (s) => s.own && s.competitiveness === 'low' && s.totalCompetitors >= 16],
    ['competitiveness=none', () => false],
  ])(
    'counts exactly the offers matching ?%s',
    async (query, matches) => {
      // Act
      const response = await list(`${query}&_limit=5&_start=3`);

      // Assess
      expect(response.status).toBe(200);
      expect(response.body.meta.total).toBe(SPECS.flat().filter(matches).length);
    },
    30_000,
  );

  it('pages through one filter in price order without overlap or gap', async () => {
    // Prepare
    const matching = SPECS.flat().filter((s) => s.totalCompetitors >= 12);

    // Act
    const pages = await Promise.all(
      Array.from({ length: Math.ceil(matching.length / 100) }, (_, p) =>
        list(`_include_other_offers=true&total_competitors_gte=12&_sort=offer_price&_limit=100&_start=${p * 100}`),
      ),
    );

    // Assess
    const prices = pages.flatMap((page) => page.body.offers.map((o) => o.offer_price));
    expect(prices).toEqual(matching.map((s) => s.price).sort((a, b) => a - b));
  }, 60_000);

  it('leaves every rank node counting exactly what the listing holds', async () => {
    // Prepare
    const { OFFER_LIST, offerCell } = await import('../../lambdas/data/offers/list.js');
    const { readNodes } = await import('../../lambdas/data/lists/ranked/node-store.js');
    const { readAllPlaces } = await import('../../lambdas/data/lists/ranked/recount.js');

    // Act
    const places = await readAllPlaces(
      clientId,
      OFFER_LIST,
      COMPETITIVENESS.flatMap((comp) => [offerCell('own', comp), offerCell('other', comp)]),
    );
    const nodes = new Map<string, OrderNodes>();
    for (const order of Object.keys(OFFER_LIST.orders)) {
      const at = (level: 'b' | 'c') => ({ clientId, tag: OFFER_LIST.tag, order, level });
      nodes.set(order, { buckets: await readNodes(at('b'), {}, { consistent: true }), chunks: await readNodes(at('c'), {}, { consistent: true }) });
    }

    // Assess
    expect(places).toHaveLength(IMPORTERS * PER_IMPORTER);
    expect(nodeDiscrepancies(OFFER_LIST, places, nodes)).toEqual([]);
    expect(nodes.get('id')!.buckets.length).toBeGreaterThan((IMPORTERS * PER_IMPORTER) / 48);
  }, 60_000);
});
