import { DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { gunzipSync } from 'node:zlib';
import { handler } from '../../../../lambdas/functions/create-import/handler.js';
import { PROBLEM_TYPES } from '../../../../lambdas/http/problem.js';
import { logger } from '../../../../lambdas/observability/logger.js';
import { offerRecord } from '../../../support/fixtures.js';
import { apiEvent, CONTEXT, expectProblem, TENANT } from '../../fixtures/api-events.js';

const ddb = mockClient(DynamoDBDocumentClient);
const offer = (id: string) => JSON.stringify((offerRecord(id, 'SKU-1') as unknown as { data: unknown }).data);

const post = (body: string, importType = 'offers', contentType = 'application/x-ndjson') =>
  handler(
    { ...apiEvent({ method: 'POST', path: '/v1/imports', headers: { 'content-type': contentType }, body, query: { import_type: [importType] } }) },
    CONTEXT,
  ) as Promise<APIGatewayProxyResult>;

beforeAll(() => {
  process.env.TABLE_NAME = 'test-table';
});

beforeEach(() => {
  ddb.reset();
  logger.setLogLevel('SILENT');
  ddb.on(UpdateCommand).resolves({ Attributes: { value: 42, at: Date.now() } });
  ddb.on(PutCommand).resolves({});
});

describe('POST /v1/imports', () => {
  it('stores a valid body, creates the job pending in the tenant partition and answers 202 with its Location', async () => {
    // Act
    const response = await post(`${offer('O-1')}\n${offer('O-2')}\n`);

    // Assert
    expect(response.statusCode).toBe(202);
    expect(response.headers?.Location).toBe('/v1/imports/42');
    expect(JSON.parse(response.body)).toMatchObject({ id: 42, status: 'pending', trigger_type: 'public_api', import_type: 'offers', total: 2, errors: [] });
    const puts = ddb.commandCalls(PutCommand).map((call) => call.args[0].input.Item!);
    const body = puts.find((item) => item.entity === 'importBody')!;
    expect(body.pk).toBe(`T#${TENANT.clientId}#IMPB#42`);
    expect(gunzipSync(body.data as Uint8Array).toString('utf8')).toBe(`${offer('O-1')}\n${offer('O-2')}\n`);
    const job = puts.find((item) => item.entity === 'import')!;
    expect(job).toMatchObject({
      pk: `T#${TENANT.clientId}#IMP`,
      bodyChunks: 1,
      owner: { sellerId: TENANT.sellerId, defaultConnector: TENANT.defaultConnector },
    });
    // The body is stored before the job that names it exists.
    expect(puts.indexOf(body)).toBeLessThan(puts.indexOf(job));
  });

  it('writes no body for a body with a bad line, and creates the job failed with the line', async () => {
    // Act
    const response = await post(`${offer('O-1')}\n{"offer_id":1}\n`);

    // Assert
    expect(response.statusCode).toBe(202);
    expect(JSON.parse(response.body)).toMatchObject({ status: 'failed', invalid: 1, total: 2, errors: [{ line: 2 }] });
    expect(ddb.commandCalls(PutCommand).map((call) => call.args[0].input.Item!.entity)).toEqual(['import']);
  });

  it.each([
    ['another media type', () => post(offer('O-1'), 'offers', 'application/json'), 415],
    ['an unknown import type', () => post(offer('O-1'), 'connectors'), 400],
    ['an empty body', () => post(''), 400],
  ] as const)('refuses %s without touching the table', async (_what, send, status) => {
    // Act
    const response = await send();

    // Assert
    expectProblem(response, status, status === 400 ? PROBLEM_TYPES.validation : 'about:blank');
    expect(ddb.calls()).toHaveLength(0);
  });
});
