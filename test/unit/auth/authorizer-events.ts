import { jest } from '@jest/globals';
import type { APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';

/** What API Gateway hands the REQUEST authorizer, and the Lambda context it runs with. */
export const METHOD_ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc123defg/prod/GET/v1/offers';
export const SOURCE_IP = '198.51.100.20';

export const authorizerEvent = (headers: Record<string, string> | null): APIGatewayRequestAuthorizerEvent => ({
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
  requestContext: { requestId: 'req-authorizer', identity: { sourceIp: SOURCE_IP } } as APIGatewayRequestAuthorizerEvent['requestContext'],
});

export const CONTEXT = {
  functionName: 'repricer-dev-Authorizer',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:repricer-dev-Authorizer',
  memoryLimitInMB: '512',
  awsRequestId: 'lambda-req-1',
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;

/** Everything the logger (or anything else) writes while `action` runs. */
export const captureOutput = async (action: () => Promise<unknown>): Promise<string> => {
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
