import { jest } from '@jest/globals';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import {
  authenticate,
  BUSY_WAIT_LIMIT_MS,
  FAILURE_WINDOW_MS,
  LoginBusyError,
  MAX_FAILURES_PER_SOURCE,
  pauses,
  SLOWDOWN_AFTER_FAILURES,
  SLOWED_MAX_FAILURES_PER_SOURCE,
} from '../../../lambdas/auth/authorize.js';
import { basicAuthorization } from '../../../lambdas/auth/basic-credentials.js';
import { DUMMY_PASSWORD_RECORD, hashPassword, keyDerivation, type PasswordRecord } from '../../../lambdas/auth/password.js';
import { sourceDigest } from '../../../lambdas/auth/source-address.js';
import { logger } from '../../../lambdas/observability/logger.js';
import { clientItem } from '../../support/fixtures.js';

const ddb = mockClient(DynamoDBDocumentClient);
const TABLE = 'auth-test-table';
const NOW = new Date('2026-11-22T10:15:30.123Z');
const WINDOW = Math.floor(NOW.getTime() / FAILURE_WINDOW_MS);
const minutes = (n: number) => n * 60 * 1000;
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs).toISOString();
const CLIENT_KEY = { pk: 'CLIENT#alice', sk: 'CLIENT' };
const RIGHT = basicAuthorization('alice', 'right password');
const WRONG = basicAuthorization('alice', 'wrong password');
const HOME = '198.51.100.20';
const STRANGER = '203.0.113.66';
const attemptsKey = (sourceIp: string, username = 'alice') => ({ pk: `CLIENT#${username}`, sk: `LOGIN#${sourceDigest(sourceIp)}#${WINDOW}` });

const RESERVE = 'ADD #attempts :one SET #entity = :entity, #expiresAt = :expiresAt';
const RECORD_FAILURE = 'ADD #failures :one';
const GIVE_BACK = 'ADD #attempts :minusOne';
const FORGIVE = 'SET #attempts = #attempts - :released REMOVE #failures';
const START_WINDOW = 'SET #failedLogins = :one, #failureWindowStart = :now';
const ADD_USERNAME_FAILURE = 'ADD #failedLogins :one';

let passwordRecord: PasswordRecord;

/** The refusal of a conditional write, with the item as it was (ReturnValuesOnConditionCheckFailure). */
const conditionFailed = (item?: { attempts: number; failures?: number }) =>
  new ConditionalCheckFailedException({
    message: 'The conditional request failed',
    $metadata: {},
    ...(item ? { Item: { attempts: { N: String(item.attempts) }, ...(item.failures === undefined ? {} : { failures: { N: String(item.failures) } }) } } : {}),
  });
const updates = () => ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
const expressions = () => updates().map((input) => input.UpdateExpression);
const isReservation = (input: UpdateCommandInput) => input.UpdateExpression === RESERVE;
/** Derivations against a real client's hash (not the dummy every refusal pays for). */
const realChecks = (derive: { mock: { calls: unknown[][] } }) =>
  derive.mock.calls.filter((call) => !(call[1] as Buffer).equals(Buffer.from(DUMMY_PASSWORD_RECORD.salt, 'base64'))).length;

beforeAll(async () => {
  process.env.TABLE_NAME = TABLE;
  logger.setLogLevel('SILENT');
  passwordRecord = await hashPassword('right password');
});

beforeEach(() => {
  ddb.reset();
  jest.restoreAllMocks();
  jest.spyOn(pauses, 'beforeRetry').mockResolvedValue(undefined);
});

