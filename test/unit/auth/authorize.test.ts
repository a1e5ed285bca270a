import { jest } from '@jest/globals';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import {
  authenticate,
  FAILURE_WINDOW_MS,
  LOCKOUT_DURATION_MS,
  MAX_FAILED_LOGINS,
} from '../../../lambdas/shared/auth/authorize.js';
import { basicAuthorization } from '../../../lambdas/shared/auth/basic-credentials.js';
import { hashPassword, keyDerivation, type PasswordRecord } from '../../../lambdas/shared/auth/password.js';
import { logger } from '../../../lambdas/shared/logger.js';
import { clientItem } from '../../support/fixtures.js';

const ddb = mockClient(DynamoDBDocumentClient);
const TABLE = 'auth-test-table';
const NOW = new Date('2026-11-22T10:15:30.123Z');
const minutes = (n: number) => n * 60 * 1000;
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs).toISOString();
const KEY = { pk: 'CLIENT#alice', sk: 'CLIENT' };
const RIGHT = basicAuthorization('alice', 'right password');
const WRONG = basicAuthorization('alice', 'wrong password');

let passwordRecord: PasswordRecord;

const conditionFailed = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
const updates = () => ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);

beforeAll(async () => {
  process.env.TABLE_NAME = TABLE;
  logger.setLogLevel('SILENT');
  passwordRecord = await hashPassword('right password');
});

beforeEach(() => {
  ddb.reset();
  jest.restoreAllMocks();
});

