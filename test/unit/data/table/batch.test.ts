import { jest } from '@jest/globals';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { batchGet, keyString } from '../../../../lambdas/data/table/batch.js';
import { ContentionError, RETRY_ATTEMPTS } from '../../../../lambdas/data/table/retry.js';

const ddb = mockClient(DynamoDBDocumentClient);
const keys = (count: number) => Array.from({ length: count }, (_, i) => ({ pk: `P#${i}`, sk: 'X' }));
const keysSent = () => ddb.commandCalls(BatchGetCommand).map((call) => call.args[0].input.RequestItems?.['test-table']?.Keys ?? []);

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
  jest.useRealTimers();
});

describe('batchGet', () => {
  it('reads in chunks of 100 keys, consistently by default', async () => {
    // Arrange
    ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: Record<string, string>[] }> }) => ({
      Responses: { 'test-table': input.RequestItems['test-table']!.Keys.map((key) => ({ ...key, found: true })) },
    }));

    // Act
    const items = await batchGet(keys(250));

    // Assert
    expect(keysSent().map((sent) => sent.length)).toEqual([100, 100, 50]);
    expect(keysSent().flat()).toEqual(keys(250));
    expect(items).toHaveLength(250);
    expect(items[249]).toEqual({ pk: 'P#249', sk: 'X', found: true });
    expect(ddb.commandCalls(BatchGetCommand)[0]?.args[0].input.RequestItems?.['test-table']?.ConsistentRead).toBe(true);
  });

  it('can read eventually consistently', async () => {
    // Arrange
    ddb.on(BatchGetCommand).resolves({ Responses: { 'test-table': [] } });

    // Act
    await batchGet(keys(1), false);

    // Assert
    expect(ddb.commandCalls(BatchGetCommand)[0]?.args[0].input.RequestItems?.['test-table']?.ConsistentRead).toBe(false);
  });

  it('reads a key asked for twice once: DynamoDB refuses a batch that names a key twice', async () => {
    // Arrange
    ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: Record<string, string>[] }> }) => ({
      Responses: { 'test-table': input.RequestItems['test-table']!.Keys.map((key) => ({ ...key, found: true })) },
    }));

    // Act
    const items = await batchGet([...keys(3), { sk: 'X', pk: 'P#1' }, keys(3)[0]!]);

    // Assert
    expect(keysSent()).toEqual([keys(3)]);
    expect(items).toHaveLength(3);
  });

  it('sends nothing for no keys', async () => {
    await expect(batchGet([])).resolves.toEqual([]);
    expect(ddb.calls()).toHaveLength(0);
  });

  it('retries only the unprocessed keys', async () => {
    // Arrange
    const [a, b, c] = keys(3);
    ddb
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { 'test-table': [{ ...a }] }, UnprocessedKeys: { 'test-table': { Keys: [b!, c!] } } })
      .resolvesOnce({ Responses: { 'test-table': [{ ...b }] }, UnprocessedKeys: { 'test-table': { Keys: [c!] } } })
      .resolvesOnce({ Responses: { 'test-table': [{ ...c }] } });

    // Act
    const items = await batchGet([a!, b!, c!]);

    // Assert
    expect(items).toEqual([a, b, c]);
    expect(keysSent()).toEqual([[a, b, c], [b, c], [c]]);
  });

  it("gives up after the retry policy's attempts all leave keys unprocessed, as contention", async () => {
    // Arrange
    jest.useFakeTimers();
    const [a] = keys(1);
    ddb.on(BatchGetCommand).resolves({ Responses: { 'test-table': [] }, UnprocessedKeys: { 'test-table': { Keys: [a!] } } });

    // Act
    const outcome = expect(batchGet([a!])).rejects.toThrow(ContentionError);
    await jest.advanceTimersByTimeAsync(60_000);

    // Assert
    await outcome;
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(RETRY_ATTEMPTS);
  });
});

describe('keyString', () => {
  it('joins pk and sk with a separator no key contains', () => {
    expect(keyString({ pk: 'A#1', sk: 'B' })).toBe('A#1\u0000B');
    expect(keyString({ pk: 'A', sk: '#1B' })).not.toBe(keyString({ pk: 'A#1', sk: 'B' }));
  });
});
