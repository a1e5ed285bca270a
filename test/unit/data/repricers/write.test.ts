import { jest } from '@jest/globals';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { counterKey, nodePartition, repricerKey, repricerSlotKey } from '../../../../lambdas/data/table/keys.js';
import { decodeNode, emptyNode, FIRST_BOUND, nodeItem } from '../../../../lambdas/data/lists/ranked/nodes.js';
import { REPRICER_LIST, type StoredRepricer } from '../../../../lambdas/data/repricers/list.js';
import { listRepricers } from '../../../../lambdas/data/repricers/read.js';
import { createRepricer, deleteRepricer, updateRepricer } from '../../../../lambdas/data/repricers/write.js';
import { RETRY_ATTEMPTS } from '../../../../lambdas/data/table/retry.js';
import type { Repricer } from '../../../../lambdas/domain/records.js';
import { nodeDiscrepancies } from '../../../support/rank-check.js';
import { FakeTable, TABLE } from '../fake-table.js';
import { connectorType, product, repricerFields } from '../fixtures.js';
import { listState } from '../lists/ranked/seed-list.js';

const ddb = mockClient(DynamoDBDocumentClient);
const NOW = '2026-11-22T10:15:30.123Z';
const LATER = '2026-11-22T11:00:00.000Z';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let table: FakeTable;

type Action = Record<string, { Item?: Record<string, unknown>; Key?: Record<string, unknown>; ConditionExpression?: string; UpdateExpression?: string }>;
const transactions = () => ddb.commandCalls(TransactWriteCommand).map((call) => (call.args[0].input.TransactItems ?? []) as Action[]);
const expectExactNodes = () => {
  const { places, nodes } = listState(table, 'c1', REPRICER_LIST);
  expect(nodeDiscrepancies(REPRICER_LIST, places, nodes)).toEqual([]);
};
const listed = async (enabled?: boolean) =>
  (await listRepricers('c1', { ...(enabled === undefined ? {} : { enabled }), sort: { field: 'id', direction: 'ASC' }, limit: 100, start: 0 })).repricers.map(
    (r) => r.id,
  );
const create = async (overrides: Parameters<typeof repricerFields>[0] = {}) => {
  const result = await createRepricer('c1', repricerFields(overrides), NOW);
  if (!result.created) throw new Error('slot taken');
  return result.repricer;
};
const canonical = (id: number) => table.get(repricerKey('c1', id)) as (StoredRepricer & Record<string, unknown>) | undefined;
/** Another writer changes the repricer: its version moves on. */
const bumpVersion = (id: number) => {
  const item = canonical(id)!;
  table.put({ ...item, version: item.version + 1, record: { ...item.record, min_profit: item.record.min_profit + 1 } });
};

beforeAll(() => {
  process.env.TABLE_NAME = TABLE;
});

beforeEach(() => {
  ddb.reset();
  table = new FakeTable([{ ...counterKey('repricer'), value: 6 }]).serve(ddb);
});

