import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  GetApiKeysCommand,
  UpdateApiKeyCommand,
} from '@aws-sdk/client-api-gateway';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import {
  createClientCommand,
  deleteClientCommand,
  disableClientCommand,
  enableClientCommand,
  KeyRegistrationError,
  showClientCommand,
} from '../../../tools/admin/client-commands.js';
import { listClients, rotatePassword } from '../../../tools/admin/clients.js';
import { UsageKeys } from '../../../tools/admin/usage-keys.js';
import { DUMMY_PASSWORD_RECORD, verifyPassword, type PasswordRecord } from '../../../lambdas/auth/password.js';
import { clientItem } from '../../support/fixtures.js';

const ddb = mockClient(DynamoDBDocumentClient);
const apiGateway = mockClient(APIGatewayClient);
const TABLE = 'admin-test-table';
const USAGE_KEY = 'f'.repeat(40);
const stageKeys = () => new UsageKeys({ stage: 'prod', usagePlanId: 'plan-1' }, new APIGatewayClient({ region: 'eu-west-1' }));
const conditionFailed = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
const alice = (extra: Record<string, unknown> = {}) => clientItem(DUMMY_PASSWORD_RECORD, { usageKey: USAGE_KEY, ...extra });

beforeAll(() => {
  process.env.TABLE_NAME = TABLE;
});

beforeEach(() => {
  ddb.reset();
  apiGateway.reset();
});

describe('clients create', () => {
  it('with a stage, registers the API key whose value it stored on the client', async () => {
    // Prepare
    ddb.on(PutCommand).resolves({});
    apiGateway.on(GetApiKeysCommand).resolves({ items: [] });
    apiGateway.on(CreateApiKeyCommand).resolves({ id: 'key-1' });
    apiGateway.on(CreateUsagePlanKeyCommand).resolves({});

    // Act
    const { account, key } = await createClientCommand({ username: 'alice' }, stageKeys());

    // Assess
    const stored = ddb.commandCalls(PutCommand)[0]?.args[0].input.Item;
    expect(stored?.usageKey).toBe(account.usageKey);
    expect(apiGateway.commandCalls(CreateApiKeyCommand)[0]?.args[0].input).toMatchObject({ value: account.usageKey, enabled: true });
    expect(apiGateway.commandCalls(CreateUsagePlanKeyCommand)[0]?.args[0].input).toEqual({ usagePlanId: 'plan-1', keyId: 'key-1', keyType: 'API_KEY' });
    expect(key).toEqual({ kind: 'registered', id: 'key-1' });
  });

  it('without a stage, calls no API Gateway', async () => {
    // Prepare
    ddb.on(PutCommand).resolves({});

    // Act
    const { key } = await createClientCommand({ username: 'alice' }, undefined);

    // Assess
    expect(key).toEqual({ kind: 'none' });
    expect(apiGateway.calls()).toHaveLength(0);
  });

  it('says how to retry when the client was created but its key could not be registered, and still shows the password', async () => {
    // Prepare
    ddb.on(PutCommand).resolves({});
    apiGateway.on(GetApiKeysCommand).rejects(new Error('AccessDenied'));

    // Act
    const failure = await createClientCommand({ username: 'alice' }, stageKeys()).catch((error: unknown) => error);

    // Assess
    expect(failure).toBeInstanceOf(KeyRegistrationError);
    expect((failure as KeyRegistrationError).message).toMatch(/created.*AccessDenied.*clients enable alice/);
    expect((failure as KeyRegistrationError).account.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
  });
});

describe('clients disable and enable', () => {
  it('disable marks the client disabled, then disables its API key', async () => {
    // Prepare
    ddb.on(UpdateCommand).resolves({});
    ddb.on(GetCommand).resolves({ Item: alice({ enabled: false }) });
    apiGateway.on(GetApiKeysCommand).resolves({ items: [{ id: 'key-1', value: USAGE_KEY, enabled: true }] });
    apiGateway.on(UpdateApiKeyCommand).resolves({});

    // Act
    const key = await disableClientCommand('alice', stageKeys());

    // Assess
    expect(ddb.commandCalls(UpdateCommand)[0]?.args[0].input).toMatchObject({
      Key: { pk: 'CLIENT#alice', sk: 'CLIENT' },
      ExpressionAttributeValues: { ':enabled': false },
    });
    expect(apiGateway.commandCalls(UpdateApiKeyCommand)[0]?.args[0].input).toEqual({
      apiKey: 'key-1',
      patchOperations: [{ op: 'replace', path: '/enabled', value: 'false' }],
    });
    expect(key).toEqual({ kind: 'disabled', id: 'key-1' });
  });

  it('disable of an unknown client touches no key', async () => {
    // Prepare
    ddb.on(UpdateCommand).rejects(conditionFailed());

    // Act & Assess
    await expect(disableClientCommand('nobody', stageKeys())).rejects.toThrow('No client with username "nobody"');
    expect(apiGateway.calls()).toHaveLength(0);
  });

  it('enable re-enables the key, in the plan, before the client', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: alice({ enabled: false }) });
    ddb.on(UpdateCommand).resolves({});
    apiGateway.on(GetApiKeysCommand).resolves({ items: [{ id: 'key-1', value: USAGE_KEY, enabled: false }] });
    apiGateway.on(UpdateApiKeyCommand).resolves({});
    apiGateway.on(CreateUsagePlanKeyCommand).resolves({});

    // Act
    const key = await enableClientCommand('alice', stageKeys());

    // Assess
    expect(key).toEqual({ kind: 'enabled', id: 'key-1' });
    expect(apiGateway.commandCalls(UpdateApiKeyCommand)[0]?.args[0].input.patchOperations).toEqual([{ op: 'replace', path: '/enabled', value: 'true' }]);
    expect(ddb.commandCalls(UpdateCommand).at(-1)?.args[0].input.ExpressionAttributeValues).toMatchObject({ ':enabled': true });
  });

  it('enable gives a client from before usage keys a key of its own and registers it', async () => {
    // Prepare
    ddb
      .on(GetCommand)
      .resolvesOnce({ Item: clientItem(DUMMY_PASSWORD_RECORD) })
      .resolves({ Item: alice({ usageKey: 'e'.repeat(40) }) });
    ddb.on(UpdateCommand).resolves({});
    apiGateway.on(GetApiKeysCommand).resolves({ items: [] });
    apiGateway.on(CreateApiKeyCommand).resolves({ id: 'key-2' });
    apiGateway.on(CreateUsagePlanKeyCommand).resolves({});

    // Act
    await enableClientCommand('alice', stageKeys());

    // Assess
    const setKey = ddb.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(setKey).toMatchObject({
      UpdateExpression: 'SET #usageKey = :usageKey, #updatedAt = :now',
      ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#usageKey))',
    });
    expect(setKey?.ExpressionAttributeValues?.[':usageKey']).toMatch(/^[0-9a-f]{40}$/);
    expect(apiGateway.commandCalls(CreateApiKeyCommand)[0]?.args[0].input.value).toBe('e'.repeat(40));
  });
});

