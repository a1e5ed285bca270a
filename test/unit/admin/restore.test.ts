/**
 * The last step of a point-in-time restore (tools/admin/restore.ts): the restored table's items
 * are read page by page and written back into the stage's table, only once confirmed.
 */
import { Readable } from 'node:stream';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { runCli } from '../../../tools/admin/cli.js';
import { FakeTable, TABLE } from '../data/fake-table.js';

const RESTORED = 'repricer-prod-restore-20261128';
const ITEMS = [
  { pk: 'T#c1#PRODUCT#A', sk: 'PRODUCT', entity: 'product', record: { code: 'A' } },
  { pk: 'T#c1#PRODUCT#B', sk: 'PRODUCT', entity: 'product', record: { code: 'B' } },
  { pk: 'T#c2#PRODUCT#C', sk: 'PRODUCT', entity: 'product', record: { code: 'C' } },
];

const ddb = mockClient(DynamoDBDocumentClient);
let table: FakeTable;
const before = { ...process.env };
beforeEach(() => {
  process.env.TABLE_NAME = TABLE;
  ddb.reset();
  table = new FakeTable().serve(ddb);
  // The restored table, in two pages.
  ddb.on(ScanCommand).callsFake((input: { TableName: string; ExclusiveStartKey?: unknown }) => {
    if (input.TableName !== RESTORED) throw new Error(`Scan of ${input.TableName}`);
    return input.ExclusiveStartKey ? { Items: ITEMS.slice(2) } : { Items: ITEMS.slice(0, 2), LastEvaluatedKey: { pk: ITEMS[1]!.pk, sk: 'PRODUCT' } };
  });
});
afterEach(() => {
  process.env = { ...before };
});

const run = async (args: readonly string[], typed = '') => {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { out: (text) => (stdout += text), err: (text) => (stderr += text), input: Readable.from([typed]) });
  return { code, stdout, stderr };
};
const copied = () => ITEMS.filter((item) => table.get({ pk: item.pk, sk: item.sk }) !== undefined).length;

describe('restore copy', () => {
  it('counts the restored items and writes nothing unless "copy" is typed', async () => {
    const dryRun = await run(['restore', 'copy', '--from', RESTORED, '--dry-run']);
    const refused = await run(['restore', 'copy', '--from', RESTORED], 'yes\n');

    expect(dryRun.stdout).toContain(`${RESTORED}: 3 items (every item) to copy into ${TABLE} on the local table`);
    expect(dryRun.stdout).toContain('Dry run: nothing written.');
    expect(refused.stdout).toContain('Not confirmed: nothing written.');
    expect(copied()).toBe(0);
  });

  it('writes every page of the restored table back once confirmed', async () => {
    const result = await run(['restore', 'copy', '--from', RESTORED], 'copy\n');

    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Copied 3 items into ${TABLE}`);
    expect(copied()).toBe(3);
    expect(table.get({ pk: ITEMS[2]!.pk, sk: 'PRODUCT' })).toEqual(ITEMS[2]);
  });

  it("refuses the stage's own table as the source, and a client the stage does not know", async () => {
    const own = await run(['restore', 'copy', '--from', TABLE, '--yes']);
    const unknown = await run(['restore', 'copy', '--from', RESTORED, '--client', 'ghost', '--yes']);

    expect(own.code).toBe(2);
    expect(own.stderr).toContain("--from names the stage's own table");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No client named "ghost"');
    expect(copied()).toBe(0);
  });
});
