/**
 * Connector types are reference data shared by every client: only the operator's own command
 * (`npm run cli -- connectors import`) writes them. A client's import that carries one is
 * refused as a whole, that line named, nothing written; so no client's catalogue can change
 * the connector types every other client's repricers show.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONNECTOR_IMPORT_COMMAND } from '../../lambdas/domain/import-records.js';
import { cliInProcess, cliProcess } from '../support/cli.js';
import { connectorRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { tableScanner, type TableScanner } from '../support/table-snapshot.js';
import { step } from '../support/story.js';

let api: TestApi;
let scanner: TableScanner;
let dir: string;
const client: [string, string] = ['import-ivy', 'import-ivy-password'];

const ndjson = async (name: string, records: readonly unknown[]) => {
  const path = join(dir, name);
  await writeFile(path, `${records.map((record) => JSON.stringify(record)).join('\n')}\n`);
  return path;
};

beforeAll(async () => {
  api = await startTestApi();
  await api.createClient(client[0], { password: client[1] });
  scanner = tableScanner(api.tableName);
  dir = await mkdtemp(join(tmpdir(), 'repricer-import-'));
}, 120_000);

afterAll(async () => {
  scanner?.close();
  await api?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('connector types', () => {
  it('connector types: loaded by the operator only, refused in client imports, with the price step kept off the record', async () => {
    await step('are written by the operator command, and an unchanged file is a no-op', async () => {
      // Arrange
      const file = await ndjson('connectors.ndjson', [connectorRecord('amazon'), connectorRecord('ebay')]);

      // Act
      const first = await cliProcess(['connectors', 'import', file]);
      const again = await cliInProcess(['connectors', 'import', file]);

      // Assert
      expect(first).toMatchObject({ code: 0, stdout: expect.stringContaining('2 written, 0 unchanged') });
      expect(again).toMatchObject({ code: 0, stdout: expect.stringContaining('0 written, 2 unchanged') });
    });
    await step("are refused in a client's import, which writes nothing but its failed import record and points to the operator command", async () => {
      // Arrange
      const before = await scanner.scan();
      const file = await ndjson('catalogue.ndjson', [
        productRecord('IVY-1'),
        connectorRecord('amazon', { name: 'Hijacked', logo: 'https://evil.example/x.png' }),
      ]);

      // Act
      const result = await cliInProcess(['import', file, '--client', client[0]]);

      // Assert
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('line 2:');
      expect(result.stderr).toContain(CONNECTOR_IMPORT_COMMAND);
      const after = await scanner.scan();
      // The import record (GET /v1/imports shows the client the refused file) and its id counter.
      const added = [...after].filter(([key, item]) => before.get(key) !== item).map(([key]) => key.split('\u0000')[0]);
      expect(added.sort()).toEqual(['COUNTER#import', expect.stringMatching(/^T#.+#IMP$/)].sort());
      // eslint-disable-next-line no-control-regex -- the NUL separates a key's pk from its sk
      const job = JSON.parse([...after].find(([key]) => /^T#.+#IMP\u0000/.test(key))![1]) as {
        record: { M: { status: { S: string }; trigger_type: { S: string } } };
      };
      expect(job.record.M).toMatchObject({ status: { S: 'failed' }, trigger_type: { S: 'cli' } });
      expect([...before.keys()].filter((key) => !after.has(key))).toEqual([]);
    });
    await step("are refused by the client import function as well, leaving every client's connector as it was", async () => {
      // Arrange
      const { ImportValidationError, importRecords } = await import('../../tools/admin/import.js');
      const before = await scanner.scan();

      // Act
      const outcome = importRecords([connectorRecord('ebay', { name: 'Changed' }), productRecord('IVY-2')], { username: client[0] });

      // Assert
      await expect(outcome).rejects.toBeInstanceOf(ImportValidationError);
      await expect(outcome).rejects.toMatchObject({ problems: [{ line: 1, message: expect.stringContaining(CONNECTOR_IMPORT_COMMAND) }] });
      expect(await scanner.scan()).toEqual(before);
    });
    await step('do not let the operator command load products or offers', async () => {
      // Arrange
      const before = await scanner.scan();
      const file = await ndjson('mixed.ndjson', [connectorRecord('bol'), productRecord('IVY-3')]);

      // Act
      const result = await cliInProcess(['connectors', 'import', file]);

      // Assert
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('line 2:');
      expect(await scanner.scan()).toEqual(before);
    });
    await step("leave a client's import of products to the client import", async () => {
      // Arrange
      const file = await ndjson('products.ndjson', [productRecord('IVY-4')]);

      // Act
      const result = await cliInProcess(['import', file, '--client', client[0]]);

      // Assert
      expect(result).toMatchObject({ code: 0, stdout: expect.stringContaining('1 products') });
    });
    await step("carry the operator's price_step on the connector item, never in the connector type record", async () => {
      // Arrange
      const file = await ndjson('steps.ndjson', [connectorRecord('kaufland', { price_step: 0.05 }), connectorRecord('otto')]);
      const bad = await ndjson('bad-step.ndjson', [connectorRecord('fnac', { price_step: 0.001 })]);

      // Act
      const imported = await cliInProcess(['connectors', 'import', file]);
      const refused = await cliInProcess(['connectors', 'import', bad]);
      const items = [...(await scanner.scan()).values()].map(
        (text) => JSON.parse(text) as Record<string, { S?: string; N?: string; M?: Record<string, unknown> }>,
      );
      const connector = (uid: string) => items.find((item) => item.pk?.S === `CONNECTOR#${uid}`);
      const { getConnectorType } = await import('../../lambdas/data/connections/connectors.js');

      // Assert
      expect(imported.code).toBe(0);
      expect(connector('kaufland')?.priceStep).toEqual({ N: '0.05' });
      expect(connector('otto')?.priceStep).toEqual({ N: '1' });
      expect(Object.keys(connector('kaufland')?.record?.M ?? {})).not.toContain('price_step');
      expect(Object.keys((await getConnectorType('kaufland')) ?? {}).sort()).toEqual(['created_at', 'id', 'logo', 'name', 'uid', 'updated_at', 'website']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('price_step');
      expect(connector('fnac')).toBeUndefined();
    });
  }, 360_000);
});
