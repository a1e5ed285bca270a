import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';

import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../../lambdas/functions/list-repricers/handler.js';
import { repricerSlotKey } from '../../../../lambdas/data/table/keys.js';
import { REPRICER_LIST } from '../../../../lambdas/data/repricers/list.js';
import { logger } from '../../../../lambdas/observability/logger.js';
import { FakeTable, TABLE } from '../../data/fake-table.js';
import { connectorType, repricerItem, storedRepricer } from '../../data/fixtures.js';
import { seedList } from '../../data/lists/ranked/seed-list.js';
import { apiEvent, CONTEXT, expectProblem } from '../../fixtures/api-events.js';

const ddb = mockClient(DynamoDBDocumentClient);
/** Repricers 1-3 of product SKU-1, one connector each; 2 is disabled; updated a day apart, 3 last. */
const STORED = [1, 2, 3].map((id) =>
  storedRepricer({ id, enabled: id !== 2, connector_type: connectorType({ uid: `connector-${id}` }), updated_at: `2026-01-0${id}T00:00:00.000Z` }),
);
const RECORDS = STORED.map((stored) => stored.record);

const list = (query?: Record<string, string[]>) => handler(apiEvent({ path: '/v1/repricers', query }), CONTEXT);
const single = (params: Record<string, string>) => Object.fromEntries(Object.entries(params).map(([name, value]) => [name, [value]]));

beforeAll(() => {
  process.env.TABLE_NAME = TABLE;
});

beforeEach(() => {
  ddb.reset();
  logger.setLogLevel('SILENT');
  const table = new FakeTable().serve(ddb);
  for (const stored of STORED) {
    table.put(repricerItem(stored));
    table.put({ ...repricerSlotKey('c1', 'SKU-1', stored.record.connector_type.uid), entity: 'repricerSlot', repricerId: stored.record.id });
  }
  seedList(table, 'c1', REPRICER_LIST, STORED, (stored) => stored.record, { bucketSize: 2, chunkSize: 2 });
  ddb.resetHistory();
});

describe('GET /v1/repricers', () => {
  it('answers 200 with every repricer by id and exact meta', async () => {
    // Act
    const response = await list();

    // Assess
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ meta: { total: 3, limit: 100, start: 0 }, repricers: RECORDS });
  });

  it('reads the cell the filter names, in the order _sort names', async () => {
    // Act
    const response = await list(single({ enabled: 'true', _sort: 'updated_at:DESC', _limit: '1' }));

    // Assess
    expect(JSON.parse(response.body)).toEqual({ meta: { total: 2, limit: 1, start: 0 }, repricers: [RECORDS[2]] });
    const pages = ddb
      .commandCalls(QueryCommand)
      .slice(2)
      .map((call) => call.args[0].input);
    expect(pages).toEqual([expect.objectContaining({ IndexName: 'byUpdated', ExpressionAttributeValues: expect.objectContaining({ ':pk': 'T#c1#RL#on' }) })]);
  });

  it("answers a product filter from the product's slots", async () => {
    const response = await list(single({ product_code: 'SKU-1', enabled: 'false' }));
    expect(JSON.parse(response.body)).toEqual({ meta: { total: 1, limit: 100, start: 0 }, repricers: [RECORDS[1]] });
  });

  it('answers a start past the end with an empty page and the exact total', async () => {
    const response = await list(single({ enabled: 'false', _sort: 'created_at', _start: '5' }));
    expect(JSON.parse(response.body)).toEqual({ meta: { total: 1, limit: 100, start: 5 }, repricers: [] });
  });

  it.each<[Record<string, string[]>, string]>([
    [single({ colour: 'red' }), 'colour'],
    [{ enabled: ['true', 'false'] }, 'enabled'],
    [single({ _limit: '0' }), '_limit'],
    [single({ _sort: 'offer_price' }), '_sort'],
    [single({ enabled: 'yes' }), 'enabled'],
  ])('answers %p with a 400 naming %s, reading nothing', async (query, field) => {
    const body = expectProblem(await list(query), 400, 'urn:repricer:problem:validation');

    expect((body.errors as { field: string }[]).map((e) => e.field)).toContain(field);
    expect(ddb.calls()).toHaveLength(0);
  });
});
