/**
 * The read planner's reads of the `due` index: one Query per shard a plan, reaching to the
 * ceiling, from which it takes both the looks due now and the early ones.
 */
import { DynamoDBDocumentClient, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { READ_PLANNER } from '../../../lambdas/config/read-planner.js';
import { DUE_SHARDS } from '../../../lambdas/data/market/page-watches.js';
import { dueShardPartition } from '../../../lambdas/data/table/keys.js';
import type { QueueMessage } from '../../../lambdas/queue/sender.js';
import { planStorefrontReads } from '../../../lambdas/read-planning/plan-reads.js';

const ddb = mockClient(DynamoDBDocumentClient);
const NOW = Date.parse('2026-11-29T10:00:00Z');
const SHARD = dueShardPartition(3);
const dueKey = (atMs: number, line: string) => `${String(atMs).padStart(15, '0')}#takealot#${line}`;

/** A watch of one tenant's product on page `line`, next looked at `atMs`, never looked at before. */
const watchItem = (line: string, atMs: number) => ({
  connector: 'takealot',
  productLineId: line,
  watchers: new Set([`tenant-a|SKU-${line}`]),
  repricedBy: new Set<string>(),
  lastLookAt: null,
  scheduledAt: atMs,
  dueSk: dueKey(atMs, line),
});

beforeEach(() => {
  process.env.TABLE_NAME = 'plan-reads-table';
  ddb.reset();
  // The index answers in due order: the page due now, then the one due in an hour.
  ddb
    .on(QueryCommand)
    .callsFake((input: { ExpressionAttributeValues: Record<string, string> }) =>
      input.ExpressionAttributeValues[':shard'] === SHARD
        ? { Items: [watchItem('PL-NOW', NOW - 1_000), watchItem('PL-SOON', NOW + 3_600_000)] }
        : { Items: [] },
    );
  ddb.on(UpdateCommand).resolves({});
});

describe('planStorefrontReads', () => {
  it('reads each shard once, up to the ceiling, and plans the look due now and an early one from that read', async () => {
    // Arrange
    const sent: QueueMessage[] = [];
    const plan = planStorefrontReads({ send: async (messages) => (sent.push(...messages), []) });

    // Act
    const result = await plan(NOW);

    // Assert
    const queries = ddb.commandCalls(QueryCommand).map((call) => call.args[0].input);
    expect(queries).toHaveLength(DUE_SHARDS);
    expect(new Set(queries.map((query) => query.ExpressionAttributeValues?.[':shard']))).toEqual(
      new Set(Array.from({ length: DUE_SHARDS }, (_, shard) => dueShardPartition(shard))),
    );
    const ceiling = NOW + READ_PLANNER.ceilingSeconds * 1000;
    for (const query of queries) expect(query.ExpressionAttributeValues?.[':upTo']).toBe(`${String(ceiling).padStart(15, '0')}#~`);
    expect(result).toEqual({ reads: 2, due: 1, early: 1, tenants: 1 });
    expect(sent.map((message) => JSON.parse(message.body).productLineId)).toEqual(['PL-NOW', 'PL-SOON']);
  });

  it('takes no early look when the looks due fill its budget', async () => {
    // Arrange: a budget of one read a plan.
    const sent: QueueMessage[] = [];
    const plan = planStorefrontReads({ send: async (messages) => (sent.push(...messages), []) }, { ...READ_PLANNER, readsPerSecond: 1, maxQueueSeconds: 1 });

    // Act
    const result = await plan(NOW);

    // Assert
    expect(ddb.commandCalls(QueryCommand).map((call) => call.args[0].input.Limit)).toEqual(Array.from({ length: DUE_SHARDS }, () => 1));
    expect(result).toEqual({ reads: 1, due: 1, early: 0, tenants: 1 });
    expect(sent.map((message) => JSON.parse(message.body).productLineId)).toEqual(['PL-NOW']);
  });
});
