import { DynamoDBDocumentClient, GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { OFFER_SORT_FIELDS, type OfferQuery, type OfferSortField } from '../../../lambdas/shared/domain/offer-query.js';
import type { RankDirectory } from '../../../lambdas/shared/domain/rank-directory.js';
import type { Offer } from '../../../lambdas/shared/domain/records.js';
import { viewItems } from '../../../lambdas/shared/data/offer-items.js';
import { competitorsPrefixOf, sortKeyOf, SORT_STORAGE } from '../../../lambdas/shared/data/offer-keys.js';
import { getOffer, listOffers } from '../../../lambdas/shared/data/offers-read.js';
import { encodeDirectory } from '../../../lambdas/shared/data/rank-store.js';
import { offer } from './fixtures.js';

const ddb = mockClient(DynamoDBDocumentClient);
const OWN = 'seller-own';
const OWN_VIEW = 'T#c1#OV#OWN#*';

/**
 * 40 own offers with repeated competitor counts, prices and timestamps, so ties are broken by
 * id; their view items are built by the real writer helper, as stored.
 */
const OFFERS: Offer[] = Array.from({ length: 40 }, (_, i) => {
  const id = i + 1;
  return offer({
    id,
    offer_id: `OF-${id}`,
    total_competitors: (id * 7) % 6,
    offer_price: ((id * 13) % 9) * 10 + 0.99,
    updated_at: new Date(Date.UTC(2026, 0, 1 + ((id * 5) % 4))).toISOString(),
  });
});
const ITEMS = OFFERS.map((record) => viewItems('c1', record, OWN).find((v) => v.view === 'OWN#*')!.item);

/** The attribute each index (or the table) sorts by. */
const INDEX_ATTRIBUTE: Record<string, string> = {
  table: 'sk',
  ...Object.fromEntries(OFFER_SORT_FIELDS.flatMap((field) => {
    const storage = SORT_STORAGE[field];
    return [[storage.rankIndex, storage.rankAttribute], ...(storage.pageIndex ? [[storage.pageIndex, storage.pageAttribute]] : [])];
  })),
};

/** A directory over the sorted keys of one order, in buckets of `size` (histogram for competitors). */
const directoryOf = (field: OfferSortField, size: number): RankDirectory => {
  const keys = OFFERS.map((o) => sortKeyOf(o, field)).sort();
  const bounds: string[] = [];
  const counts: number[] = [];
  for (let i = 0; i < keys.length; i += size) {
    bounds.push(i === 0 ? '' : keys[i]!);
    counts.push(Math.min(size, keys.length - i));
  }
  if (field !== 'total_competitors') return { bounds, counts };
  const histogram: Record<string, number> = {};
  for (const key of keys) histogram[competitorsPrefixOf(key)] = (histogram[competitorsPrefixOf(key)] ?? 0) + 1;
  return { bounds, counts, histogram };
};

/** A small in-memory DynamoDB for one view partition: directories by Get, pages and keys by Query. */
const serveFakeTable = (options: { bucketSize?: number; pageCut?: number } = {}) => {
  ddb.on(GetCommand).callsFake((input: { Key: { pk: string; sk: OfferSortField } }) => {
    if (input.Key.pk !== 'T#c1#ODIR#OWN#*') return {};
    return { Item: { ...input.Key, entity: 'rankDirectory', ...encodeDirectory(directoryOf(input.Key.sk, options.bucketSize ?? 6)), version: 9 } };
  });
  ddb.on(QueryCommand).callsFake((input: QueryCommandInput) => {
    const values = input.ExpressionAttributeValues ?? {};
    if (values[':pk'] !== OWN_VIEW) return { Items: [] };
    const attribute = INDEX_ATTRIBUTE[input.IndexName ?? 'table']!;
    const [, condition] = (input.KeyConditionExpression ?? '').split(' AND ', 2).length > 1
      ? [null, input.KeyConditionExpression!.slice('pk = :pk AND '.length)]
      : [null, undefined];
    let items = [...ITEMS].sort((a, b) => (String(a[attribute as keyof typeof a]) < String(b[attribute as keyof typeof b]) ? -1 : 1));
    if (condition) {
      const match = /^(#\w+) (>=|<=|<|BETWEEN) (:\w+)(?: AND (:\w+))?$/.exec(condition);
      if (!match) throw new Error(`unexpected condition ${condition}`);
      const [, name, operator, first, second] = match;
      expect(input.ExpressionAttributeNames?.[name!]).toBe(attribute);
      const low = String(values[first!]);
      const value = (item: (typeof ITEMS)[number]) => String(item[attribute as keyof typeof item]);
      items = items.filter((item) =>
        operator === '>=' ? value(item) >= low
        : operator === '<=' ? value(item) <= low
        : operator === '<' ? value(item) < low
        : value(item) >= low && value(item) <= String(values[second!]));
    }
    if (input.ScanIndexForward === false) items.reverse();
    if (input.ExclusiveStartKey) {
      const after = items.findIndex((item) => item.sk === input.ExclusiveStartKey!.sk);
      items = items.slice(after + 1);
    }
    const limit = Math.min(input.Limit ?? Infinity, options.pageCut ?? Infinity);
    const page = items.slice(0, limit);
    const more = items.length > limit;
    const keysOnly = input.IndexName?.startsWith('rank');
    return {
      Items: page.map((item) => (keysOnly ? { pk: item.pk, sk: item.sk, [attribute]: item[attribute as keyof typeof item] } : item)),
      ConsumedCapacity: { TableName: 'test-table', CapacityUnits: 0.5 },
      ...(more ? { LastEvaluatedKey: { pk: OWN_VIEW, sk: page[page.length - 1]!.sk } } : {}),
    };
  });
};

/** The expected page, by brute force over the offers. */
const expectedIds = (query: OfferQuery) => {
  const value = (o: Offer): number =>
    query.sort.field === 'id' ? o.id
    : query.sort.field === 'total_competitors' ? o.total_competitors
    : query.sort.field === 'offer_price' ? o.offer_price
    : Date.parse(o.updated_at);
  const matching = OFFERS.filter((o) => query.minCompetitors === undefined || o.total_competitors >= query.minCompetitors);
  const ascending = [...matching].sort((a, b) => value(a) - value(b) || a.id - b.id);
  const ordered = query.sort.direction === 'ASC' ? ascending : ascending.reverse();
  return { total: matching.length, ids: ordered.slice(query.start, query.start + query.limit).map((o) => o.id) };
};

const query = (overrides: Partial<OfferQuery> = {}): OfferQuery => ({
  scope: 'own',
  sort: { field: 'id', direction: 'ASC' },
  limit: 100,
  start: 0,
  ...overrides,
});
const sent = () => ddb.calls().map((call) => call.args[0]);
const queryInputs = () => ddb.commandCalls(QueryCommand).map((call) => call.args[0].input);

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
});

