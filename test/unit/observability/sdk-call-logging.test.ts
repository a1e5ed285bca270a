/**
 * The DynamoDB clients go without the SDK's logger middleware, which copies every call's input
 * and output for a logger that discards them; nothing else of the SDK's stack is taken away.
 */
import { jest } from '@jest/globals';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { LOGGER_MIDDLEWARE, withoutCallLogging } from '../../../lambdas/observability/sdk-call-logging.js';
import { createDynamoClient } from '../../../lambdas/data/table/dynamo.js';
import { createLocalDynamoClient } from '../../../tools/local/dynamodb-local.js';

const names = (client: DynamoDBClient): string[] => client.middlewareStack.identify().map((entry) => entry.split(' ')[0]!);

const settings = { endpoint: 'http://127.0.0.1:1', region: 'local', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } };

describe('withoutCallLogging', () => {
  it("takes the SDK's logger middleware out of a client's stack, and only it", () => {
    const before = names(new DynamoDBClient(settings));
    expect(before).toContain(LOGGER_MIDDLEWARE);

    const after = names(withoutCallLogging(new DynamoDBClient(settings)));
    expect(after).toEqual(before.filter((name) => name !== LOGGER_MIDDLEWARE));
  });

  it('never hands a call to the logger, which the full stack does even for a successful call', async () => {
    const call = async (lean: boolean) => {
      const logger = { debug: jest.fn(), info: jest.fn(), warn: jest.fn(), error: jest.fn() };
      const built = new DynamoDBClient({ ...settings, logger, maxAttempts: 1 });
      const client = lean ? withoutCallLogging(built) : built;
      client.middlewareStack.add(() => async () => ({ output: { $metadata: {}, Item: { pk: { S: 'x' } } }, response: {} }), {
        step: 'finalizeRequest',
        name: 'answer',
      });
      const output = await client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'x' } } }));
      return { item: output.Item, logged: logger.info.mock.calls.length };
    };

    expect(await call(false)).toEqual({ item: { pk: { S: 'x' } }, logged: 1 });
    expect(await call(true)).toEqual({ item: { pk: { S: 'x' } }, logged: 0 });
  });

  it('is applied to the functions\u2019 client and to the local tools\u2019 client', () => {
    expect(names(createDynamoClient({ endpoint: 'http://127.0.0.1:1', env: {} }))).not.toContain(LOGGER_MIDDLEWARE);
    expect(names(createLocalDynamoClient('http://127.0.0.1:1'))).not.toContain(LOGGER_MIDDLEWARE);
  });
});
