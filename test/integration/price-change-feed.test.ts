/**
 * Polling price changes by update time (`GET /v1/price-changes?updated_since=`, then `?cursor=`;
 * docs/repricing.md, "Polling for changes"), through the local HTTP server on DynamoDB Local: a
 * page read again from its cursor is the same page after new changes arrive and old ones move,
 * `updated_since` gives exactly the changes updated after it, and a cursor is this client's only.
 * The settle delay is 0 here (writes land at once) except where the test names it.
 */
import { PRICE_CHANGE_FEED_SETTLE_MS_ENV } from '../../lambdas/config/price-change-feed.js';
import { connectorRecord, fees, offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { allPages, type PriceChange } from '../support/repricing.js';

let api: TestApi;
let aliceId: string;
const alice: [string, string] = ['feed-alice', 'feed-alice-password-1'];
const bob: [string, string] = ['feed-bob', 'feed-bob-password-1'];

interface FeedPage {
  readonly meta: { readonly limit: number; readonly next_cursor: string; readonly has_more: boolean };
  readonly price_changes: PriceChange[];
}
type Problem = { status: number; errors?: { field: string }[] };

const feed = async (query: string, auth = alice) => {
  const response = await api.request<FeedPage & Problem>('GET', `/v1/price-changes?${query}`, { auth });
  return response;
};
const page = async (query: string, auth = alice) => {
  const response = await feed(query, auth);
  expect(response.status).toBe(200);
  return response.body;
};

/** Every change after the start, page by page from each page's cursor. */
const walk = async (first: string, limit: number) => {
  const seen: PriceChange[] = [];
  let current = await page(`${first}&_limit=${limit}`);
  for (let n = 0; n < 100; n++) {
    seen.push(...current.price_changes);
    if (!current.meta.has_more) return { seen, cursor: current.meta.next_cursor };
    current = await page(`cursor=${current.meta.next_cursor}&_limit=${limit}`);
  }
  throw new Error('The feed did not end within 100 pages');
};

const EPOCH = '1970-01-01T00:00:00.000Z';
const order = (change: PriceChange) => [change.updated_at, change.id] as const;

/** A client with `n` products, its offer at 55+i and a rival at 58+i on each: a repricer on one decides. */
const seller = async (auth: [string, string], codes: readonly string[]) => {
  const { clientId } = await api.createClient(auth[0], { password: auth[1], sellerId: `seller-${auth[0]}`, connector: 'amazon' });
  await api.importRecords(auth[0], [
    connectorRecord('amazon'),
    ...codes.flatMap((code, i) => [
      productRecord(code, { fee_estimates: { amazon: fees(5, 15) } }),
      offerRecord(`${code}-own`, code, { seller_id: `seller-${auth[0]}`, offer_price: 55 + i }),
      offerRecord(`${code}-rival`, code, { seller_id: 'seller-x', offer_price: 58 + i }),
    ]),
  ]);
  return clientId;
};
const reprice = async (auth: [string, string], code: string) => {
  const created = await api.request('POST', '/v1/repricers/', { auth, body: { product_code: code, preferred_price: 70, preferred_profit: 10 } });
  expect(created.status).toBe(201);
};

const CODES = ['F-1', 'F-2', 'F-3', 'F-4', 'F-5', 'F-6', 'F-7'];

beforeAll(async () => {
  process.env[PRICE_CHANGE_FEED_SETTLE_MS_ENV] = '0';
  api = await startTestApi();
  aliceId = await seller(alice, CODES);
  await seller(bob, ['F-1']);
  // One at a time, so the changes have distinct update times to poll between.
  for (const code of CODES.slice(0, 5)) {
    await reprice(alice, code);
    await api.settle();
  }
  await reprice(bob, 'F-1');
  await api.settle();
}, 120_000);

afterAll(async () => {
  delete process.env[PRICE_CHANGE_FEED_SETTLE_MS_ENV];
  await api?.close();
});

describe('GET /v1/price-changes?updated_since=', () => {
  it("gives every one of the client's changes once, oldest update first, and none of another client's", async () => {
    // Act
    const { seen } = await walk(`updated_since=${EPOCH}`, 2);

    // Assert
    const listed = await allPages(api, alice, '/v1/price-changes');
    expect(listed).toHaveLength(5);
    expect(seen.map((change) => change.id).sort((a, b) => a - b)).toEqual(listed.map((change) => change.id).sort((a, b) => a - b));
    expect(seen).toEqual([...seen].sort((a, b) => (order(a) < order(b) ? -1 : 1)));
    expect(new Set(seen.map((change) => change.product_code))).toEqual(new Set(CODES.slice(0, 5)));
  });

  it('gives exactly the changes updated strictly after updated_since', async () => {
    // Arrange: the middle change's update time.
    const listed = await allPages(api, alice, '/v1/price-changes');
    const times = [...new Set(listed.map((change) => change.updated_at))].sort();
    const since = times[Math.floor(times.length / 2)]!;

    // Act
    const { seen } = await walk(`updated_since=${since}`, 2);

    // Assert
    const expected = listed.filter((change) => change.updated_at > since).map((change) => change.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(listed.length);
    expect(seen.map((change) => change.id).sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
  });

  it('reads the same page again from its cursor after new changes arrive and a change already read moves, and the poller then sees those', async () => {
    // Arrange
    const first = await page(`updated_since=${EPOCH}&_limit=2`);
    const second = await page(`cursor=${first.meta.next_cursor}&_limit=2`);
    const offsetPage = (await api.request<{ price_changes: PriceChange[] }>('GET', '/v1/price-changes?_sort=id:DESC&_limit=2&_start=2', { auth: alice })).body;

    // Act: a change of the first page is applied (its update moves), two new decisions arrive.
    const applied = first.price_changes[0]!;
    expect((await api.request('POST', `/v1/price-changes/${applied.id}/apply`, { auth: alice })).status).toBe(200);
    await reprice(alice, 'F-6');
    await reprice(alice, 'F-7');
    await api.settle();
    const again = await page(`cursor=${first.meta.next_cursor}&_limit=2`);
    const offsetAgain = (await api.request<{ price_changes: PriceChange[] }>('GET', '/v1/price-changes?_sort=id:DESC&_limit=2&_start=2', { auth: alice })).body;
    const rest = await walk(`cursor=${second.meta.next_cursor}`, 2);

    // Assert: the cursor's page stayed; the offset page, by contrast, moved with the new arrivals.
    expect(again.price_changes.map((change) => change.id)).toEqual(second.price_changes.map((change) => change.id));
    expect(offsetAgain.price_changes.map((change) => change.id)).not.toEqual(offsetPage.price_changes.map((change) => change.id));
    const after = rest.seen.map((change) => change.id);
    // Applied, it moved on (pending, then failed: no connection sends it): the poller sees it once, as it is now.
    expect(after.filter((id) => id === applied.id)).toHaveLength(1);
    expect(rest.seen.find((change) => change.id === applied.id)?.status).not.toBe('suggested');
    expect(new Set(rest.seen.filter((change) => ['F-6', 'F-7'].includes(change.product_code)).map((change) => change.product_code))).toEqual(
      new Set(['F-6', 'F-7']),
    );
    // Caught up: the last cursor gives nothing more until something changes.
    expect((await page(`cursor=${rest.cursor}`)).price_changes).toEqual([]);
  });

  it('puts in the feed, with a rebuild, a price change stored before the feed existed', async () => {
    // Arrange: one change loses its feed entry, as one stored before the index was.
    const { documentClient, tableName } = await import('../../lambdas/data/table/dynamo.js');
    const { QueryCommand, UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const { PRICE_CHANGE_FEED_INDEX } = await import('../../lambdas/config/table-schema.js');
    const { rebuildClient } = await import('../../tools/admin/rebuild.js');
    const before = await walk(`updated_since=${EPOCH}`, 100);
    const target = before.seen[0]!;
    const { Items: entries = [] } = await documentClient.send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: PRICE_CHANGE_FEED_INDEX.indexName,
        KeyConditionExpression: 'chgPk = :pk',
        ExpressionAttributeValues: { ':pk': `T#${aliceId}#PCFEED` },
      }),
    );
    const entry = entries.find((item) => String(item.chgSk).startsWith(`${target.updated_at}#${target.product_code}#`))!;
    await documentClient.send(new UpdateCommand({ TableName: tableName(), Key: { pk: entry.pk, sk: entry.sk }, UpdateExpression: 'REMOVE chgPk, chgSk' }));
    expect((await walk(`updated_since=${EPOCH}`, 100)).seen.map((change) => change.id)).not.toContain(target.id);

    // Act
    await rebuildClient(alice[0]);
    await api.settle();

    // Assert: back in its place, at its update time.
    expect((await walk(`updated_since=${EPOCH}`, 100)).seen.map((change) => change.id)).toEqual(before.seen.map((change) => change.id));
  });

  it('holds back the changes updated within the settle delay', async () => {
    // Arrange
    process.env[PRICE_CHANGE_FEED_SETTLE_MS_ENV] = String(24 * 3600 * 1000);
    try {
      // Act
      const held = await page(`updated_since=${EPOCH}`);

      // Assert
      expect(held.price_changes).toEqual([]);
      expect(held.meta.has_more).toBe(false);
    } finally {
      process.env[PRICE_CHANGE_FEED_SETTLE_MS_ENV] = '0';
    }
  });

  it.each([
    ['garbage', 'not a cursor!'],
    ['base64 of something else', Buffer.from('{"v":1}').toString('base64url')],
  ])('answers a cursor that is %s with a 400 naming it', async (_case, cursor) => {
    // Act
    const response = await feed(`cursor=${encodeURIComponent(cursor)}`);

    // Assert
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([expect.objectContaining({ field: 'cursor' })]);
  });

  it("answers another client's cursor, and one altered by hand, with a 400", async () => {
    // Arrange
    const bobs = (await page(`updated_since=${EPOCH}`, bob)).meta.next_cursor;
    const mine = (await page(`updated_since=${EPOCH}&_limit=1`)).meta.next_cursor;
    const decoded = JSON.parse(Buffer.from(mine, 'base64url').toString('utf8')) as { u: string; k: string };
    const altered = Buffer.from(JSON.stringify({ ...decoded, u: '2000-01-01T00:00:00.000Z' }), 'utf8').toString('base64url');

    // Act
    const responses = [await feed(`cursor=${bobs}`), await feed(`cursor=${altered}`)];

    // Assert
    expect(responses.map((response) => response.status)).toEqual([400, 400]);
  });

  it.each([
    ['updated_since and cursor together', `updated_since=${EPOCH}&cursor=abc`],
    ['updated_since with a filter', `updated_since=${EPOCH}&status=suggested`],
    ['updated_since with _start', `updated_since=${EPOCH}&_start=2`],
    ['a malformed updated_since', 'updated_since=yesterday'],
    ['updated_since finer than milliseconds', 'updated_since=2026-01-01T00:00:00.0001Z'],
  ])('answers %s with a 400', async (_case, query) => {
    expect((await feed(query)).status).toBe(400);
  });
});
