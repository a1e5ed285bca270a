/**
 * The operator's stop of every push, as the sender's gate reads it before each push: while it is
 * set every connection is closed (its changes wait pending), whatever its own mode and status.
 */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { resumePushes, stopPushes } from '../../../../lambdas/data/connections/push-stop.js';
import { connectionKey } from '../../../../lambdas/data/table/keys.js';
import { readGate } from '../../../../lambdas/functions/send-prices/gate.js';
import { FakeTable, TABLE } from '../../data/fake-table.js';
import { connection, NOW } from './fixtures.js';

const ddb = mockClient(DynamoDBDocumentClient);
const sealed = { v: 1, key: 'AA==', iv: 'AA==', tag: 'AA==', data: 'AA==' };

beforeAll(() => {
  process.env.TABLE_NAME = TABLE;
});
beforeEach(() => {
  ddb.reset();
  new FakeTable([{ ...connectionKey('c1', 'takealot'), entity: 'connection', record: connection({ mode: 'live' }), sealedKey: sealed }]).serve(ddb);
});

describe('the gate under the operator’s stop', () => {
  it('is closed for a live, connected connection while pushes are stopped', async () => {
    await stopPushes('incident');
    expect(await readGate('c1', 'takealot', NOW)).toMatchObject({ kind: 'closed', why: 'pushes stopped by the operator' });
  });

  it('is no longer closed by the stop once it is lifted', async () => {
    await stopPushes('incident');
    await resumePushes();
    // No marketplace on this stage: closed for that reason, not the stop's.
    expect(await readGate('c1', 'takealot', NOW)).toMatchObject({ kind: 'closed', why: 'no marketplace for takealot on this stage' });
  });

  it('still says a deleted connection is gone', async () => {
    await stopPushes('incident');
    expect(await readGate('c1', 'amazon', NOW)).toEqual({ kind: 'gone' });
  });
});