describe('clients show, list and rotate-password', () => {
  it('show reports the key state in the stage, and null when it is not registered', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: alice() });
    apiGateway
      .on(GetApiKeysCommand)
      .resolvesOnce({ items: [{ id: 'key-1', value: USAGE_KEY, enabled: false }] })
      .resolves({ items: [] });

    // Act
    const first = await showClientCommand('alice', stageKeys());
    const second = await showClientCommand('alice', stageKeys());

    // Assess
    expect(first.client).toMatchObject({ username: 'alice', clientId: 'c0ffee00c0ffee00', enabled: true, usageKey: USAGE_KEY, failedLogins: 0 });
    expect(first.client).not.toHaveProperty('password');
    expect(first.key).toEqual({ id: 'key-1', enabled: false });
    expect(second.key).toBeNull();
  });

  it('list reads the usernames from the directory index, then each client', async () => {
    // Prepare
    ddb.on(QueryCommand).resolves({
      Items: [
        { dirPk: 'CLIENTS', dirSk: 'zed' },
        { dirPk: 'CLIENTS', dirSk: 'alice' },
      ],
    });
    ddb.on(GetCommand, { Key: { pk: 'CLIENT#alice', sk: 'CLIENT' } }).resolves({ Item: alice() });
    ddb.on(GetCommand, { Key: { pk: 'CLIENT#zed', sk: 'CLIENT' } }).resolves({ Item: alice({ pk: 'CLIENT#zed', username: 'zed', enabled: false }) });

    // Act
    const clients = await listClients();

    // Assess
    expect(ddb.commandCalls(QueryCommand)[0]?.args[0].input).toMatchObject({ IndexName: 'directory', ExpressionAttributeValues: { ':pk': 'CLIENTS' } });
    expect(clients.map((client) => [client.username, client.enabled])).toEqual([
      ['alice', true],
      ['zed', false],
    ]);
  });

  it('rotate-password stores the hash of a new generated password and forgets failed logins', async () => {
    // Prepare
    ddb.on(UpdateCommand).resolves({});
    ddb.on(QueryCommand).resolves({ Items: [] });

    // Act
    const password = await rotatePassword('alice');

    // Assess
    expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const update = ddb.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(update?.UpdateExpression).toContain('REMOVE #failedLogins');
    await expect(verifyPassword(password, update?.ExpressionAttributeValues?.[':password'] as PasswordRecord)).resolves.toBe(true);
    expect(apiGateway.calls()).toHaveLength(0);
  });
});

