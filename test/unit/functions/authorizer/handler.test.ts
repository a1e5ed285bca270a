import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { AuthorizerFailure, handler, stageWildcardArn, UNAUTHORIZED } from '../../../../lambdas/functions/authorizer/handler.js';
import { basicAuthorization } from '../../../../lambdas/auth/basic-credentials.js';
import { hashPassword, type PasswordRecord } from '../../../../lambdas/auth/password.js';
import { sourceDigest } from '../../../../lambdas/auth/source-address.js';
import { logger } from '../../../../lambdas/observability/logger.js';
import { clientItem } from '../../../support/fixtures.js';
import { authorizerEvent, CONTEXT, METHOD_ARN } from '../../fixtures/authorizer-events.js';

const ddb = mockClient(DynamoDBDocumentClient);
const PASSWORD = 'Very-Secret-Pässword-42';

let passwordRecord: PasswordRecord;

beforeAll(async () => {
  process.env.TABLE_NAME = 'auth-test-table';
  passwordRecord = await hashPassword(PASSWORD);
});

beforeEach(() => {
  ddb.reset();
  // Every attempt is counted before its check (data/clients/login-attempts.ts).
  ddb.on(UpdateCommand).resolves({});
  logger.setLogLevel('SILENT');
});

describe('authorizer handler', () => {
  it('allows the whole stage for good credentials and passes the tenant on', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord) });

    // Act
    const result = await handler(authorizerEvent({ Authorization: basicAuthorization('alice', PASSWORD) }), CONTEXT);

    // Assess
    expect(result).toEqual({
      principalId: 'c0ffee00c0ffee00',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [
          {
            Action: 'execute-api:Invoke',
            Effect: 'Allow',
            Resource: 'arn:aws:execute-api:eu-west-1:123456789012:abc123defg/prod/*/*',
          },
        ],
      },
      context: { clientId: 'c0ffee00c0ffee00', username: 'alice', sellerId: 'seller-alice', defaultConnector: 'amazon' },
    });
    expect(result).not.toHaveProperty('usageIdentifierKey');
  });

  it("hands API Gateway the client's usage key, and keeps it out of the context the handlers see", async () => {
    // Prepare
    const usageKey = 'a'.repeat(40);
    ddb.on(GetCommand).resolves({ Item: { ...clientItem(passwordRecord), usageKey } });

    // Act
    const result = await handler(authorizerEvent({ Authorization: basicAuthorization('alice', PASSWORD) }), CONTEXT);

    // Assess
    expect(result.usageIdentifierKey).toBe(usageKey);
    expect(JSON.stringify(result.context)).not.toContain(usageKey);
  });

  it("counts attempts against the caller's source address from the request context", async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord) });
    const from = (sourceIp: string) => {
      const event = authorizerEvent({ Authorization: basicAuthorization('alice', PASSWORD) });
      return { ...event, requestContext: { ...event.requestContext, identity: { ...event.requestContext.identity, sourceIp } } };
    };

    // Act
    await handler(from('198.51.100.20'), CONTEXT);
    await handler(from('203.0.113.66'), CONTEXT);

    // Assess
    const reservations = ddb
      .commandCalls(UpdateCommand)
      .map((call) => call.args[0].input)
      .filter((input) => String(input.UpdateExpression).startsWith('ADD #attempts :one'));
    expect(reservations.map((input) => input.Key?.sk)).toEqual([
      expect.stringMatching(new RegExp(`^LOGIN#${sourceDigest('198.51.100.20')}#\\d+$`)),
      expect.stringMatching(new RegExp(`^LOGIN#${sourceDigest('203.0.113.66')}#\\d+$`)),
    ]);
  });

  it('finds the header whatever its case', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord) });

    // Act
    const result = await handler(authorizerEvent({ aUtHoRiZaTiOn: basicAuthorization('alice', PASSWORD) }), CONTEXT);

    // Assess
    expect(result.principalId).toBe('c0ffee00c0ffee00');
  });

  it.each([
    ['no headers', null],
    ['no Authorization header', { Accept: 'application/json' }],
    ['a malformed header', { Authorization: 'Basic %%%' }],
    ['a wrong password', { Authorization: basicAuthorization('alice', 'not it') }],
  ])('throws Unauthorized for %s', async (_case, headers) => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord) });
    ddb.on(UpdateCommand).resolves({});

    // Act & Assess
    await expect(handler(authorizerEvent(headers), CONTEXT)).rejects.toThrow(new Error(UNAUTHORIZED));
  });

  it('throws Unauthorized for an unknown user, exactly as for a wrong password', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({});

    // Act & Assess
    await expect(handler(authorizerEvent({ Authorization: basicAuthorization('nobody', PASSWORD) }), CONTEXT)).rejects.toThrow(new Error(UNAUTHORIZED));
  });

  it('fails with another error, never Unauthorized, when the table cannot be read', async () => {
    // Prepare
    ddb.on(GetCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));

    // Act
    const outcome = handler(authorizerEvent({ Authorization: basicAuthorization('alice', PASSWORD) }), CONTEXT);

    // Assess
    await expect(outcome).rejects.toBeInstanceOf(AuthorizerFailure);
    await expect(outcome).rejects.not.toThrow(UNAUTHORIZED);
  });
});

describe('stageWildcardArn', () => {
  it.each([
    [METHOD_ARN, 'arn:aws:execute-api:eu-west-1:123456789012:abc123defg/prod/*/*'],
    ['arn:aws:execute-api:eu-west-1:123456789012:abc123defg/prod/POST/v1/repricers', 'arn:aws:execute-api:eu-west-1:123456789012:abc123defg/prod/*/*'],
    ['not-an-arn', 'not-an-arn'],
  ])('widens %s', (methodArn, expected) => {
    expect(stageWildcardArn(methodArn)).toBe(expected);
  });
});
