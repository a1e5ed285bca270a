import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { processImportJob } from '../../../../lambdas/functions/process-imports/process.js';
import type { ImportJob } from '../../../../lambdas/domain/import-jobs.js';
import { MAX_IMPORT_ATTEMPTS } from '../../../../lambdas/config/event-sources.js';
import { logger } from '../../../../lambdas/observability/logger.js';

const ddb = mockClient(DynamoDBDocumentClient);
const AT = '2026-11-22T10:15:30.123Z';

const record = (overrides: Partial<ImportJob> = {}): ImportJob => ({
  id: 3,
  uid: '0d3f5b0e-7c1a-4c39-9a55-3e0f1f6f2b1d',
  import_type: 'offers',
  status: 'running',
  trigger_type: 'public_api',
  total: 500,
  processed: 200,
  created: 200,
  updated: 0,
  skipped: 0,
  invalid: 0,
  errors: [],
  start_time: AT,
  end_time: null,
  created_at: AT,
  updated_at: AT,
  ...overrides,
});
const item = (attempts: number, overrides: Partial<ImportJob> = {}) => ({
  pk: 'T#c1#IMP',
  sk: '00000003',
  entity: 'import',
  record: record(overrides),
  attempts,
  checked: true,
  bodyChunks: 1,
  owner: { sellerId: 'seller-own', defaultConnector: 'amazon' },
});

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
  logger.setLogLevel('SILENT');
});

describe('processImportJob', () => {
  it.each(['completed', 'failed'] as const)('leaves a %s job alone: a duplicate message writes nothing', async (status) => {
    // Arrange
    ddb.on(GetCommand).resolves({ Item: item(1, { status }) });

    // Act
    await processImportJob({ clientId: 'c1', importId: 3 });

    // Assert
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('fails a job attempted MAX_IMPORT_ATTEMPTS times, naming the line it could not get past, only if it has not ended', async () => {
    // Arrange
    ddb.on(GetCommand).resolves({ Item: item(MAX_IMPORT_ATTEMPTS) });
    ddb.on(UpdateCommand).resolves({ Attributes: item(MAX_IMPORT_ATTEMPTS, { status: 'failed' }) });

    // Act
    await processImportJob({ clientId: 'c1', importId: 3 });

    // Assert
    const [update] = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(update?.Key).toEqual({ pk: 'T#c1#IMP', sk: '00000003' });
    expect(update?.ConditionExpression).toBe('#r.#status IN (:pending, :running)');
    expect(Object.values(update?.ExpressionAttributeValues ?? {})).toEqual(
      expect.arrayContaining(['failed', [{ line: 201, message: expect.stringContaining(`${MAX_IMPORT_ATTEMPTS} times`) }]]),
    );
    expect(ddb.commandCalls(GetCommand)).toHaveLength(1);
  });

  it("does nothing for a job that does not exist (expired, or another tenant's id)", async () => {
    ddb.on(GetCommand).resolves({});
    await expect(processImportJob({ clientId: 'c1', importId: 3 })).resolves.toBeUndefined();
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });
});