describe('listOffers against a fake table', () => {
  const cases = OFFER_SORT_FIELDS.flatMap((field) =>
    (['ASC', 'DESC'] as const).flatMap((direction) =>
      [
        [0, 5],
        [0, 100],
        [6, 6], // a bucket edge
        [7, 4], // the first half of a bucket
        [10, 3], // the second half of a bucket
        [35, 10], // runs off the end
        [39, 1],
      ].map(([start, limit]) => [field, direction, start!, limit!] as const),
    ),
  );

  it.each(cases)('%s %s from %p, %p offers: the right page in at most 3 round trips', async (field, direction, start, limit) => {
    // Arrange
    serveFakeTable();
    const q = query({ sort: { field, direction }, start, limit });

    // Act
    const page = await listOffers('c1', q);

    // Assert
    const expected = expectedIds(q);
    expect(page.total).toBe(expected.total);
    expect(page.offers.map((o) => o.id)).toEqual(expected.ids);
    expect(ddb.calls().length).toBeLessThanOrEqual(3);
    expect(page.stats.roundTrips).toBe(ddb.calls().length);
  });

  it.each(
    [0, 1, 3, 5, 6].flatMap((min) =>
      (['ASC', 'DESC'] as const).flatMap((direction) => [[min, direction, 0, 100] as const, [min, direction, 2, 5] as const, [min, direction, 6, 3] as const]),
    ),
  )('total_competitors_gte %p, %s from %p, %p offers', async (minCompetitors, direction, start, limit) => {
    // Arrange
    serveFakeTable();
    const q = query({ sort: { field: 'total_competitors', direction }, minCompetitors, start, limit });

    // Act
    const page = await listOffers('c1', q);

    // Assert
    const expected = expectedIds(q);
    expect(page.total).toBe(expected.total);
    expect(page.offers.map((o) => o.id)).toEqual(expected.ids);
    expect(ddb.calls().length).toBeLessThanOrEqual(3);
  });

  it('keeps reading when a page comes back cut short, asking only for the rest', async () => {
    // Arrange: DynamoDB returns at most 4 items per call (as if 1 MB were reached)
    serveFakeTable({ pageCut: 4 });
    const q = query({ limit: 10 });

    // Act
    const page = await listOffers('c1', q);

    // Assert
    expect(page.offers.map((o) => o.id)).toEqual(expectedIds(q).ids);
    expect(queryInputs().map((input) => input.Limit)).toEqual([10, 6, 2]);
    expect(queryInputs()[1]?.ExclusiveStartKey).toEqual({ pk: OWN_VIEW, sk: '00000004' });
  });
});

