/**
 * Clients of a DynamoDB Local: a loopback endpoint's requests carry an `Authorization` header of
 * SigV4's shape, without a signature (DynamoDB Local checks none); any other endpoint's are
 * signed as AWS's are.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { createDynamoClient } from '../../../../lambdas/data/table/dynamo.js';
import { isLocalEndpoint, localEndpointSettings } from '../../../../lambdas/data/table/local-endpoint.js';
import { localClientSettings } from '../../../../tools/local/dynamodb-local.js';

let server: Server;
let endpoint: string;
const received: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  // Answers every call as DynamoDB Local answers ListTables on an empty instance.
  server = createServer((request, response) => {
    received.push(request.headers);
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      response.end('{"TableNames":[]}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  received.length = 0;
});

describe('a client of a loopback endpoint', () => {
  it.each([
    ['the service (createDynamoClient)', () => createDynamoClient({ endpoint, env: { AWS_REGION: 'local' } })],
    ['a local tool (localClientSettings)', () => new DynamoDBClient(localClientSettings(endpoint))],
  ])('sends an Authorization header of SigV4 shape, naming the fixed key and region, with no signature: %s', async (_case, build) => {
    // Act
    const client = build();
    const answer = await client.send(new ListTablesCommand({})).finally(() => client.destroy());

    // Assert
    expect(answer.TableNames).toEqual([]);
    expect(received).toHaveLength(1);
    expect(received[0]!.authorization).toBe('AWS4-HMAC-SHA256 Credential=local/20000101/local/dynamodb/aws4_request, SignedHeaders=host, Signature=0');
  });
});

describe('localEndpointSettings', () => {
  it('leaves the signing to the SDK for an endpoint that is not on a loopback host', () => {
    // Act
    const remote = localEndpointSettings('https://dynamodb.internal.example.com', { AWS_REGION: 'eu-west-1' });
    const loopback = localEndpointSettings('http://[::1]:8000', { AWS_REGION: 'eu-west-1' });

    // Assert
    expect(isLocalEndpoint('https://dynamodb.internal.example.com')).toBe(false);
    expect(remote).toEqual({
      endpoint: 'https://dynamodb.internal.example.com',
      region: 'eu-west-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    expect(loopback).toMatchObject({ region: 'eu-west-1', signer: expect.anything() });
  });
});
