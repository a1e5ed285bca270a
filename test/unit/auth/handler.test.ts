import { jest } from '@jest/globals';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { AuthorizerFailure, handler, stageWildcardArn, UNAUTHORIZED } from '../../../lambdas/authorizer/handler.js';
import { basicAuthorization } from '../../../lambdas/shared/auth/basic-credentials.js';
import { hashPassword, type PasswordRecord } from '../../../lambdas/shared/auth/password.js';
import { logger } from '../../../lambdas/shared/logger.js';
import { clientItem } from '../../support/fixtures.js';

const ddb = mockClient(DynamoDBDocumentClient);
const METHOD_ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc123defg/prod/GET/v1/offers';
const PASSWORD = 'Very-Secret-Pässword-42';

let passwordRecord: PasswordRecord;

const authorizerEvent = (headers: Record<string, string> | null): APIGatewayRequestAuthorizerEvent => ({
  type: 'REQUEST',
  methodArn: METHOD_ARN,
  resource: '/v1/offers',
  path: '/v1/offers',
  httpMethod: 'GET',
  headers,
  multiValueHeaders: null,
  pathParameters: null,
  queryStringParameters: null,
  multiValueQueryStringParameters: null,
  stageVariables: null,
  requestContext: {} as APIGatewayRequestAuthorizerEvent['requestContext'],
});

/** Everything the logger (or anything else) writes while `action` runs. */
const captureOutput = async (action: () => Promise<unknown>): Promise<string> => {
  const written: string[] = [];
  const record = (...args: unknown[]) => {
    written.push(args.map((arg) => (typeof arg === 'string' ? arg : Buffer.isBuffer(arg) ? arg.toString() : JSON.stringify(arg))).join(' '));
    return true;
  };
  const spies = [
    jest.spyOn(process.stdout, 'write').mockImplementation(record),
    jest.spyOn(process.stderr, 'write').mockImplementation(record),
    ...(['log', 'info', 'warn', 'error', 'debug'] as const).map((method) => jest.spyOn(console, method).mockImplementation(record)),
  ];
  try {
    await action().catch(() => undefined);
  } finally {
    spies.forEach((spy) => spy.mockRestore());
  }
  return written.join('\n');
};

beforeAll(async () => {
  process.env.TABLE_NAME = 'auth-test-table';
  passwordRecord = await hashPassword(PASSWORD);
});

beforeEach(() => {
  ddb.reset();
  logger.setLogLevel('SILENT');
});

describe('authorizer handler', () => {
  it('allows the whole stage for good credentials and passes the tenant on', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord) });

    // Act
    const result = await handler(authorizerEvent({ Authorization: basicAuthorization('alice', PASSWORD) }));

    // Assess
    expect(result).toEqual({
      principalId: 'c0ffee00c0ffee00',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{
          Action: 'execute-api:Invoke',
          Effect: 'Allow',
          Resource: 'arn:aws:execute-api:eu-west-1:123456789012:abc123defg/prod/*/*',
        }],
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
    const result = await handler(authorizerEvent({ Authorization: basicAuthorization('alice', PASSWORD) }));

    // Assess
    expect(result.usageIdentifierKey).toBe(usageKey);
    expect(JSON.stringify(result.context)).not.toContain(usageKey);
  });

  it('finds the header whatever its case', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({ Item: clientItem(passwordRecord) });

    // Act
    const result = await handler(authorizerEvent({ aUtHoRiZaTiOn: basicAuthorization('alice', PASSWORD) }));

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
    await expect(handler(authorizerEvent(headers))).rejects.toThrow(new Error(UNAUTHORIZED));
  });

  it('throws Unauthorized for an unknown user, exactly as for a wrong password', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({});

    // Act & Assess
    await expect(handler(authorizerEvent({ Authorization: basicAuthorization('nobody', PASSWORD) }))).rejects.toThrow(new Error(UNAUTHORIZED));
  });

  it('fails with another error, never Unauthorized, when the table cannot be read', async () => {
    // Prepare
    ddb.on(GetCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));

    // Act
    const outcome = handler(authorizerEvent({ Authorization: basicAuthorization('alice', PASSWORD) }));

    // Assess
    await expect(outcome).rejects.toBeInstanceOf(AuthorizerFailure);
    await expect(outcome).rejects.not.toThrow(UNAUTHORIZED);
  });

  it.each(['a good header', 'a wrong password', 'an unknown user', 'a table error'])('never logs the password or the header (%s)', async (outcome) => {
    // Prepare
    logger.setLogLevel('DEBUG');
    const header = outcome === 'a wrong password'
      ? basicAuthorization('alice', `${PASSWORD}-typo`)
      : basicAuthorization(outcome === 'an unknown user' ? 'nobody' : 'alice', PASSWORD);
    if (outcome === 'a table error') ddb.on(GetCommand).rejects(new Error('connection reset'));
    else ddb.on(GetCommand).resolves(outcome === 'an unknown user' ? {} : { Item: clientItem(passwordRecord) });
    ddb.on(UpdateCommand).resolves({});

    // Act
    const output = await captureOutput(() => handler(authorizerEvent({ Authorization: header })));

    // Assess
    expect(output).toContain('"level"');
    expect(output).not.toContain(PASSWORD);
    expect(output).not.toContain(header.slice('Basic '.length));
    expect(output).not.toContain(passwordRecord.hash);
    expect(output).not.toContain(passwordRecord.salt);
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
