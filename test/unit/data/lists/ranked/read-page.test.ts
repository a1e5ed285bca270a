import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { cellCompetitiveness, cellScope, OFFER_LIST, offerRecordOf, type StoredOffer } from '../../../../../lambdas/data/offers/list.js';
import { readRankedPage, type PageRequest } from '../../../../../lambdas/data/lists/ranked/read-page.js';
import { REPRICER_LIST, type StoredRepricer } from '../../../../../lambdas/data/repricers/list.js';
import { competitorsPrefix } from '../../../../../lambdas/data/table/sort-keys.js';
import type { Offer } from '../../../../../lambdas/domain/records.js';
import { fcParameters, fcRuns } from '../../../../support/seed.js';
import { FakeTable, TABLE } from '../../fake-table.js';
import { product, storedOffer, storedRepricer } from '../../fixtures.js';
import { seedList } from './seed-list.js';

const ddb = mockClient(DynamoDBDocumentClient);
const ORDERS = ['id', 'total_competitors', 'offer_price', 'updated_at'] as const;
type Order = (typeof ORDERS)[number];
const CELLS = ['own|high', 'own|low', 'other|high', 'other|low'];
const PRODUCT = product();

const offerNumber = (n: number, spec: { cell: string; competitors: number; cents: number; second: number }): StoredOffer =>
  storedOffer(
    {
      offer_id: `OF-${n}`,
      competitiveness: cellCompetitiveness(spec.cell),
      total_competitors: spec.competitors,
      offer_price: spec.cents / 100,
    },
    { id: n, scope: cellScope(spec.cell) as 'own' | 'other', updated_at: new Date(Date.UTC(2026, 0, 1, 0, 0, spec.second)).toISOString() },
  );

const valueOf = (offer: StoredOffer, order: Order): number =>
  order === 'id'
    ? 0
    : order === 'total_competitors'
      ? offer.fields.total_competitors
      : order === 'offer_price'
        ? offer.fields.offer_price
        : Date.parse(offer.updated_at);

/** The page a query must return, by filter, sort and slice of the offers themselves. */
const bruteForce = (offers: readonly StoredOffer[], request: PageRequest) => {
  const sign = request.direction === 'ASC' ? 1 : -1;
  const matching = offers
    .filter((offer) => request.filter.cells(OFFER_LIST.cellOf(offer)))
    .filter((offer) => request.filter.gte === undefined || offer.fields.total_competitors >= request.filter.gte)
    .sort((a, b) => sign * (valueOf(a, request.order as Order) - valueOf(b, request.order as Order) || a.id - b.id));
  return { total: matching.length, ids: matching.slice(request.start, request.start + request.limit).map((offer) => offer.id) };
};

let table: FakeTable;

beforeAll(() => {
  process.env.TABLE_NAME = TABLE;
});

beforeEach(() => {
  ddb.reset();
  table = new FakeTable().serve(ddb);
});

const offerSpec = fc.record({
  cell: fc.constantFrom(...CELLS),
  competitors: fc.integer({ min: 0, max: 8 }),
  cents: fc.integer({ min: 100, max: 400 }),
  second: fc.integer({ min: 0, max: 30 }),
});

const requestArbitrary = fc.record({
  order: fc.constantFrom(...ORDERS),
  direction: fc.constantFrom('ASC' as const, 'DESC' as const),
  cells: fc.subarray(CELLS),
  gte: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }),
  start: fc.integer({ min: 0, max: 45 }),
  limit: fc.integer({ min: 1, max: 12 }),
});

