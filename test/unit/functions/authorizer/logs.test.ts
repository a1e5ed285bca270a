/**
 * What the authorizer writes to its log: never a credential, and every line tagged with its own
 * invocation and the request it decides on.
 */
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { authorizerEvent, captureOutput, CONTEXT } from '../../fixtures/authorizer-events.js';

// Read when the logger is built (Powertools resets the level to it at each invocation): before the modules load.
process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
const { handler } = await import('../../../../lambdas/functions/authorizer/handler.js');
const { basicAuthorization } = await import('../../../../lambdas/auth/basic-credentials.js');
const { hashPassword } = await import('../../../../lambdas/auth/password.js');
const { logger } = await import('../../../../lambdas/observability/logger.js');
const { clientItem } = await import('../../../support/fixtures.js');

const ddb = mockClient(DynamoDBDocumentClient);
const PASSWORD = 'Very-Secret-Pässword-42';

let passwordRecord: Awaited<ReturnType<typeof hashPassword>>;

const jsonLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

beforeAll(async () => {
  process.env.TABLE_NAME = 'auth-test-table';
  passwordRecord = await hashPassword(PASSWORD);
});

beforeEach(() => {
  ddb.reset();
  ddb.on(UpdateCommand).resolves({});
});

describe('authorizer logs', () => {
  it.each(['a good header', 'a wrong password', 'an unknown user', 'a table error'])('never contain the password or the header (%s)', async (outcome) => {
    // Prepare
    const header =
      outcome === 'a wrong password'
        ? basicAuthorization('alice', `${PASSWORD}-typo`)
        : basicAuthorization(outcome === 'an unknown user' ? 'nobody' : 'alice', PASSWORD);
    if (outcome === 'a table error') ddb.on(GetCommand).rejects(new Error('connection reset'));
    else ddb.on(GetCommand).resolves(outcome === 'an unknown user' ? {} : { Item: clientItem(passwordRecord) });

    // Act
    const output = await captureOutput(() => handler(authorizerEvent({ Authorization: header }), CONTEXT));

    // Assess
    expect(output).toContain('"level"');
    expect(output).not.toContain(PASSWORD);
    expect(output).not.toContain(header.slice('Basic '.length));
    expect(output).not.toContain(passwordRecord.hash);
    expect(output).not.toContain(passwordRecord.salt);
  });

  it("carry the authorizer's own invocation, the request's correlation id and route, nothing of the previous handler's", async () => {
    // Prepare: what a route's handler leaves on the shared logger in a process that runs both (npm start)
    logger.addContext({ ...CONTEXT, functionName: 'CreateRepricer', awsRequestId: 'handler-req' });
    logger.appendKeys({ route: 'CreateRepricer', correlation_id: 'previous-request', clientId: 'someone-else' });
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord) });

    // Act
    const output = await captureOutput(() => handler(authorizerEvent({ Authorization: basicAuthorization('alice', 'not it') }), CONTEXT));

    // Assess
    const lines = jsonLines(output);
    expect(lines.map((line) => line.message)).toContain('Authentication failed');
    for (const line of lines) {
      expect(line).toMatchObject({
        function_name: 'repricer-dev-Authorizer',
        function_request_id: 'lambda-req-1',
        correlation_id: 'req-authorizer',
        route: 'ListOffers',
      });
      expect(line).not.toHaveProperty('clientId');
    }
  });
});
