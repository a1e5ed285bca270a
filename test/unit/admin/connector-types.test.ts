/**
 * The connector types the repository ships (tools/admin/connector-types.ndjson): a first deploy
 * loads them with one command, and `PUT /v1/connections/takealot` then finds its connector type.
 */
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { getConnectorType } from '../../../lambdas/data/connections/connectors.js';
import { validateImport } from '../../../lambdas/domain/import-records.js';
import { MARKETPLACES } from '../../../lambdas/marketplace/marketplaces.js';
import { runCli } from '../../../tools/admin/cli.js';
import { readNdjson } from '../../../tools/admin/import.js';
import { FakeTable, TABLE } from '../data/fake-table.js';

/** The path docs/deploy.md and docs/administration.md give the operator, from the repository's root. */
const SHIPPED = 'tools/admin/connector-types.ndjson';
const shippedPath = fileURLToPath(new URL(`../../../${SHIPPED}`, import.meta.url));

const ddb = mockClient(DynamoDBDocumentClient);
const before = { ...process.env };
beforeEach(() => {
  process.env.TABLE_NAME = TABLE;
  ddb.reset();
  new FakeTable().serve(ddb);
});
afterEach(() => {
  process.env = { ...before };
});

describe('the shipped connector types', () => {
  it('are a valid connectors import with a connector type for every marketplace the service connects to', async () => {
    // Act
    const { records, problems } = validateImport(await readNdjson(shippedPath), 'connectors');

    // Assess
    expect(problems).toEqual([]);
    const uids = records.flatMap((record) => (record.type === 'connector_type' ? [record.data.uid] : []));
    expect(uids).toEqual(expect.arrayContaining(MARKETPLACES.map((marketplace) => marketplace.uid)));
  });

  it('load with one command, after which Takealot is a connector type, and a second run writes nothing', async () => {
    // Prepare
    let stdout = '';
    const io = { out: (text: string) => (stdout += text), err: () => undefined, input: Readable.from(['']) };
    expect(await getConnectorType('takealot')).toBeUndefined();

    // Act
    const first = await runCli(['connectors', 'import', shippedPath], io);
    const second = await runCli(['connectors', 'import', shippedPath], io);

    // Assess
    expect([first, second]).toEqual([0, 0]);
    expect(await getConnectorType('takealot')).toMatchObject({ uid: 'takealot', name: 'Takealot', website: 'https://www.takealot.com' });
    expect(stdout).toContain('Connector types: 1 written, 0 unchanged');
    expect(stdout).toContain('Connector types: 0 written, 1 unchanged');
  });
});
