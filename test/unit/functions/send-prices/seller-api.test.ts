import { jest } from '@jest/globals';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { HELD, SellerApiReads } from '../../../../lambdas/functions/send-prices/seller-api.js';
import { MarketplaceRateLimited, MarketplaceUnavailable, type MarketplacePort } from '../../../../lambdas/marketplace/port.js';
import { connection, NOW } from './fixtures.js';

/**
 * The sender's reads of the seller API (batch statuses, offers in doubt) behind the connection's
 * one seller-API hold, which the sync worker sets too: none while it is in force, and a 429
 * sets it for the run's next reads and every other worker of the connection.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const iso = (ms: number) => new Date(ms).toISOString();
const storedConnection = (sendHoldUntil?: string) => ({
  pk: 'T#c1#CONN',
  sk: 'C#takealot',
  entity: 'connection',
  record: connection(),
  sealedKey: { v: 1, key: 'AAAA', iv: 'AAAA', tag: 'AAAA', data: 'AAAA' },
  ...(sendHoldUntil === undefined ? {} : { sendHoldUntil }),
});

let clock = NOW;
const reads = (port: Partial<MarketplacePort>) =>
  new SellerApiReads('c1', 'takealot', port as MarketplacePort, 'key', { now: () => clock, retry: { baseDelayMs: 1, sleep: () => Promise.resolve() } });

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
  clock = NOW;
  ddb.on(UpdateCommand).resolves({});
});

describe('the sender’s seller-API reads', () => {
  it('makes none while the hold (set by the sync worker, say) is in force, and reads once it has passed', async () => {
    ddb.on(GetCommand).resolves({ Item: storedConnection(iso(NOW + 30_000)) });
    const readBatch = jest.fn<MarketplacePort['readBatch']>().mockResolvedValue({ batchId: '1', state: 'succeeded', results: [] });
    const guard = reads({ readBatch });
    expect(await guard.read((port, key) => port.readBatch(key, '1'))).toBe(HELD);
    expect(readBatch).not.toHaveBeenCalled();
    clock = NOW + 31_000;
    expect(await guard.read((port, key) => port.readBatch(key, '1'))).toMatchObject({ state: 'succeeded' });
    expect(readBatch).toHaveBeenCalledTimes(1);
  });

  it('sets the hold on a 429 it does not wait out, and makes no further read in the run until it passes', async () => {
    ddb.on(GetCommand).resolves({ Item: storedConnection() });
    const readOwnOffer = jest.fn<MarketplacePort['readOwnOffer']>().mockRejectedValue(new MarketplaceRateLimited(60_000));
    const guard = reads({ readOwnOffer });
    expect(await guard.read((port, key) => port.readOwnOffer(key, 'O-1'), { retried: true })).toBe(HELD);
    expect(await guard.read((port, key) => port.readOwnOffer(key, 'O-2'), { retried: true })).toBe(HELD);
    expect(readOwnOffer).toHaveBeenCalledTimes(1);
    const holds = ddb.commandCalls(UpdateCommand);
    expect(holds).toHaveLength(1);
    expect(holds[0]!.args[0].input).toMatchObject({
      UpdateExpression: 'SET sendHoldUntil = :until',
      ExpressionAttributeValues: { ':until': iso(NOW + 60_000) },
    });
  });

  it('throws any other fault for the caller to keep what it holds', async () => {
    ddb.on(GetCommand).resolves({ Item: storedConnection() });
    const guard = reads({ readBatch: () => Promise.reject(new MarketplaceUnavailable('down')) });
    await expect(guard.read((port, key) => port.readBatch(key, '1'))).rejects.toBeInstanceOf(MarketplaceUnavailable);
  });
});
