import { DeleteCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { connectorRecord, fees, offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { allPages, canonicalPriceChanges, type PriceChange, type PriceChangePage } from '../support/repricing.js';
import { step } from '../support/story.js';

/**
 * A price change's status, end to end: decisions of a client without a live connection are
 * recorded `suggested` and listed under `status=suggested`; the client applies one
 * (`POST /v1/price-changes/{id}/apply`), which makes it `pending` and moves its listing in both
 * lists (through the stream and the list maintainer); a second apply is a 409, another client's
 * apply and an unknown id are 404s; a status moved by the sender's write (transitionPriceChange)
 * moves the listing too, and the totals per status always add up to the whole list.
 */
let api: TestApi;
const alice: [string, string] = ['status-alice', 'alice-password-1'];
const bob: [string, string] = ['status-bob', 'bob-password-1'];
let aliceId: string;

const PRODUCTS = ['S-1', 'S-2', 'S-3'];
const STATUSES = ['suggested', 'pending', 'sent', 'applied', 'failed', 'superseded'] as const;
type Status = PriceChange['status'];
type Listed = PriceChange;

const repricerIds = new Map<string, number>();

const decisions = async () => canonicalPriceChanges(api.tableName, aliceId);
const listed = async (query: string, auth = alice) => allPages(api, auth, `/v1/price-changes${query}`);
const totalOf = async (path: string) => {
  const response = await api.request<PriceChangePage>('GET', path, { auth: alice });
  expect(response.status).toBe(200);
  return response.body.meta.total;
};
const apply = (id: number | string, auth = alice) => api.request<Record<string, unknown>>('POST', `/v1/price-changes/${id}/apply`, { auth });

const queryAll = async (client: DynamoDBDocumentClient, table: string, pk: string): Promise<Record<string, NativeAttributeValue>[]> => {
  const result = await client.send(
    new QueryCommand({ TableName: table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true }),
  );
  return result.Items ?? [];
};

/** The ids listed under each status, and under none (unfiltered). */
const idsByStatus = async (): Promise<Record<Status | 'all', number[]>> => {
  const entries = await Promise.all(STATUSES.map(async (status) => [status, (await listed(`?status=${status}`)).map((change) => change.id)] as const));
  return { ...(Object.fromEntries(entries) as Record<Status, number[]>), all: (await listed('')).map((change) => change.id) };
};

beforeAll(async () => {
  api = await startTestApi();
  aliceId = (await api.createClient(alice[0], { password: alice[1], sellerId: 'seller-a', connector: 'amazon' })).clientId;
  await api.createClient(bob[0], { password: bob[1], sellerId: 'seller-b', connector: 'amazon' });
  // Alice has no connection: every decision waits for her apply.
  await api.importRecords(alice[0], [
    connectorRecord('amazon'),
    ...PRODUCTS.flatMap((code, i) => [
      productRecord(code, { fee_estimates: { amazon: fees(5, 15) } }),
      offerRecord(`${code}-own`, code, { seller_id: 'seller-a', offer_price: 55 + i }),
      offerRecord(`${code}-rival`, code, { seller_id: 'seller-x', offer_price: 58 + i }),
    ]),
  ]);
  for (const code of PRODUCTS) {
    const created = await api.request<{ id: number }>('POST', '/v1/repricers/', {
      auth: alice,
      body: { product_code: code, preferred_price: 70, preferred_profit: 10 },
      headers: { 'content-type': 'application/json' },
    });
    if (created.status !== 201) throw new Error(`Creating a repricer answered ${created.status}: ${created.text}`);
    repricerIds.set(code, created.body.id);
  }
  await api.settle();
}, 120_000);

afterAll(async () => api?.close());

describe('price change statuses', () => {
  it('lists by status, applies a suggestion once, and moves listings when the status moves', async () => {
    let applied: Listed;
    let failed: Listed;

    await step('decisions without a live connection are suggested, and listed under status=suggested only', async () => {
      // Act
      const canonical = (await decisions()).map((item) => item.record);
      const byStatus = await idsByStatus();

      // Assert
      expect(canonical).toHaveLength(PRODUCTS.length);
      expect(canonical.map((change) => change.status)).toEqual(PRODUCTS.map(() => 'suggested'));
      expect(byStatus.suggested).toEqual(canonical.map((change) => change.id));
      expect(byStatus.all).toEqual(byStatus.suggested);
      for (const status of STATUSES.filter((s) => s !== 'suggested')) expect(byStatus[status]).toEqual([]);
      [applied, failed] = canonical as [Listed, Listed];
    });

    await step('apply answers 200 with the price change, now pending for the sender', async () => {
      // Act
      const response = await apply(applied.id);

      // Assert
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ ...applied, status: 'pending', status_reason: null, updated_at: expect.any(String) });
      expect(Date.parse(String(response.body.updated_at))).toBeGreaterThanOrEqual(Date.parse(applied.updated_at));
      const stored = (await decisions()).find((item) => item.record.id === applied.id) as unknown as Record<string, unknown>;
      expect(stored.requested).toBe(true);
    });

    await step('the lists follow: the applied one leaves status=suggested for the status it has now', async () => {
      // Act
      await api.settle();
      const now = (await decisions()).find((item) => item.record.id === applied.id)!.record.status;
      const byStatus = await idsByStatus();

      // Assert: pending, unless a sender has taken it further since.
      expect(['pending', 'sent', 'applied', 'failed']).toContain(now);
      expect(byStatus[now]).toEqual([applied.id]);
      expect(byStatus.suggested).not.toContain(applied.id);
      expect(byStatus.suggested).toContain(failed.id);
      expect((await listed(`?status=${now}`))[0]).toMatchObject({ id: applied.id, status: now });
      const repricer = repricerIds.get(applied.product_code)!;
      expect((await allPages(api, alice, `/v1/repricers/${repricer}/price-changes?status=suggested`)).map((c) => c.id)).toEqual([]);
      expect((await allPages(api, alice, `/v1/repricers/${repricer}/price-changes?status=${now}`)).map((c) => c.id)).toEqual([applied.id]);
      expect((await allPages(api, alice, `/v1/price-changes?product_code=${applied.product_code}&status=${now}`)).map((c) => c.id)).toEqual([applied.id]);
    });

    await step('applying it again is a 409 that names its status', async () => {
      // Act
      const response = await apply(applied.id);

      // Assert
      expect(response.status).toBe(409);
      const now = (await decisions()).find((item) => item.record.id === applied.id)!.record.status;
      expect(response.body.detail).toContain(now);
    });

    await step("GET by id answers the price change as it stands, with the explanation of its decision; not another client's", async () => {
      // Act
      const [mine, foreign, unknown, malformed] = await Promise.all([
        api.request<Record<string, unknown>>('GET', `/v1/price-changes/${failed.id}`, { auth: alice }),
        api.request('GET', `/v1/price-changes/${failed.id}`, { auth: bob }),
        api.request('GET', '/v1/price-changes/987654321', { auth: alice }),
        api.request('GET', '/v1/price-changes/abc', { auth: alice }),
      ]);

      // Assert
      const stored = (await decisions()).find((item) => item.record.id === failed.id)!.record;
      expect(mine.status).toBe(200);
      expect(mine.body).toEqual(stored);
      expect(mine.body.explanation).toMatchObject({ final_price: stored.new_price, reason: stored.reason });
      for (const response of [foreign, unknown, malformed]) expect(response.status).toBe(404);
      expect(foreign.body).toEqual(unknown.body);
    });

    await step("another client's apply and an unknown id are the same 404, and change nothing", async () => {
      // Arrange
      const before = (await decisions()).map((item) => item.record);

      // Act
      const foreign = await apply(failed.id, bob);
      const unknown = await apply(987654321);
      const malformed = await apply('abc');

      // Assert
      for (const response of [foreign, unknown, malformed]) {
        expect(response.status).toBe(404);
        expect(response.headers['content-type']).toMatch(/application\/problem\+json/);
      }
      expect(foreign.body).toEqual(unknown.body);
      expect((await decisions()).map((item) => item.record)).toEqual(before);
    });

    await step('a status moved by the sender moves the listing: the failed one is listed under status=failed only', async () => {
      // Arrange
      const { transitionPriceChange } = await import('../../lambdas/data/price-changes/status.js');
      const item = (await decisions()).find((stored) => stored.record.id === failed.id)!;

      // Act
      const moved = await transitionPriceChange(
        aliceId,
        { productCode: failed.product_code, sk: item.sk },
        { from: ['suggested', 'pending'], to: 'failed', fields: { status_reason: 'The marketplace refused the price.' }, now: new Date().toISOString() },
      );
      await api.settle();
      const byStatus = await idsByStatus();

      // Assert
      expect(moved).toMatchObject({ id: failed.id, status: 'failed', status_reason: 'The marketplace refused the price.' });
      expect(byStatus.failed).toContain(failed.id);
      for (const status of STATUSES.filter((s) => s !== 'failed')) expect(byStatus[status]).not.toContain(failed.id);
      expect((await listed('?status=failed')).find((change) => change.id === failed.id)).toEqual(moved);
      const repricer = repricerIds.get(failed.product_code)!;
      expect((await allPages(api, alice, `/v1/repricers/${repricer}/price-changes?status=failed`)).map((c) => c.id)).toEqual([failed.id]);
      expect((await allPages(api, alice, `/v1/repricers/${repricer}/price-changes?status=suggested`)).map((c) => c.id)).toEqual([]);
      // A failed one is no suggestion: applying it is a 409 too.
      expect((await apply(failed.id)).status).toBe(409);
    });

    await step('a rebuild lists every price change afresh in the cell of its status, a legacy listing and lost counts included', async () => {
      // Arrange: one listing back in the legacy cell of its reason alone (as the first version
      // wrote it), and the tenant list's counts lost
      const { documentClient, tableName } = await import('../../lambdas/data/table/dynamo.js');
      const { listingPartition, nodePartition } = await import('../../lambdas/data/table/keys.js');
      const { PRICE_CHANGE_LIST } = await import('../../lambdas/data/price-changes/list.js');
      const { rebuildClient } = await import('../../tools/admin/rebuild.js');
      const before = await idsByStatus();
      const [listing] = await queryAll(documentClient, tableName(), listingPartition(aliceId, PRICE_CHANGE_LIST.tag, `failed|${failed.reason}`));
      await documentClient.send(new DeleteCommand({ TableName: tableName(), Key: { pk: listing!.pk, sk: listing!.sk } }));
      const legacyPartition = listingPartition(aliceId, PRICE_CHANGE_LIST.tag, failed.reason);
      await documentClient.send(new PutCommand({ TableName: tableName(), Item: { ...listing!, pk: legacyPartition, cell: failed.reason } }));
      for (const level of ['b', 'c'] as const) {
        const pk = nodePartition(aliceId, PRICE_CHANGE_LIST.tag, 'id', level);
        for (const node of await queryAll(documentClient, tableName(), pk)) {
          await documentClient.send(new DeleteCommand({ TableName: tableName(), Key: { pk: node.pk, sk: node.sk } }));
        }
      }

      // Act
      const request = await rebuildClient(alice[0]);
      await api.settle();

      // Assert
      expect(request.status).toBe('done');
      expect(await idsByStatus()).toEqual(before);
      expect(await queryAll(documentClient, tableName(), legacyPartition)).toEqual([]);
    });

    await step('the totals per status add up to the whole list, and match the canonical statuses', async () => {
      // Act
      const canonical = (await decisions()).map((item) => item.record);
      const totals = await Promise.all(STATUSES.map((status) => totalOf(`/v1/price-changes?status=${status}`)));
      const all = await totalOf('/v1/price-changes');

      // Assert
      expect(totals.reduce((sum, n) => sum + n, 0)).toBe(all);
      expect(all).toBe(canonical.length);
      expect(totals).toEqual(STATUSES.map((status) => canonical.filter((change) => change.status === status).length));
      expect(await totalOf('/v1/price-changes?status=suggested&reason=undercut')).toBe(
        canonical.filter((change) => change.status === 'suggested' && change.reason === 'undercut').length,
      );
    });
  });

  it('refuses an unknown status with a 400 naming it, on both list routes', async () => {
    // Act
    const tenantWide = await api.request<{ errors: { field: string }[] }>('GET', '/v1/price-changes?status=done', { auth: alice });
    const ofRepricer = await api.request<{ errors: { field: string }[] }>('GET', `/v1/repricers/${repricerIds.get('S-1')}/price-changes?status=Suggested`, {
      auth: alice,
    });

    // Assert
    for (const response of [tenantWide, ofRepricer]) {
      expect(response.status).toBe(400);
      expect(response.body.errors.map((error) => error.field)).toEqual(['status']);
    }
  });
});