describe('clients delete', () => {
  it('deletes the API key and the account, and leaves the data', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: alice() });
    ddb.on(DeleteCommand).resolves({});
    ddb.on(QueryCommand).resolves({ Items: [{ pk: 'CLIENT#alice', sk: 'LOGIN#00aa#1' }] });
    apiGateway.on(GetApiKeysCommand).resolves({ items: [{ id: 'key-1', value: USAGE_KEY }] });
    apiGateway.on(DeleteApiKeyCommand).resolves({});

    // Act
    const deleted = await deleteClientCommand('alice', stageKeys(), { purge: false });

    // Assess
    expect(deleted).toEqual({ clientId: 'c0ffee00c0ffee00', key: { kind: 'deleted' } });
    expect(apiGateway.commandCalls(DeleteApiKeyCommand)[0]?.args[0].input).toEqual({ apiKey: 'key-1' });
    expect(ddb.commandCalls(DeleteCommand).map((call) => call.args[0].input)).toEqual([
      { TableName: TABLE, Key: { pk: 'CLIENT#alice', sk: 'CLIENT' }, ConditionExpression: 'attribute_exists(pk)' },
      { TableName: TABLE, Key: { pk: 'CLIENT#alice', sk: 'LOGIN#00aa#1' } },
    ]);
    expect(ddb.commandCalls(ScanCommand)).toHaveLength(0);
  });

  it('with --purge, disables the client, deletes its tenant by key (no Scan), then the account', async () => {
    // Prepare: one product, found through the tenant's product directory
    ddb.on(GetCommand).resolves({ Item: alice() });
    ddb.on(UpdateCommand).resolves({});
    ddb.on(QueryCommand).resolves({ Items: [] });
    ddb
      .on(QueryCommand, { IndexName: 'directory' })
      .resolvesOnce({ Items: [{ dirPk: 'T#c0ffee00c0ffee00#PRODUCTS', dirSk: 'X' }] })
      .resolves({ Items: [] });
    ddb
      .on(QueryCommand, { ExpressionAttributeValues: { ':pk': 'T#c0ffee00c0ffee00#P#X' } })
      .resolvesOnce({ Items: [{ pk: 'T#c0ffee00c0ffee00#P#X', sk: 'PRODUCT' }] })
      .resolves({ Items: [] });
    ddb.on(BatchWriteCommand).resolves({});
    ddb.on(DeleteCommand).resolves({});

    // Act
    const deleted = await deleteClientCommand('alice', undefined, { purge: true, settle: async () => {} });

    // Assess
    expect(deleted.purged).toEqual({ deleted: 1, passes: 2 });
    expect(ddb.commandCalls(UpdateCommand)[0]?.args[0].input.ExpressionAttributeValues).toMatchObject({ ':enabled': false });
    expect(ddb.commandCalls(BatchWriteCommand)[0]?.args[0].input.RequestItems?.[TABLE]).toEqual([
      { DeleteRequest: { Key: { pk: 'T#c0ffee00c0ffee00#P#X', sk: 'PRODUCT' } } },
    ]);
    expect(ddb.commandCalls(DeleteCommand)[0]?.args[0].input.Key).toEqual({ pk: 'CLIENT#alice', sk: 'CLIENT' });
    expect(ddb.commandCalls(ScanCommand)).toHaveLength(0);
  });

  it('refuses an unknown client before touching anything', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({});

    // Act & Assess
    await expect(deleteClientCommand('nobody', stageKeys(), { purge: true })).rejects.toThrow('No client with username "nobody"');
    expect(apiGateway.calls()).toHaveLength(0);
    expect(ddb.commandCalls(ScanCommand)).toHaveLength(0);
  });
});