describe('createRepricer', () => {
  it('writes the repricer, claims its slot, lists it and counts it in one transaction: it lists at once', async () => {
    // Act
    const result = await createRepricer('c1', repricerFields(), NOW);

    // Assess
    expect(result).toEqual({
      created: true,
      version: 1,
      repricer: { id: 7, uid: expect.stringMatching(UUID), ...repricerFields(), created_at: NOW, updated_at: NOW },
    });
    expect(transactions()).toHaveLength(1);
    const [repricer, slot, listing, ...nodes] = transactions()[0]!;
    expect(repricer?.Put).toMatchObject({
      Item: { pk: 'T#c1#R#7', sk: 'REPRICER', entity: 'repricer', sv: 1, version: 1 },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    expect(slot?.Put).toMatchObject({
      // With the competitor filters, so the evaluator needs no other read
      Item: {
        pk: 'T#c1#P#SKU-1',
        sk: 'SLOT#takealot',
        entity: 'repricerSlot',
        repricerId: 7,
        enabled: true,
        min_price: 76.48,
        preferred_price: 100,
        exclude_seller_ids: [],
        min_competitor_rating: null,
        competitor_stock: 'any',
        max_competitor_leadtime_days: null,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    expect(listing?.Put?.Item).toMatchObject({ pk: 'T#c1#RL#on', sk: '00000007', entity: 'repricerListing', cell: 'on' });
    // A bucket and a chunk of each order, counted with ADD
    expect(nodes).toHaveLength(6);
    for (const node of nodes) expect(node.Update?.UpdateExpression).toBe('SET entity = :entity ADD #c0 :d0, v :one');
    expect(await listed()).toEqual([7]);
    expectExactNodes();
  });

  it('answers a taken slot with the id of the repricer holding it, and writes nothing', async () => {
    // Prepare
    await create();
    ddb.resetHistory();

    // Act
    const result = await createRepricer('c1', repricerFields({ enabled: false }), NOW);

    // Assess
    expect(result).toEqual({ created: false, existingId: 7 });
    expect(canonical(8)).toBeUndefined();
    expect(await listed()).toEqual([7]);
    expectExactNodes();
  });

  it('allows one repricer per product and connector: another connector or product gets its own slot', async () => {
    await create();
    await create({ connector_type: connectorType({ uid: 'amazon' }) });
    await create({ product: product({ code: 'SKU-2' }) });
    expect(await listed()).toEqual([7, 8, 9]);
    expectExactNodes();
  });

  it('retries with fresh nodes when a node it counts into was split meanwhile', async () => {
    // Prepare: the first repricer starts the nodes; before the second one's write, the bucket covering it is split
    await create();
    let splits = 1;
    table.intercept = (command) => {
      if (command !== 'TransactWrite' || splits-- <= 0) return;
      const pk = nodePartition('c1', 'RL', 'id', 'b');
      const first = decodeNode(table.get({ pk, sk: FIRST_BOUND })!);
      table.put(nodeItem(pk, { ...first, hi: '00000008', v: first.v + 1 }));
      table.put(nodeItem(pk, { ...emptyNode('00000008', false), v: 1 }));
    };

    // Act
    await create({ product: product({ code: 'SKU-2' }) });

    // Assess
    expect(transactions().slice(1)).toHaveLength(2);
    expect(await listed()).toEqual([7, 8]);
    expectExactNodes();
  });
});

describe('updateRepricer', () => {
  const disable = async (current: StoredRepricer): Promise<Repricer> => ({ ...current.record, enabled: false, updated_at: LATER });

  it('writes the next version over the version read, and moves the listing to its new cell', async () => {
    // Prepare
    await create();
    await create({ product: product({ code: 'SKU-2' }) });

    // Act
    const outcome = await updateRepricer('c1', 7, disable);

    // Assess
    expect(outcome).toMatchObject({ kind: 'done', value: { version: 2, record: { id: 7, enabled: false, updated_at: LATER } } });
    const [item, slot] = transactions().at(-1)!;
    expect(item?.Put).toMatchObject({ ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': 1 } });
    expect(slot?.Put).toMatchObject({ Item: { enabled: false }, ConditionExpression: 'repricerId = :id' });
    expect(await listed(false)).toEqual([7]);
    expect(await listed(true)).toEqual([8]);
    expect(table.partition('T#c1#RL#on').map((listing) => listing.sk)).toEqual(['00000008']);
    expectExactNodes();
  });

  it("rewrites the slot with the repricer's competitor filters", async () => {
    // Prepare
    await create();
    const filter = async (current: StoredRepricer): Promise<Repricer> => ({
      ...current.record,
      exclude_seller_ids: ['sister'],
      min_competitor_rating: 4,
      competitor_stock: 'in_stock',
      max_competitor_leadtime_days: 0,
      updated_at: LATER,
    });

    // Act
    await updateRepricer('c1', 7, filter);

    // Assess
    expect(table.get(repricerSlotKey('c1', 'SKU-1', 'takealot'))).toMatchObject({
      repricerId: 7,
      exclude_seller_ids: ['sister'],
      min_competitor_rating: 4,
      competitor_stock: 'in_stock',
      max_competitor_leadtime_days: 0,
    });
  });

  it('re-reads and decides again after another write changed the repricer first', async () => {
    // Prepare
    await create();
    let races = 1;
    table.intercept = (command) => {
      if (command === 'TransactWrite' && races-- > 0) bumpVersion(7);
    };
    const decide = jest.fn(disable);

    // Act
    const outcome = await updateRepricer('c1', 7, decide);

    // Assess
    expect(decide.mock.calls.map(([current]) => current.version)).toEqual([1, 2]);
    expect(outcome).toMatchObject({ kind: 'done', value: { version: 3, record: { min_profit: 1, enabled: false } } });
    expectExactNodes();
  });

  it('passes on what decide throws (a failed If-Match), writing nothing', async () => {
    await create();
    const refused = new Error('precondition failed');
    await expect(
      updateRepricer('c1', 7, async () => {
        throw refused;
      }),
    ).rejects.toBe(refused);
    expect(canonical(7)?.version).toBe(1);
  });

  it('is missing for an id no repricer has', async () => {
    await expect(updateRepricer('c1', 99, disable)).resolves.toEqual({ kind: 'missing' });
  });

  it(`is contended after ${RETRY_ATTEMPTS} attempts that all lost the race`, async () => {
    // Prepare
    await create();
    table.intercept = (command) => {
      if (command === 'TransactWrite') bumpVersion(7);
    };

    // Act
    const outcome = await updateRepricer('c1', 7, disable);

    // Assess
    expect(outcome).toEqual({ kind: 'contended' });
    expect(transactions().slice(1)).toHaveLength(RETRY_ATTEMPTS);
  });
});

describe('deleteRepricer', () => {
  it('deletes the repricer, its listing and its slot, and counts it out: the slot can be taken again', async () => {
    // Prepare
    await create();
    await create({ product: product({ code: 'SKU-2' }) });
    const check = jest.fn();

    // Act
    const outcome = await deleteRepricer('c1', 7, check);
    const again = await createRepricer('c1', repricerFields(), NOW);

    // Assess
    expect(outcome).toEqual({ kind: 'done', value: true });
    expect(check).toHaveBeenCalledWith(expect.objectContaining({ version: 1 }));
    expect(canonical(7)).toBeUndefined();
    expect(again).toMatchObject({ created: true, repricer: { id: 9 } });
    expect(table.get(repricerSlotKey('c1', 'SKU-1', 'takealot'))?.repricerId).toBe(9);
    expect(await listed()).toEqual([8, 9]);
    expectExactNodes();
  });

  it('re-reads after another write changed the repricer first and checks the new version', async () => {
    // Prepare
    await create();
    let races = 1;
    table.intercept = (command) => {
      if (command === 'TransactWrite' && races-- > 0) bumpVersion(7);
    };
    const check = jest.fn();

    // Act
    const outcome = await deleteRepricer('c1', 7, check);

    // Assess
    expect(outcome).toEqual({ kind: 'done', value: true });
    expect(check.mock.calls.map(([current]) => (current as StoredRepricer).version)).toEqual([1, 2]);
    expectExactNodes();
  });

  it('is missing once a concurrent delete got there first', async () => {
    // Prepare
    await create();
    await deleteRepricer('c1', 7, () => {});

    // Act & Assess
    await expect(deleteRepricer('c1', 7, () => {})).resolves.toEqual({ kind: 'missing' });
    expectExactNodes();
  });

  it('passes on what check throws, deleting nothing', async () => {
    await create();
    const refused = new Error('precondition failed');
    await expect(
      deleteRepricer('c1', 7, () => {
        throw refused;
      }),
    ).rejects.toBe(refused);
    expect(await listed()).toEqual([7]);
  });
});