describe('authenticate', () => {
  it('counts the attempt before checking the password, and gives it back when the password is right', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord) });
    const order: string[] = [];
    ddb.on(UpdateCommand).callsFake((input: UpdateCommandInput) => {
      order.push(String(input.UpdateExpression));
      return isReservation(input) ? { Attributes: { attempts: 1 } } : {};
    });
    const original = keyDerivation.deriveKey;
    jest.spyOn(keyDerivation, 'deriveKey').mockImplementation((...args) => {
      order.push('scrypt');
      return original(...args);
    });

    // Act
    const tenant = await authenticate(RIGHT, HOME, NOW);

    // Assess
    expect(tenant).toEqual({ clientId: 'c0ffee00c0ffee00', username: 'alice', sellerId: 'seller-alice', defaultConnector: 'amazon' });
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input).toEqual({ TableName: TABLE, Key: CLIENT_KEY });
    expect(order).toEqual([RESERVE, 'scrypt', GIVE_BACK]);
    expect(updates()[0]).toEqual({
      TableName: TABLE,
      Key: attemptsKey(HOME),
      UpdateExpression: RESERVE,
      ConditionExpression: 'attribute_not_exists(#attempts) OR #attempts < :limit',
      ExpressionAttributeNames: { '#attempts': 'attempts', '#entity': 'entity', '#expiresAt': 'expiresAt' },
      ExpressionAttributeValues: {
        ':one': 1,
        ':limit': MAX_FAILURES_PER_SOURCE,
        ':entity': 'loginAttempts',
        ':expiresAt': Math.ceil(((WINDOW + 1) * FAILURE_WINDOW_MS + minutes(60)) / 1000),
      },
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    expect(updates()[1]).toMatchObject({ Key: attemptsKey(HOME), ConditionExpression: 'attribute_exists(pk)', ExpressionAttributeValues: { ':minusOne': -1 } });
  });

  it('rejects a malformed header without reading the table', async () => {
    // Act
    const tenant = await authenticate('Basic not-base64!', HOME, NOW);

    // Assess
    expect(tenant).toBeUndefined();
    expect(ddb.calls()).toHaveLength(0);
  });

  it('rejects a wrong password after one real check, counting it for the source and for the user name', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord) });
    ddb.on(UpdateCommand).resolves({ Attributes: { attempts: 1, failures: 1 } });
    const derive = jest.spyOn(keyDerivation, 'deriveKey');

    // Act
    const tenant = await authenticate(WRONG, HOME, NOW);

    // Assess
    expect(tenant).toBeUndefined();
    expect(realChecks(derive)).toBe(1);
    expect(expressions()).toEqual([RESERVE, RECORD_FAILURE, START_WINDOW]);
    expect(updates()[1]).toMatchObject({ Key: attemptsKey(HOME), ConditionExpression: 'attribute_exists(pk)' });
    expect(updates()[2]).toEqual({
      TableName: TABLE,
      Key: CLIENT_KEY,
      UpdateExpression: START_WINDOW,
      ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#failureWindowStart) OR #failureWindowStart < :floor)',
      ExpressionAttributeNames: { '#failedLogins': 'failedLogins', '#failureWindowStart': 'failureWindowStart' },
      ExpressionAttributeValues: { ':one': 1, ':now': NOW.toISOString(), ':floor': at(-FAILURE_WINDOW_MS) },
    });
  });

  it('refuses a source that reached its limit without checking the real hash, even with the right password', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord, { failedLogins: MAX_FAILURES_PER_SOURCE, failureWindowStart: at(-minutes(3)) }) });
    ddb.on(UpdateCommand, { UpdateExpression: RESERVE }).rejects(conditionFailed({ attempts: MAX_FAILURES_PER_SOURCE, failures: MAX_FAILURES_PER_SOURCE }));
    ddb.on(UpdateCommand, { UpdateExpression: ADD_USERNAME_FAILURE }).resolves({ Attributes: { failedLogins: MAX_FAILURES_PER_SOURCE + 1 } });
    const derive = jest.spyOn(keyDerivation, 'deriveKey');

    // Act
    const tenant = await authenticate(RIGHT, STRANGER, NOW);

    // Assess: one derivation, against the dummy; the refusal counts for the user name only
    expect(tenant).toBeUndefined();
    expect(derive).toHaveBeenCalledTimes(1);
    expect(realChecks(derive)).toBe(0);
    expect(expressions()).toEqual([RESERVE, ADD_USERNAME_FAILURE]);
  });

  it('lets the right password in from another source while one source is refused', async () => {
    // Prepare: the stranger's address has used up its attempts; the client's own has none
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord, { failedLogins: MAX_FAILURES_PER_SOURCE, failureWindowStart: at(-minutes(3)) }) });
    ddb.on(UpdateCommand).resolves({});
    ddb
      .on(UpdateCommand, { UpdateExpression: RESERVE, Key: attemptsKey(STRANGER) })
      .rejects(conditionFailed({ attempts: MAX_FAILURES_PER_SOURCE, failures: MAX_FAILURES_PER_SOURCE }));
    ddb.on(UpdateCommand, { UpdateExpression: RESERVE, Key: attemptsKey(HOME) }).resolves({ Attributes: { attempts: 1 } });

    // Act
    const fromStranger = await authenticate(RIGHT, STRANGER, NOW);
    const fromHome = await authenticate(RIGHT, HOME, NOW);

    // Assess
    expect(fromStranger).toBeUndefined();
    expect(fromHome?.clientId).toBe('c0ffee00c0ffee00');
    expect(attemptsKey(STRANGER)).not.toEqual(attemptsKey(HOME));
  });

  it('counts IPv6 addresses per /64 and IPv4-mapped addresses as IPv4', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord) });
    ddb.on(UpdateCommand).resolves({ Attributes: { attempts: 1 } });

    // Act
    for (const sourceIp of ['2001:db8:1:2::1', '2001:db8:1:2:ffff:ffff:ffff:fffe', '2001:db8:1:3::1', '::ffff:203.0.113.66', '203.0.113.66']) {
      await authenticate(WRONG, sourceIp, NOW);
    }

    // Assess
    const reservedKeys = updates()
      .filter(isReservation)
      .map((input) => input.Key?.sk);
    expect(reservedKeys[0]).toBe(reservedKeys[1]);
    expect(reservedKeys[2]).not.toBe(reservedKeys[0]);
    expect(reservedKeys[3]).toBe(reservedKeys[4]);
    expect(new Set(reservedKeys).size).toBe(3);
  });

  it(`gives each source only ${SLOWED_MAX_FAILURES_PER_SOURCE} attempts once the user name has ${SLOWDOWN_AFTER_FAILURES} recent failures`, async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord, { failedLogins: SLOWDOWN_AFTER_FAILURES, failureWindowStart: at(-minutes(10)) }) });
    ddb.on(UpdateCommand).resolves({ Attributes: { attempts: 1 } });

    // Act
    const tenant = await authenticate(RIGHT, HOME, NOW);

    // Assess: slowed, not locked: the right password from a source without failures gets in
    expect(tenant?.username).toBe('alice');
    expect(updates()[0]?.ExpressionAttributeValues?.[':limit']).toBe(SLOWED_MAX_FAILURES_PER_SOURCE);
  });

  it("gives each source the full limit again once the user name's failures are older than the window", async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord, { failedLogins: 500, failureWindowStart: at(-minutes(16)) }) });
    ddb.on(UpdateCommand).resolves({ Attributes: { attempts: 1 } });

    // Act
    await authenticate(RIGHT, HOME, NOW);

    // Assess
    expect(updates()[0]?.ExpressionAttributeValues?.[':limit']).toBe(MAX_FAILURES_PER_SOURCE);
  });

  it('waits while checks still running hold the limit, then checks', async () => {
    // Prepare: the limit is taken, but by checks in flight (no failures yet), then one is given back
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord) });
    ddb.on(UpdateCommand).resolves({});
    ddb
      .on(UpdateCommand, { UpdateExpression: RESERVE })
      .rejectsOnce(conditionFailed({ attempts: MAX_FAILURES_PER_SOURCE, failures: 2 }))
      .resolves({ Attributes: { attempts: MAX_FAILURES_PER_SOURCE, failures: 2 } });

    // Act
    const tenant = await authenticate(RIGHT, HOME, NOW);

    // Assess
    expect(tenant?.username).toBe('alice');
    expect(pauses.beforeRetry).toHaveBeenCalledTimes(1);
    expect(expressions()).toEqual([RESERVE, RESERVE, FORGIVE]);
    expect(updates()[2]).toMatchObject({
      Key: attemptsKey(HOME),
      ConditionExpression: 'attribute_exists(pk) AND #failures = :seen',
      ExpressionAttributeValues: { ':released': 3, ':seen': 2 },
    });
  });

  it('gives only its own attempt back when failures were counted after it reserved', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord) });
    ddb.on(UpdateCommand).resolves({});
    ddb.on(UpdateCommand, { UpdateExpression: RESERVE }).resolves({ Attributes: { attempts: 4, failures: 2 } });
    ddb.on(UpdateCommand, { UpdateExpression: FORGIVE }).rejects(conditionFailed());

    // Act
    const tenant = await authenticate(RIGHT, HOME, NOW);

    // Assess
    expect(tenant?.username).toBe('alice');
    expect(expressions()).toEqual([RESERVE, FORGIVE, GIVE_BACK]);
  });

  it(`fails (a 500, not a 401) when running checks hold the limit for ${BUSY_WAIT_LIMIT_MS} ms`, async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord) });
    ddb.on(UpdateCommand).rejects(conditionFailed({ attempts: MAX_FAILURES_PER_SOURCE, failures: 0 }));
    let clock = NOW.getTime();
    jest.spyOn(Date, 'now').mockImplementation(() => (clock += 500));
    const derive = jest.spyOn(keyDerivation, 'deriveKey');

    // Act & Assess
    await expect(authenticate(RIGHT, HOME, NOW)).rejects.toThrow(LoginBusyError);
    expect(derive).not.toHaveBeenCalled();
  });

  it('never checks a password whose attempt could not be counted', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord) });
    ddb.on(UpdateCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
    const derive = jest.spyOn(keyDerivation, 'deriveKey');

    // Act & Assess
    await expect(authenticate(RIGHT, HOME, NOW)).rejects.toThrow('Rate exceeded');
    expect(derive).not.toHaveBeenCalled();
  });

  it('answers an unknown user name like a wrong password: the same writes, a dummy derivation, no client item created', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({});
    ddb.on(UpdateCommand).resolves({ Attributes: { attempts: 1, failures: 1 } });
    ddb.on(UpdateCommand, { Key: { pk: 'CLIENT#nobody', sk: 'CLIENT' } }).rejects(conditionFailed());
    const derive = jest.spyOn(keyDerivation, 'deriveKey');

    // Act
    const tenant = await authenticate(basicAuthorization('nobody', 'right password'), HOME, NOW);

    // Assess
    expect(tenant).toBeUndefined();
    expect(derive).toHaveBeenCalledTimes(1);
    expect(realChecks(derive)).toBe(0);
    expect(expressions()).toEqual([RESERVE, RECORD_FAILURE, START_WINDOW]);
    expect(updates()[2]?.ConditionExpression).toMatch(/^attribute_exists\(pk\) AND /);
  });

  it("adds to a user name's failure window another request has just reopened", async () => {
    // Prepare: the item read shows an expired window, the conditional restart finds a fresh one
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord, { failedLogins: 7, failureWindowStart: at(-minutes(20)) }) });
    ddb.on(UpdateCommand).resolves({ Attributes: { attempts: 1 } });
    ddb.on(UpdateCommand, { UpdateExpression: ADD_USERNAME_FAILURE }).resolves({ Attributes: { failedLogins: 2 } });
    ddb.on(UpdateCommand, { UpdateExpression: START_WINDOW }).rejects(conditionFailed());

    // Act
    const tenant = await authenticate(WRONG, HOME, NOW);

    // Assess
    expect(tenant).toBeUndefined();
    expect(expressions().filter((e) => e === START_WINDOW || e === ADD_USERNAME_FAILURE)).toEqual([START_WINDOW, ADD_USERNAME_FAILURE]);
  });

  it('rejects a disabled client with the right password, giving the attempt back', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord, { enabled: false }) });
    ddb.on(UpdateCommand).resolves({ Attributes: { attempts: 1 } });

    // Act
    const tenant = await authenticate(RIGHT, HOME, NOW);

    // Assess
    expect(tenant).toBeUndefined();
    expect(expressions()).toEqual([RESERVE, GIVE_BACK]);
  });

  it('throws, without checking or counting anything, when the client cannot be read', async () => {
    // Prepare
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ProvisionedThroughputExceededException' });
    ddb.on(GetCommand).rejects(throttled);

    // Act & Assess
    await expect(authenticate(WRONG, HOME, NOW)).rejects.toThrow('Rate exceeded');
    expect(updates()).toEqual([]);
  });

  it('still answers a wrong password with undefined when counting the failure fails', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord) });
    ddb.on(UpdateCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
    ddb.on(UpdateCommand, { UpdateExpression: RESERVE }).resolves({ Attributes: { attempts: 1 } });

    // Act & Assess
    await expect(authenticate(WRONG, HOME, NOW)).resolves.toBeUndefined();
  });

  it('still lets the right password in when giving the attempt back fails', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord) });
    ddb.on(UpdateCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));
    ddb.on(UpdateCommand, { UpdateExpression: RESERVE }).resolves({ Attributes: { attempts: 1 } });

    // Act
    const tenant = await authenticate(RIGHT, HOME, NOW);

    // Assess
    expect(tenant?.username).toBe('alice');
  });

  it('refuses a stored client item of the wrong shape', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord, { password: { ...passwordRecord, N: 2 ** 30 } }) });

    // Act & Assess
    await expect(authenticate(RIGHT, HOME, NOW)).rejects.toThrow('Stored client item is not valid');
  });
});

