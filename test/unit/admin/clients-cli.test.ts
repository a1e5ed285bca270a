import { APIGatewayClient, GetApiKeysCommand } from '@aws-sdk/client-api-gateway';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { runClientsCommand, type ClientsCliContext } from '../../../tools/admin/clients-cli.js';
import { KeyRegistrationError } from '../../../tools/admin/client-commands.js';
import { UsageError } from '../../../tools/admin/usage-error.js';
import { UsageKeys } from '../../../tools/admin/usage-keys.js';
import { DUMMY_PASSWORD_RECORD } from '../../../lambdas/auth/password.js';
import { clientItem } from '../../support/fixtures.js';

const ddb = mockClient(DynamoDBDocumentClient);
const apiGateway = mockClient(APIGatewayClient);

const context = (extra: Partial<ClientsCliContext> = {}) => {
  const output = { out: '', err: '' };
  const value: ClientsCliContext = { out: (text) => (output.out += text), err: (text) => (output.err += text), ...extra };
  return { output, context: value };
};

const stage = {
  targets: { stage: 'prod', stackName: 'RepricerApi-prod', tableName: 'T', apiId: 'api', usagePlanId: 'plan-1', apiUrl: 'https://api/prod/' },
  keys: new UsageKeys({ stage: 'prod', usagePlanId: 'plan-1' }, new APIGatewayClient({ region: 'eu-west-1' })),
};

beforeAll(() => {
  process.env.TABLE_NAME = 'cli-test-table';
});

beforeEach(() => {
  ddb.reset();
  apiGateway.reset();
});

describe('clients commands', () => {
  it('still prints the generated password when the API key could not be registered', async () => {
    // Prepare
    ddb.on(PutCommand).resolves({});
    apiGateway.on(GetApiKeysCommand).rejects(new Error('AccessDenied'));
    const { output, context: ctx } = context({ stage });

    // Act
    const failure = await runClientsCommand('create', ['acme'], ctx).catch((error: unknown) => error);

    // Assess
    expect(failure).toBeInstanceOf(KeyRegistrationError);
    expect(output.out).toMatch(/password: +[A-Za-z0-9_-]{24}\n/);
    expect(output.out).toContain('API key:           none found in stage prod');
  });

  it('deletes nothing unless the user name is typed', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(DUMMY_PASSWORD_RECORD) });
    const prompts: string[] = [];
    const { context: ctx } = context({
      confirm: async (prompt, expected) => {
        prompts.push(`${prompt}|${expected}`);
        return false;
      },
    });

    // Act & Assess
    await expect(runClientsCommand('delete', ['alice', '--purge'], ctx)).rejects.toThrow('Not confirmed: nothing was deleted');
    expect(prompts).toEqual(['This deletes the client and every item of its data from the local table. Type the user name to confirm: |alice']);
    expect(ddb.calls()).toHaveLength(0);
  });

  it.each([['toString'], ['frobnicate'], [undefined]])('refuses the subcommand %s as a usage error', async (subcommand) => {
    // Act & Assess
    await expect(runClientsCommand(subcommand, [], context().context)).rejects.toThrow(UsageError);
  });

  it('refuses a bad --settle-seconds before asking anything', async () => {
    // Act & Assess
    await expect(runClientsCommand('delete', ['alice', '--settle-seconds', 'soon', '--yes'], context().context)).rejects.toThrow('--settle-seconds');
    expect(ddb.calls()).toHaveLength(0);
  });
});