describe('listOffers requests', () => {
  it('reads the first page of the id order in 2 round trips: directory, then one table Query', async () => {
    // Arrange
    serveFakeTable();

    // Act
    const page = await listOffers('c1', query({ limit: 5 }));

    // Assert
    expect(page.total).toBe(40);
    expect(sent().map((command) => command.constructor.name)).toEqual(['GetCommand', 'QueryCommand']);
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input).toEqual({
      TableName: 'test-table',
      Key: { pk: 'T#c1#ODIR#OWN#*', sk: 'id' },
      ConsistentRead: true,
      ReturnConsumedCapacity: 'TOTAL',
    });
    expect(queryInputs()).toEqual([
      {
        TableName: 'test-table',
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': OWN_VIEW },
        ScanIndexForward: true,
        Limit: 5,
        ReturnConsumedCapacity: 'TOTAL',
      },
    ]);
    expect(page.stats).toMatchObject({ roundTrips: 2, capacityUnits: 0.5 });
  });

  it('starts at a bucket edge with a key condition on its lower bound, without stepping', async () => {
    // Arrange: buckets of 6 -> start 12 is the first key of the third bucket
    serveFakeTable();
    const thirteenth = [...ITEMS].map((i) => sortKeyOf(i.record, 'offer_price')).sort()[12];

    // Act
    await listOffers('c1', query({ sort: { field: 'offer_price', direction: 'ASC' }, start: 12, limit: 3 }));

    // Assert
    expect(queryInputs()).toEqual([
      {
        TableName: 'test-table',
        IndexName: 'byPrice',
        KeyConditionExpression: 'pk = :pk AND #sort >= :key',
        ExpressionAttributeValues: { ':pk': OWN_VIEW, ':key': thirteenth },
        ExpressionAttributeNames: { '#sort': 'priceKey' },
        ScanIndexForward: true,
        Limit: 3,
        ReturnConsumedCapacity: 'TOTAL',
      },
    ]);
  });

  it.each<[OfferSortField, string, string]>([
    ['total_competitors', 'rankByCompetitors', 'byCompetitors'],
    ['offer_price', 'rankByPrice', 'byPrice'],
    ['updated_at', 'rankByUpdated', 'byUpdated'],
  ])('steps through the %s keys on %s, then pages on %s, descending', async (field, rankIndex, pageIndex) => {
    // Arrange: DESC from 1 -> position 40 - 1 - 1 = 38 = offset 2 of the last bucket (36..39):
    // nearer its top, so 2 keys are read down from the end of the partition
    serveFakeTable();
    const secondFromTop = [...ITEMS].map((i) => sortKeyOf(i.record, field)).sort()[38];

    // Act
    await listOffers('c1', query({ sort: { field, direction: 'DESC' }, start: 1, limit: 2 }));

    // Assert
    expect(sent().map((command) => command.constructor.name)).toEqual(['GetCommand', 'QueryCommand', 'QueryCommand']);
    expect(queryInputs()[0]).toMatchObject({ IndexName: rankIndex, ConsistentRead: true, ScanIndexForward: false, Limit: 2, KeyConditionExpression: 'pk = :pk' });
    expect(queryInputs()[1]).toEqual({
      TableName: 'test-table',
      IndexName: pageIndex,
      KeyConditionExpression: 'pk = :pk AND #sort <= :key',
      ExpressionAttributeValues: { ':pk': OWN_VIEW, ':key': secondFromTop },
      ExpressionAttributeNames: { '#sort': SORT_STORAGE[field].pageAttribute },
      ScanIndexForward: false,
      Limit: 2,
      ReturnConsumedCapacity: 'TOTAL',
    });
  });

  it('answers from the directory alone when the view is empty: 1 round trip, total 0', async () => {
    // Arrange
    ddb.on(GetCommand).resolves({});

    // Act
    const page = await listOffers('c1', query({ scope: 'all', competitiveness: 'losing' }));

    // Assert
    expect(page.total).toBe(0);
    expect(page.offers).toEqual([]);
    expect(ddb.calls()).toHaveLength(1);
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input.Key).toEqual({ pk: 'T#c1#ODIR#ALL#=losing', sk: 'id' });
  });

  it.each([40, 41, 1_000_000])('sends no Query when start %p is at or past the total', async (start) => {
    // Arrange
    serveFakeTable();

    // Act
    const page = await listOffers('c1', query({ start }));

    // Assert
    expect(page).toMatchObject({ total: 40, offers: [] });
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('counts total_competitors_gte from the histogram, without reading keys', async () => {
    // Arrange: competitors (7 * id) % 6 take each value 0..5 for 6 or 7 offers
    serveFakeTable();
    const atLeastFour = OFFERS.filter((o) => o.total_competitors >= 4).length;

    // Act
    const page = await listOffers('c1', query({ sort: { field: 'total_competitors', direction: 'ASC' }, minCompetitors: 4, start: 1000 }));

    // Assert
    expect(page.total).toBe(atLeastFour);
    expect(atLeastFour).toBe(13);
    expect(ddb.calls()).toHaveLength(1);
  });

  it('fails loudly when the index has fewer keys than the directory counts', async () => {
    // Arrange
    ddb.on(GetCommand).resolves({ Item: { ...encodeDirectory({ bounds: [''], counts: [10] }), version: 1 } });
    ddb.on(QueryCommand).resolves({ Items: [] });

    // Act & Assert
    await expect(listOffers('c1', query({ start: 3 }))).rejects.toThrow('Rank keys and directory disagree');
  });
});

describe('getOffer', () => {
  it('reads an offer by id from the ALL view', async () => {
    // Arrange
    ddb.on(GetCommand).resolves({ Item: ITEMS[6] });

    // Act
    const found = await getOffer('c1', 7);

    // Assert
    expect(found).toEqual(OFFERS[6]);
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input).toEqual({ TableName: 'test-table', Key: { pk: 'T#c1#OV#ALL#*', sk: '00000007' } });
  });

  it('is undefined for an unknown id', async () => {
    ddb.on(GetCommand).resolves({});
    await expect(getOffer('c1', 99)).resolves.toBeUndefined();
  });
});