describe('authenticate', () => {
  it('returns the tenant for the right password', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord) });

    // Act
    const tenant = await authenticate(RIGHT, NOW);

    // Assess
    expect(tenant).toEqual({ clientId: 'c0ffee00c0ffee00', username: 'alice', sellerId: 'seller-alice', defaultConnector: 'amazon' });
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input).toEqual({ TableName: TABLE, Key: KEY });
    expect(updates()).toEqual([]);
  });

  it('rejects a malformed header without reading the table', async () => {
    // Act
    const tenant = await authenticate('Basic not-base64!', NOW);

    // Assess
    expect(tenant).toBeUndefined();
    expect(ddb.calls()).toHaveLength(0);
  });

  it('rejects a wrong password, derives a key and opens a failure window', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord) });
    const derive = jest.spyOn(keyDerivation, 'deriveKey');

    // Act
    const tenant = await authenticate(WRONG, NOW);

    // Assess
    expect(tenant).toBeUndefined();
    expect(derive).toHaveBeenCalledTimes(1);
    expect(updates()).toEqual([{
      TableName: TABLE,
      Key: KEY,
      UpdateExpression: 'SET #failedLogins = :one, #failureWindowStart = :now REMOVE #lockedUntil',
      ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#failureWindowStart) OR #failureWindowStart < :floor)',
      ExpressionAttributeNames: { '#failedLogins': 'failedLogins', '#failureWindowStart': 'failureWindowStart', '#lockedUntil': 'lockedUntil' },
      ExpressionAttributeValues: { ':one': 1, ':now': NOW.toISOString(), ':floor': at(-FAILURE_WINDOW_MS) },
    }]);
  });

  it('rejects an unknown username after the same key derivation, creating no item', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({});
    ddb.on(UpdateCommand).rejects(conditionFailed());
    const derive = jest.spyOn(keyDerivation, 'deriveKey');

    // Act
    const tenant = await authenticate(basicAuthorization('nobody', 'right password'), NOW);

    // Assess
    expect(tenant).toBeUndefined();
    expect(derive).toHaveBeenCalledTimes(1);
    expect(updates()).toHaveLength(1);
    expect(updates()[0]?.ConditionExpression).toMatch(/^attribute_exists\(pk\) AND /);
  });

  it('counts a failure inside an open window with ADD', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord, { failedLogins: 3, failureWindowStart: at(-minutes(5)) }) });
    ddb.on(UpdateCommand).resolves({ Attributes: { failedLogins: 4 } });

    // Act
    const tenant = await authenticate(WRONG, NOW);

    // Assess
    expect(tenant).toBeUndefined();
    expect(updates()).toEqual([{
      TableName: TABLE,
      Key: KEY,
      UpdateExpression: 'ADD #failedLogins :one',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#failedLogins': 'failedLogins' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }]);
  });

  it(`locks the account at the ${MAX_FAILED_LOGINS}th failure in the window`, async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord, { failedLogins: MAX_FAILED_LOGINS - 1, failureWindowStart: at(-minutes(14)) }) });
    ddb.on(UpdateCommand).resolves({ Attributes: { failedLogins: MAX_FAILED_LOGINS } });

    // Act
    await authenticate(WRONG, NOW);

    // Assess
    expect(updates().map((input) => input.UpdateExpression)).toEqual(['ADD #failedLogins :one', 'SET #lockedUntil = :until']);
    expect(updates()[1]?.ExpressionAttributeValues).toEqual({ ':until': at(LOCKOUT_DURATION_MS) });
  });

  it('adds to a window another request has just reopened', async () => {
    // Prepare: the item read shows an expired window, the conditional restart finds a fresh one
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord, { failedLogins: 7, failureWindowStart: at(-minutes(20)) }) });
    ddb.on(UpdateCommand, { UpdateExpression: 'ADD #failedLogins :one' }).resolves({ Attributes: { failedLogins: 2 } });
    ddb.on(UpdateCommand, { UpdateExpression: 'SET #failedLogins = :one, #failureWindowStart = :now REMOVE #lockedUntil' })
      .rejects(conditionFailed());

    // Act
    const tenant = await authenticate(WRONG, NOW);

    // Assess
    expect(tenant).toBeUndefined();
    expect(updates().map((input) => input.UpdateExpression)).toEqual([
      'SET #failedLogins = :one, #failureWindowStart = :now REMOVE #lockedUntil',
      'ADD #failedLogins :one',
    ]);
  });

  it('rejects a locked account even with the right password, with a dummy derivation and no write', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord, { failedLogins: MAX_FAILED_LOGINS, lockedUntil: at(minutes(1)) }) });
    const derive = jest.spyOn(keyDerivation, 'deriveKey');

    // Act
    const tenant = await authenticate(RIGHT, NOW);

    // Assess
    expect(tenant).toBeUndefined();
    expect(derive).toHaveBeenCalledTimes(1);
    expect(derive.mock.calls[0]?.[1]).not.toEqual(Buffer.from(passwordRecord.salt, 'base64'));
    expect(updates()).toEqual([]);
  });

  it('lets the right password in once the lock has expired, and clears the count', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord, {
      failedLogins: MAX_FAILED_LOGINS,
      failureWindowStart: at(-minutes(16)),
      lockedUntil: at(-1),
    }) });

    // Act
    const tenant = await authenticate(RIGHT, NOW);

    // Assess
    expect(tenant?.clientId).toBe('c0ffee00c0ffee00');
    expect(updates()).toEqual([{
      TableName: TABLE,
      Key: KEY,
      UpdateExpression: 'REMOVE #failedLogins, #failureWindowStart, #lockedUntil',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#failedLogins': 'failedLogins', '#failureWindowStart': 'failureWindowStart', '#lockedUntil': 'lockedUntil' },
    }]);
  });

  it('rejects a disabled client with the right password, without counting a failure', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord, { enabled: false }) });

    // Act
    const tenant = await authenticate(RIGHT, NOW);

    // Assess
    expect(tenant).toBeUndefined();
    expect(updates()).toEqual([]);
  });

  it('throws, without counting a failure, when the client cannot be read', async () => {
    // Prepare
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ProvisionedThroughputExceededException' });
    ddb.on(GetCommand).rejects(throttled);

    // Act & Assess
    await expect(authenticate(WRONG, NOW)).rejects.toThrow('Rate exceeded');
    expect(updates()).toEqual([]);
  });

  it('still answers a wrong password with undefined when counting it fails', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord) });
    ddb.on(UpdateCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));

    // Act & Assess
    await expect(authenticate(WRONG, NOW)).resolves.toBeUndefined();
  });

  it('still lets the right password in when clearing the count fails', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord, { failedLogins: 2, failureWindowStart: at(-minutes(1)) }) });
    ddb.on(UpdateCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));

    // Act
    const tenant = await authenticate(RIGHT, NOW);

    // Assess
    expect(tenant?.username).toBe('alice');
  });

  it('refuses a stored client item of the wrong shape', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord, { password: { ...passwordRecord, N: 2 ** 30 } }) });

    // Act & Assess
    await expect(authenticate(RIGHT, NOW)).rejects.toThrow('Stored client item is not valid');
  });
});
