import {
  APIGatewayClient,
  APIGatewayServiceException,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  GetApiKeysCommand,
  UpdateApiKeyCommand,
} from '@aws-sdk/client-api-gateway';
import { mockClient } from 'aws-sdk-client-mock';
import { UsageKeys, usageKeyName } from '../../../tools/admin/usage-keys.js';

const apiGateway = mockClient(APIGatewayClient);
const VALUE = 'a'.repeat(40);
const keys = () => new UsageKeys({ stage: 'prod', usagePlanId: 'plan-1' }, new APIGatewayClient({ region: 'eu-west-1' }));
const conflict = () => new APIGatewayServiceException({ name: 'ConflictException', $fault: 'client', $metadata: {}, message: 'already exists' });

beforeEach(() => apiGateway.reset());

describe('UsageKeys.register', () => {
  it("creates an enabled key with the client's value and adds it to the stage's usage plan", async () => {
    // Prepare
    apiGateway.on(GetApiKeysCommand).resolves({ items: [] });
    apiGateway.on(CreateApiKeyCommand).resolves({ id: 'key-1', value: VALUE, enabled: true });
    apiGateway.on(CreateUsagePlanKeyCommand).resolves({ id: 'key-1' });

    // Act
    const state = await keys().register('acme', VALUE);

    // Assess
    expect(state).toEqual({ id: 'key-1', enabled: true });
    expect(apiGateway.commandCalls(GetApiKeysCommand).map((call) => call.args[0].input)).toEqual([
      { nameQuery: 'repricer-prod-acme', includeValues: true, limit: 500 },
    ]);
    expect(apiGateway.commandCalls(CreateApiKeyCommand).map((call) => call.args[0].input)).toEqual([
      expect.objectContaining({ name: usageKeyName('prod', 'acme'), value: VALUE, enabled: true }),
    ]);
    expect(apiGateway.commandCalls(CreateUsagePlanKeyCommand).map((call) => call.args[0].input)).toEqual([
      { usagePlanId: 'plan-1', keyId: 'key-1', keyType: 'API_KEY' },
    ]);
  });

  it('reuses a disabled key with the same value, enables it, and accepts a key already in the plan', async () => {
    // Prepare: a key with another value (another stage's or an older one) shares the name prefix.
    apiGateway
      .on(GetApiKeysCommand)
      .resolvesOnce({ items: [{ id: 'other', value: 'b'.repeat(40), enabled: true }], position: 'page-2' })
      .resolvesOnce({ items: [{ id: 'key-1', value: VALUE, enabled: false }] });
    apiGateway.on(UpdateApiKeyCommand).resolves({});
    apiGateway.on(CreateUsagePlanKeyCommand).rejects(conflict());

    // Act
    const state = await keys().register('acme', VALUE);

    // Assess
    expect(state).toEqual({ id: 'key-1', enabled: true });
    expect(apiGateway.commandCalls(GetApiKeysCommand).map((call) => call.args[0].input)[1]).toMatchObject({ position: 'page-2' });
    expect(apiGateway.commandCalls(CreateApiKeyCommand)).toHaveLength(0);
    expect(apiGateway.commandCalls(UpdateApiKeyCommand).map((call) => call.args[0].input)).toEqual([
      { apiKey: 'key-1', patchOperations: [{ op: 'replace', path: '/enabled', value: 'true' }] },
    ]);
  });

  it('passes on any other failure to add the key to the plan', async () => {
    // Prepare
    apiGateway.on(GetApiKeysCommand).resolves({ items: [] });
    apiGateway.on(CreateApiKeyCommand).resolves({ id: 'key-1' });
    apiGateway
      .on(CreateUsagePlanKeyCommand)
      .rejects(new APIGatewayServiceException({ name: 'NotFoundException', $fault: 'client', $metadata: {}, message: 'Invalid Usage Plan ID specified' }));

    // Act & Assess
    await expect(keys().register('acme', VALUE)).rejects.toThrow('Invalid Usage Plan ID specified');
  });
});

describe('UsageKeys.setEnabled and remove', () => {
  it('disables a key by id', async () => {
    // Prepare
    apiGateway.on(UpdateApiKeyCommand).resolves({});

    // Act
    await keys().setEnabled('key-1', false);

    // Assess
    expect(apiGateway.commandCalls(UpdateApiKeyCommand).map((call) => call.args[0].input)).toEqual([
      { apiKey: 'key-1', patchOperations: [{ op: 'replace', path: '/enabled', value: 'false' }] },
    ]);
  });

  it('deletes the key with the value, and only it', async () => {
    // Prepare
    apiGateway.on(GetApiKeysCommand).resolves({
      items: [
        { id: 'other', value: 'b'.repeat(40) },
        { id: 'key-1', value: VALUE },
      ],
    });
    apiGateway.on(DeleteApiKeyCommand).resolves({});

    // Act
    const removed = await keys().remove('acme', VALUE);

    // Assess
    expect(removed).toBe(true);
    expect(apiGateway.commandCalls(DeleteApiKeyCommand).map((call) => call.args[0].input)).toEqual([{ apiKey: 'key-1' }]);
  });

  it('deletes nothing when no key has the value', async () => {
    // Prepare
    apiGateway.on(GetApiKeysCommand).resolves({ items: [{ id: 'other', value: 'b'.repeat(40) }] });

    // Act & Assess
    await expect(keys().remove('acme', VALUE)).resolves.toBe(false);
    expect(apiGateway.commandCalls(DeleteApiKeyCommand)).toHaveLength(0);
  });
});
