import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { MARKETPLACE_HOLD_MAX_MS } from '../../../../lambdas/config/marketplace-holds.js';
import { storefrontGroup, type StoreFrontReadMessage } from '../../../../lambdas/events/market-sync.js';
import { logger } from '../../../../lambdas/observability/logger.js';
import { storefrontReader } from '../../../../lambdas/functions/read-storefront/read.js';
import { sqsEventOf } from '../../../support/sqs-events.js';
import { connection } from '../send-prices/fixtures.js';

/**
 * A storefront host's hold is shared by every reader and tenant (the storefront is one resource),
 * so it must be bounded: a hold stored beyond the cap (an older version's, a misread reset) is not
 * obeyed, one within it is.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const NOW = Date.parse('2026-11-28T12:00:00.000Z');
const record = connection();
const sealed = { v: 1, key: 'AA==', iv: 'AA==', tag: 'AA==', data: 'AA==' };
// A closed port on the loopback address: a page read that gets through fails as "not reachable".
const STOREFRONT = 'http://127.0.0.1:9';

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
  process.env.TAKEALOT_SELLER_API_URL = `${STOREFRONT}/v1`;
  process.env.TAKEALOT_STOREFRONT_URL = STOREFRONT;
  logger.setLogLevel('SILENT');
});
afterAll(() => {
  delete process.env.TAKEALOT_SELLER_API_URL;
  delete process.env.TAKEALOT_STOREFRONT_URL;
});

/** The table holds the connection, its uid lookup and the host's hold. */
const tableWithHold = (holdUntil: number) => {
  ddb.reset();
  ddb.onAnyCommand().callsFake((input: { Key?: { pk: string } }) => {
    const pk = input.Key?.pk ?? '';
    if (pk.startsWith('PAGE#'))
      return Promise.resolve({
        Item: {
          entity: 'pageWatch',
          connector: 'takealot',
          productLineId: '12345',
          watchers: new Set(['tenant-a|SKU-1']),
          scheduledAt: 0,
          dueSk: `${'0'.repeat(15)}#takealot#12345`,
        },
      });
    if (pk.startsWith('CONNUID#')) return Promise.resolve({ Item: { entity: 'connectionUid', clientId: 'tenant-a', connector: 'takealot' } });
    if (pk.startsWith('HOSTHOLD#')) return Promise.resolve({ Item: { entity: 'hostHold', holdUntil, refusals: 1 } });
    if (pk.endsWith('#CONN')) return Promise.resolve({ Item: { entity: 'connection', record, sealedKey: sealed } });
    return Promise.resolve({});
  });
};

const readOnce = async (): Promise<number[]> => {
  const message: StoreFrontReadMessage = { connector: 'takealot', productLineId: '12345', reasons: 0, at: new Date(NOW).toISOString() };
  const delays: number[] = [];
  const hold = (_record: unknown, delayMs: number) => (delays.push(delayMs), Promise.resolve());
  await storefrontReader(hold, { now: () => NOW, sleep: () => Promise.resolve() })(
    sqsEventOf([{ groupId: storefrontGroup('takealot', '12345'), deduplicationId: 'one', body: JSON.stringify(message) }]),
  );
  return delays;
};

describe('the storefront host hold', () => {
  it('is obeyed while it ends within the cap', async () => {
    tableWithHold(NOW + 10 * 60_000);
    expect(await readOnce()).toEqual([10 * 60_000]);
  });

  it('is not obeyed when it ends beyond the cap: the read is a fresh try', async () => {
    // An epoch in seconds once read as a delay: a hold of decades.
    tableWithHold(NOW + 1_764_331_200_000);
    const delays = await readOnce();
    expect(delays).toHaveLength(1);
    expect(delays[0]).toBeLessThanOrEqual(MARKETPLACE_HOLD_MAX_MS);
  });
});