/** 42 scrypt derivations (real or dummy), about 3 s on an idle machine. */
describe('a burst of simultaneous wrong passwords', () => {
  /** The reservation's condition and counters, as DynamoDB applies them: one item at a time. */
  const fakeAttemptsTable = () => {
    const items = new Map<string, { attempts: number; failures: number }>();
    ddb.on(UpdateCommand).callsFake(async (input: UpdateCommandInput) => {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
      const key = `${String(input.Key?.pk)}|${String(input.Key?.sk)}`;
      const item = items.get(key);
      const limit = input.ExpressionAttributeValues?.[':limit'] as number;
      switch (input.UpdateExpression) {
        case RESERVE:
          if (item && item.attempts >= limit) throw conditionFailed(item);
          items.set(key, { attempts: (item?.attempts ?? 0) + 1, failures: item?.failures ?? 0 });
          return { Attributes: items.get(key) };
        case RECORD_FAILURE:
          if (!item) throw conditionFailed();
          item.failures += 1;
          return { Attributes: { failures: item.failures } };
        default:
          return {};
      }
    });
  };

  it(`checks at most ${MAX_FAILURES_PER_SOURCE} of 40 against the real hash, and other sources still get in`, async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord) });
    fakeAttemptsTable();
    jest.spyOn(pauses, 'beforeRetry').mockImplementation(() => new Promise((resolve) => setTimeout(resolve, 5)));
    const derive = jest.spyOn(keyDerivation, 'deriveKey');

    // Act
    const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => authenticate(basicAuthorization('alice', `guess-${i}`), STRANGER, NOW)));
    const checkedInBurst = realChecks(derive);
    const strangerWithRightPassword = await authenticate(RIGHT, STRANGER, NOW);
    const clientAtHome = await authenticate(RIGHT, HOME, NOW);

    // Assess
    expect(burst.every((tenant) => tenant === undefined)).toBe(true);
    expect(checkedInBurst).toBe(MAX_FAILURES_PER_SOURCE);
    expect(strangerWithRightPassword).toBeUndefined();
    expect(clientAtHome?.username).toBe('alice');
    expect(realChecks(derive)).toBe(MAX_FAILURES_PER_SOURCE + 1);
  }, 30_000);
});
