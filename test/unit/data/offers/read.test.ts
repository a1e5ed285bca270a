import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { OFFER_LIST, offerRecordOf, type StoredOffer } from '../../../../lambdas/data/offers/list.js';
import { getOffer, listOffers } from '../../../../lambdas/data/offers/read.js';
import type { OfferQuery } from '../../../../lambdas/domain/offer-query.js';
import { FakeTable, TABLE } from '../fake-table.js';
import { product, storedOffer } from '../fixtures.js';
import { seedList } from '../lists/ranked/seed-list.js';

const ddb = mockClient(DynamoDBDocumentClient);
let table: FakeTable;
const PRODUCT = product();

/** Offers 1-8: odd ids own, even ids another seller's; competitiveness alternating in pairs; competitors = id. */
const OFFERS: StoredOffer[] = [1, 2, 3, 4, 5, 6, 7, 8].map((id) =>
  storedOffer(
    { offer_id: `OF-${id}`, competitiveness: Math.ceil(id / 2) % 2 ? 'high' : 'low', total_competitors: id, offer_price: 100 - id },
    { id, scope: id % 2 ? 'own' : 'other' },
  ),
);

const query = (overrides: Partial<OfferQuery> = {}): OfferQuery => ({
  scope: 'own',
  sort: { field: 'id', direction: 'ASC' },
  limit: 100,
  start: 0,
  ...overrides,
});
const ids = async (overrides: Partial<OfferQuery>) => (await listOffers('c1', query(overrides))).offers.map((offer) => offer.id);

beforeAll(() => {
  process.env.TABLE_NAME = TABLE;
});

beforeEach(() => {
  ddb.reset();
  table = new FakeTable().serve(ddb);
  seedList(table, 'c1', OFFER_LIST, OFFERS, (offer) => offerRecordOf(offer, PRODUCT), { bucketSize: 3, chunkSize: 2 });
  ddb.resetHistory();
});

describe('listOffers', () => {
  it.each<[string, Partial<OfferQuery>, number[]]>([
    ['own offers by id', {}, [1, 3, 5, 7]],
    ['every offer by id', { scope: 'all' }, [1, 2, 3, 4, 5, 6, 7, 8]],
    ['own offers of one competitiveness', { competitiveness: 'low' }, [3, 7]],
    ['every offer of one competitiveness', { scope: 'all', competitiveness: 'high' }, [1, 2, 5, 6]],
    ['a competitiveness nobody has', { competitiveness: 'none' }, []],
    ['own offers with at least 4 competitors, cheapest first', { minCompetitors: 4, sort: { field: 'offer_price', direction: 'ASC' } }, [7, 5]],
    ['every offer with at least 5 competitors by id descending', { scope: 'all', minCompetitors: 5, sort: { field: 'id', direction: 'DESC' } }, [8, 7, 6, 5]],
    ['own offers by competitors descending, a window', { sort: { field: 'total_competitors', direction: 'DESC' }, start: 1, limit: 2 }, [5, 3]],
  ])('lists %s', async (_case, overrides, expected) => {
    expect(await ids(overrides)).toEqual(expected);
  });

  it('answers with the exact total of the filters and the full records', async () => {
    // Act
    const page = await listOffers('c1', query({ scope: 'all', competitiveness: 'high', minCompetitors: 2, limit: 1 }));

    // Assess
    expect(page.total).toBe(3);
    expect(page.offers).toEqual([offerRecordOf(OFFERS[1]!, PRODUCT)]);
    expect(page.stats.roundTrips).toBe(3);
  });
});

describe('getOffer', () => {
  it('reads an offer of any cell by id, with its product nested', async () => {
    await expect(getOffer('c1', 6)).resolves.toEqual(offerRecordOf(OFFERS[5]!, PRODUCT));
  });

  it('looks the id up in the cells the id order counts, in one batch', async () => {
    // Act
    await getOffer('c1', 3);

    // Assess
    const keys = ddb.commandCalls(BatchGetCommand)[0]?.args[0].input.RequestItems?.[TABLE]?.Keys;
    expect(keys?.map((key) => key.pk).sort()).toEqual(['T#c1#OL#other|high', 'T#c1#OL#other|low', 'T#c1#OL#own|high', 'T#c1#OL#own|low']);
    expect(keys?.every((key) => key.sk === '00000003')).toBe(true);
  });

  it("is undefined for an unknown id or another client's", async () => {
    await expect(getOffer('c1', 9)).resolves.toBeUndefined();
    await expect(getOffer('c2', 3)).resolves.toBeUndefined();
  });

  it.each([0, -1, 2.5, 36 ** 8])('reads nothing for the id %p, which no offer has', async (id) => {
    await expect(getOffer('c1', id)).resolves.toBeUndefined();
    expect(ddb.calls()).toHaveLength(0);
  });
});
