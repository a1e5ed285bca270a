import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { changePassword, ClientExistsError, createClientAccount, DEFAULT_CONNECTOR, setClientEnabled } from '../../../tools/admin/clients.js';
import { verifyPassword, type PasswordRecord } from '../../../lambdas/auth/password.js';

const ddb = mockClient(DynamoDBDocumentClient);
const TABLE = 'auth-test-table';
const conditionFailed = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
const putItem = () => ddb.commandCalls(PutCommand)[0]?.args[0].input.Item ?? {};

beforeAll(() => {
  process.env.TABLE_NAME = TABLE;
});

beforeEach(() => {
  ddb.reset();
});

describe('createClientAccount', () => {
  it('generates a strong password, a seller id and the default connector, and stores only a hash', async () => {
    // Prepare
    ddb.on(PutCommand).resolves({});

    // Act
    const account = await createClientAccount({ username: 'alice' });

    // Assess
    expect(account.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(account.sellerId).toMatch(/^seller-[0-9a-f]{12}$/);
    expect(account.defaultConnector).toBe(DEFAULT_CONNECTOR);
    expect(account.clientId).toMatch(/^[a-z2-7]{16}$/);
    const input = ddb.commandCalls(PutCommand)[0]?.args[0].input;
    expect(input).toMatchObject({ TableName: TABLE, ConditionExpression: 'attribute_not_exists(pk)' });
    expect(putItem()).toMatchObject({
      pk: 'CLIENT#alice',
      sk: 'CLIENT',
      entity: 'client',
      username: 'alice',
      clientId: account.clientId,
      sellerId: account.sellerId,
      defaultConnector: DEFAULT_CONNECTOR,
      enabled: true,
      password: { algorithm: 'scrypt', N: 16_384, r: 8, p: 1, keyLength: 32 },
    });
    expect(JSON.stringify(putItem())).not.toContain(account.password);
    await expect(verifyPassword(account.password, putItem().password as PasswordRecord)).resolves.toBe(true);
  });

  it('keeps the password, seller id and connector it is given', async () => {
    // Prepare
    ddb.on(PutCommand).resolves({});

    // Act
    const account = await createClientAccount({ username: 'bob@example.com', password: 'given pw', sellerId: 'S-1', connector: 'ebay' });

    // Assess
    expect(account).toEqual({
      username: 'bob@example.com',
      password: 'given pw',
      clientId: account.clientId,
      sellerId: 'S-1',
      defaultConnector: 'ebay',
      usageKey: account.usageKey,
    });
    expect(putItem()).toMatchObject({ pk: 'CLIENT#bob%40example.com', sellerId: 'S-1', defaultConnector: 'ebay' });
  });

  it('gives every client an API key of its own for the usage plan, stored on its item', async () => {
    // Prepare
    ddb.on(PutCommand).resolves({});

    // Act
    const first = await createClientAccount({ username: 'alice' });
    const firstItem = putItem();
    const second = await createClientAccount({ username: 'carol' });

    // Assess
    expect(first.usageKey).toMatch(/^[0-9a-f]{40}$/);
    expect(second.usageKey).toMatch(/^[0-9a-f]{40}$/);
    expect(first.usageKey).not.toBe(second.usageKey);
    expect(firstItem.usageKey).toBe(first.usageKey);
  });

  it('gives every client its own id and salt', async () => {
    // Prepare
    ddb.on(PutCommand).resolves({});

    // Act
    const first = await createClientAccount({ username: 'a', password: 'same' });
    const second = await createClientAccount({ username: 'b', password: 'same' });

    // Assess
    const [firstItem, secondItem] = ddb.commandCalls(PutCommand).map((call) => call.args[0].input.Item as { password: PasswordRecord });
    expect(second.clientId).not.toBe(first.clientId);
    expect(secondItem?.password.salt).not.toBe(firstItem?.password.salt);
  });

  it('refuses a username that is taken', async () => {
    // Prepare
    ddb.on(PutCommand).rejects(conditionFailed());

    // Act & Assess
    await expect(createClientAccount({ username: 'alice' })).rejects.toThrow(ClientExistsError);
    await expect(createClientAccount({ username: 'alice' })).rejects.toThrow('A client with username "alice" already exists');
  });

  it.each([
    ['an empty username', { username: '' }, /Invalid username/],
    ['a username with a colon', { username: 'a:b' }, /Invalid username/],
    ['a username with a space', { username: 'a b' }, /Invalid username/],
    ['a username over 128 characters', { username: 'u'.repeat(129) }, /Invalid username/],
    ['an empty password', { username: 'alice', password: '' }, /Invalid password/],
    ['a password with a control character', { username: 'alice', password: 'a\tb' }, /Invalid password/],
    ['an empty seller id', { username: 'alice', sellerId: '' }, /Invalid seller id/],
    ['a padded connector', { username: 'alice', connector: ' amazon' }, /Invalid connector/],
  ])('refuses %s before writing', async (_case, input, message) => {
    // Act & Assess
    await expect(createClientAccount(input)).rejects.toThrow(message);
    expect(ddb.calls()).toHaveLength(0);
  });

  it('accepts a username of exactly 128 allowed characters', async () => {
    // Prepare
    ddb.on(PutCommand).resolves({});

    // Act & Assess
    await expect(createClientAccount({ username: 'a.b_c@d-'.repeat(16) })).resolves.toBeDefined();
  });
});

describe('setClientEnabled', () => {
  it('updates an existing client only', async () => {
    // Prepare
    ddb.on(UpdateCommand).resolves({});

    // Act
    await setClientEnabled('alice', false);

    // Assess
    expect(ddb.commandCalls(UpdateCommand)[0]?.args[0].input).toMatchObject({
      Key: { pk: 'CLIENT#alice', sk: 'CLIENT' },
      UpdateExpression: 'SET #enabled = :enabled, #updatedAt = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':enabled': false },
    });
  });

  it('throws for an unknown username', async () => {
    // Prepare
    ddb.on(UpdateCommand).rejects(conditionFailed());

    // Act & Assess
    await expect(setClientEnabled('nobody', true)).rejects.toThrow('No client with username "nobody"');
  });
});

describe('changePassword', () => {
  it('stores a new hash and forgets the failed logins, per user name and per source', async () => {
    // Prepare
    ddb.on(UpdateCommand).resolves({});
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [{ pk: 'CLIENT#alice', sk: 'LOGIN#00aa#1' }], LastEvaluatedKey: { pk: 'CLIENT#alice', sk: 'LOGIN#00aa#1' } })
      .resolvesOnce({ Items: [{ pk: 'CLIENT#alice', sk: 'LOGIN#11bb#1' }] });
    ddb.on(DeleteCommand).resolves({});

    // Act
    await changePassword('alice', 'brand new');

    // Assess
    const input = ddb.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(input?.UpdateExpression).toBe('SET #password = :password, #updatedAt = :now REMOVE #failedLogins, #failureWindowStart, #lockedUntil');
    expect(input?.ExpressionAttributeNames).toMatchObject({ '#password': 'password' });
    await expect(verifyPassword('brand new', input?.ExpressionAttributeValues?.[':password'] as PasswordRecord)).resolves.toBe(true);
    expect(ddb.commandCalls(QueryCommand)[0]?.args[0].input).toMatchObject({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': 'CLIENT#alice', ':prefix': 'LOGIN#' },
    });
    expect(ddb.commandCalls(DeleteCommand).map((call) => call.args[0].input.Key)).toEqual([
      { pk: 'CLIENT#alice', sk: 'LOGIN#00aa#1' },
      { pk: 'CLIENT#alice', sk: 'LOGIN#11bb#1' },
    ]);
  });

  it('throws for an unknown username', async () => {
    // Prepare
    ddb.on(UpdateCommand).rejects(conditionFailed());

    // Act & Assess
    await expect(changePassword('nobody', 'brand new')).rejects.toThrow('No client with username "nobody"');
  });
});
