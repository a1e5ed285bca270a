import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { REPRICER_LIST } from '../../../../lambdas/data/repricers/list.js';
import { getRepricer, listRepricers, readRepricers } from '../../../../lambdas/data/repricers/read.js';
import { repricerSlotKey } from '../../../../lambdas/data/table/keys.js';
import type { RepricerQuery } from '../../../../lambdas/domain/repricer-query.js';
import { FakeTable, TABLE } from '../fake-table.js';
import { connectorType, CREATED_AT, product, repricerItem, storedRepricer } from '../fixtures.js';
import { seedList } from '../lists/ranked/seed-list.js';

const ddb = mockClient(DynamoDBDocumentClient);
let table: FakeTable;

/** Repricers 1-6: odd ones on SKU-1, even ones on SKU-2, each with a connector of its own; 3 and 6 disabled; created a second apart. */
const REPRICERS = [1, 2, 3, 4, 5, 6].map((id) =>
  storedRepricer(
    {
      id,
      enabled: id % 3 !== 0,
      product: product({ code: id % 2 ? 'SKU-1' : 'SKU-2' }),
      connector_type: connectorType({ uid: `connector-${id}` }),
      created_at: new Date(Date.parse(CREATED_AT) + (10 - id) * 1000).toISOString(),
    },
    id,
  ),
);

const query = (overrides: Partial<RepricerQuery> = {}): RepricerQuery => ({ sort: { field: 'id', direction: 'ASC' }, limit: 100, start: 0, ...overrides });
const ids = async (overrides: Partial<RepricerQuery>) => (await listRepricers('c1', query(overrides))).repricers.map((r) => r.id);

beforeAll(() => {
  process.env.TABLE_NAME = TABLE;
});

beforeEach(() => {
  ddb.reset();
  table = new FakeTable().serve(ddb);
  for (const stored of REPRICERS) {
    table.put(repricerItem(stored));
    table.put({ ...repricerSlotKey('c1', stored.record.product.code, stored.record.connector_type.uid), entity: 'repricerSlot', repricerId: stored.record.id });
  }
  seedList(table, 'c1', REPRICER_LIST, REPRICERS, (stored) => stored.record, { bucketSize: 2, chunkSize: 2 });
  ddb.resetHistory();
});

describe('getRepricer', () => {
  it('reads the canonical item consistently, with its version', async () => {
    // Act
    const stored = await getRepricer('c1', 2);

    // Assess
    expect(stored).toEqual(REPRICERS[1]);
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input).toEqual({ TableName: TABLE, Key: { pk: 'T#c1#R#2', sk: 'REPRICER' }, ConsistentRead: true });
  });

  it("is undefined for a missing repricer or another client's", async () => {
    await expect(getRepricer('c1', 99)).resolves.toBeUndefined();
    await expect(getRepricer('c2', 2)).resolves.toBeUndefined();
  });

  it.each([0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1, 36 ** 8])('reads nothing for the id %p, which no repricer has', async (id) => {
    await expect(getRepricer('c1', id)).resolves.toBeUndefined();
    expect(ddb.calls()).toHaveLength(0);
  });

  it('refuses a stored item without a version', async () => {
    const { version: _version, ...unversioned } = repricerItem(REPRICERS[1]);
    table.put(unversioned);
    await expect(getRepricer('c1', 2)).rejects.toThrow();
  });

  it('reads several at once', async () => {
    expect((await readRepricers('c1', [5, 1, 99])).map((stored) => stored.record.id).sort()).toEqual([1, 5]);
  });
});

describe('listRepricers', () => {
  it.each<[string, Partial<RepricerQuery>, number[]]>([
    ['every repricer by id', {}, [1, 2, 3, 4, 5, 6]],
    ['enabled ones', { enabled: true }, [1, 2, 4, 5]],
    ['disabled ones by id descending', { enabled: false, sort: { field: 'id', direction: 'DESC' } }, [6, 3]],
    ['by created_at (the later ids were created first)', { sort: { field: 'created_at', direction: 'ASC' } }, [6, 5, 4, 3, 2, 1]],
    ['a window', { start: 2, limit: 3 }, [3, 4, 5]],
    ['one product', { productCode: 'SKU-1' }, [1, 3, 5]],
    ['one product, enabled, by created_at descending', { productCode: 'SKU-1', enabled: true, sort: { field: 'created_at', direction: 'DESC' } }, [1, 5]],
    ['one product, a window', { productCode: 'SKU-2', start: 1, limit: 1 }, [4]],
    ['a product without repricers', { productCode: 'SKU-9' }, []],
  ])('lists %s', async (_case, overrides, expected) => {
    expect(await ids(overrides)).toEqual(expected);
  });

  it('counts the total of the filters, whatever the window', async () => {
    expect((await listRepricers('c1', query({ enabled: true, start: 10 }))).total).toBe(4);
    expect((await listRepricers('c1', query({ productCode: 'SKU-2', enabled: true, limit: 1 }))).total).toBe(2);
  });

  it("serves a product's repricers from its slots and the canonical items, in two round trips", async () => {
    // Act
    const page = await listRepricers('c1', query({ productCode: 'SKU-1' }));

    // Assess
    expect(page.repricers).toEqual([REPRICERS[0]!.record, REPRICERS[2]!.record, REPRICERS[4]!.record]);
    expect(page.stats.roundTrips).toBeLessThanOrEqual(2);
  });

  it('serves the other lists from the ranked list, in at most three round trips', async () => {
    const page = await listRepricers('c1', query({ enabled: true, start: 1, limit: 2 }));
    expect(page.repricers).toEqual([REPRICERS[1]!.record, REPRICERS[3]!.record]);
    expect(page.stats.roundTrips).toBeLessThanOrEqual(3);
  });
});