describe('readRankedPage', () => {
  it('returns the brute-force page and exact total for any list, layout, filter, sort, direction and window, in at most 3 round trips', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(offerSpec, { maxLength: 40 }),
        fc.array(fc.boolean(), { maxLength: 40 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(requestArbitrary, { minLength: 1, maxLength: 6 }),
        async (specs, removed, bucketSize, chunkSize, requests) => {
          // Prepare: nodes laid out over every offer, counting only those still listed
          ddb.resetHistory();
          table.items.clear();
          const everyOffer = specs.map((spec, i) => offerNumber(i + 1, spec));
          const listed = everyOffer.filter((_, i) => !removed[i]);
          seedList(table, 'c1', OFFER_LIST, listed, (offer) => offerRecordOf(offer, PRODUCT), { bucketSize, chunkSize }, everyOffer);

          for (const r of requests) {
            const request: PageRequest = {
              order: r.order,
              direction: r.direction,
              filter: { cells: (cell) => r.cells.includes(cell), ...(r.gte === undefined ? {} : { gte: r.gte }) },
              start: r.start,
              limit: r.limit,
            };

            // Act
            const page = await readRankedPage('c1', OFFER_LIST, request);

            // Assess
            const expected = bruteForce(listed, request);
            expect({ total: page.total, ids: page.records.map((offer) => offer.id) }).toEqual(expected);
            expect(page.stats.roundTrips).toBeLessThanOrEqual(expected.ids.length > 0 ? 3 : 1);
            if (expected.ids.length > 0)
              expect(page.records[0]).toEqual(
                offerRecordOf(
                  listed.find((offer) => offer.id === expected.ids[0])!,
                  PRODUCT,
                ),
              );
          }
        },
      ),
      fcParameters({ numRuns: fcRuns(150, 750) }),
    );
  });

  describe('reads', () => {
    // 12 own offers, ids 1-12, competitors = id % 4, in buckets of 3 and chunks of 2 buckets.
    const OFFERS = Array.from({ length: 12 }, (_, i) =>
      offerNumber(i + 1, { cell: i % 2 ? 'own|high' : 'own|low', competitors: (i + 1) % 4, cents: 1000 - i, second: i }),
    );
    const everything = { cells: () => true };
    const request = (overrides: Partial<PageRequest>): PageRequest => ({
      order: 'id',
      direction: 'ASC',
      filter: everything,
      start: 0,
      limit: 100,
      ...overrides,
    });
    const queries = () => ddb.commandCalls(QueryCommand).map((call) => call.args[0].input);

    beforeEach(() => {
      seedList(table, 'c1', OFFER_LIST, OFFERS, (offer) => offerRecordOf(offer, PRODUCT), { bucketSize: 3, chunkSize: 2 });
      ddb.resetHistory();
    });

    it('reads chunks, then the buckets of the chunks holding the page, then one Query per cell over just those buckets', async () => {
      // Act: positions 4-5 lie in the second bucket ([4, 5, 6]), in the first chunk
      const page = await readRankedPage('c1', OFFER_LIST, request({ start: 4, limit: 2 }));

      // Assess
      expect(page.records.map((offer) => offer.id)).toEqual([5, 6]);
      expect(page.total).toBe(12);
      expect(page.stats.roundTrips).toBe(3);
      const [chunks, buckets, ...listings] = queries();
      expect(chunks).toMatchObject({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'T#c1#OLN#id#c' }, ConsistentRead: false });
      expect(buckets).toMatchObject({
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :below',
        ExpressionAttributeValues: { ':pk': 'T#c1#OLN#id#b', ':from': '-', ':below': '00000007' },
      });
      expect(listings.map((input) => input.ExpressionAttributeValues?.[':pk']).sort()).toEqual(['T#c1#OL#own|high', 'T#c1#OL#own|low']);
      for (const input of listings) {
        expect(input).toMatchObject({
          KeyConditionExpression: 'pk = :pk AND #key BETWEEN :from AND :below',
          ExpressionAttributeValues: { ':from': '00000004', ':below': '00000007' },
        });
        // Each cell holds 1 or 2 of the bucket's 3 offers: the Query evaluates no more than that.
        expect(input.Limit).toBeLessThanOrEqual(2);
        expect(input.IndexName).toBeUndefined();
      }
    });

    it('reads an order other than id from its GSI, eventually consistent', async () => {
      // Act
      const page = await readRankedPage('c1', OFFER_LIST, request({ order: 'offer_price', limit: 2 }));

      // Assess: prices fall as ids rise
      expect(page.records.map((offer) => offer.id)).toEqual([12, 11]);
      const listings = queries().slice(2);
      expect(listings.every((input) => input.IndexName === 'byPrice' && input.ConsistentRead === false)).toBe(true);
    });

    it('serves a descending page as the mirror of the ascending positions', async () => {
      // Act: from the end, skipping 1: ids 11 and 10
      const page = await readRankedPage('c1', OFFER_LIST, request({ direction: 'DESC', start: 1, limit: 2 }));

      // Assess
      expect(page.records.map((offer) => offer.id)).toEqual([11, 10]);
      expect(queries()[1]?.ExpressionAttributeValues).toMatchObject({ ':from': '00000007' });
      expect(queries()[1]?.ExpressionAttributeValues?.[':below']).toBeUndefined();
    });

    it('filters on competitors with a key condition from the histogram prefix in the total_competitors order', async () => {
      // Prepare: competitors = id % 5, so by competitors the buckets of 3 are [5, 10, 1], [6, 11, 2], [7, 12, 3], [8, 4, 9]
      table.items.clear();
      const offers = Array.from({ length: 12 }, (_, i) => offerNumber(i + 1, { cell: 'own|high', competitors: (i + 1) % 5, cents: 100, second: 0 }));
      seedList(table, 'c1', OFFER_LIST, offers, (offer) => offerRecordOf(offer, PRODUCT), { bucketSize: 3, chunkSize: 2 });
      ddb.resetHistory();

      // Act: at least 2 competitors: 2, 7, 12 (2), 3, 8 (3), 4, 9 (4); the first lies in the second bucket
      const page = await readRankedPage('c1', OFFER_LIST, request({ order: 'total_competitors', filter: { cells: () => true, gte: 2 }, limit: 4 }));

      // Assess: the Query starts at the prefix of 2 competitors, not at the bucket's lower bound
      expect(page.total).toBe(7);
      expect(page.records.map((offer) => offer.id)).toEqual([2, 7, 12, 3]);
      const listings = queries().slice(2);
      expect(listings).toHaveLength(1);
      expect(listings[0]).toMatchObject({
        IndexName: 'byCompetitors',
        FilterExpression: 'g >= :gte',
        ExpressionAttributeValues: { ':pk': 'T#c1#OL#own|high', ':from': competitorsPrefix(2), ':gte': 2 },
      });
    });

    it('filters on competitors in any other order with a filter over the buckets that hold the page', async () => {
      // Act
      const page = await readRankedPage(
        'c1',
        OFFER_LIST,
        request({ order: 'updated_at', direction: 'DESC', filter: { cells: (cell) => cell === 'own|low', gte: 1 } }),
      );

      // Assess: own|low holds the odd ids; their competitors are 1, 3, 1, 3, 1, 3
      expect(page.records.map((offer) => offer.id)).toEqual([11, 9, 7, 5, 3, 1]);
      const listings = queries().slice(2);
      expect(listings).toHaveLength(1);
      expect(listings[0]).toMatchObject({
        IndexName: 'byUpdated',
        FilterExpression: 'g >= :gte',
        ExpressionAttributeValues: { ':pk': 'T#c1#OL#own|low', ':gte': 1 },
      });
    });

    it.each([12, 13, 1_000_000])('answers start %p at or past the end from the chunks alone', async (start) => {
      // Act
      const page = await readRankedPage('c1', OFFER_LIST, request({ start }));

      // Assess
      expect(page).toMatchObject({ total: 12, records: [] });
      expect(queries()).toHaveLength(1);
      expect(page.stats.roundTrips).toBe(1);
    });

    it('answers an empty list with a total of 0 in one round trip', async () => {
      table.items.clear();
      const page = await readRankedPage('c1', OFFER_LIST, request({}));
      expect(page).toMatchObject({ total: 0, records: [] });
      expect(queries()).toHaveLength(1);
    });

    it('reads no cell the filter leaves out, and no cell with nothing in the buckets read', async () => {
      // Act
      await readRankedPage('c1', OFFER_LIST, request({ filter: { cells: (cell) => cell === 'own|high' } }));

      // Assess
      expect(
        queries()
          .slice(2)
          .map((input) => input.ExpressionAttributeValues?.[':pk']),
      ).toEqual(['T#c1#OL#own|high']);
    });
  });

  it('serves repricers with the same mechanism', async () => {
    // Prepare: repricers 1-9, every third disabled
    const repricers: StoredRepricer[] = Array.from({ length: 9 }, (_, i) =>
      storedRepricer({ id: i + 1, enabled: i % 3 !== 0, updated_at: new Date(Date.UTC(2026, 0, 10 - i)).toISOString() }),
    );
    seedList(table, 'c1', REPRICER_LIST, repricers, (stored) => stored.record, { bucketSize: 2, chunkSize: 2 });

    // Act
    const page = await readRankedPage('c1', REPRICER_LIST, {
      order: 'updated_at',
      direction: 'ASC',
      filter: { cells: (cell) => cell === 'on' },
      start: 1,
      limit: 3,
    });

    // Assess: enabled are 2, 3, 5, 6, 8, 9; by updated_at ascending: 9, 8, 6, 5, 3, 2
    expect(page.total).toBe(6);
    expect(page.records.map((record) => record.id)).toEqual([8, 6, 5]);
    expect(page.records[0]).toEqual(repricers[7]!.record);
  });

  it('fails instead of answering from a listing item it cannot decode', async () => {
    // Prepare
    const offer = offerNumber(1, { cell: 'own|high', competitors: 1, cents: 100, second: 0 });
    seedList(table, 'c1', OFFER_LIST, [offer], (o): Offer => offerRecordOf(o, PRODUCT), { bucketSize: 2, chunkSize: 2 });
    const [listing] = table.partition('T#c1#OL#own|high');
    table.put({ ...listing, r: Buffer.of(9, 9, 9) });

    // Act & Assess
    await expect(readRankedPage('c1', OFFER_LIST, { order: 'id', direction: 'ASC', filter: { cells: () => true }, start: 0, limit: 1 })).rejects.toThrow();
  });
});
