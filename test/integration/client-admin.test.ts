/**
 * The operator's `clients` commands against DynamoDB Local, through the CLI as an operator runs
 * it (a process of its own for the first list and for the typed confirmations) and through the
 * same command lines in process (test/support/cli.ts): list, show, disable, enable, rotate-password,
 * delete (the data stays) and delete --purge (every item of the tenant goes, a neighbour's stay
 * exactly as they were). The API Gateway side of `--stage` is covered by
 * test/unit/admin/client-commands.test.ts.
 */
import { cliInProcess, cliProcess } from '../support/cli.js';
import { offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { tableScanner, type TableScanner, type TableSnapshot } from '../support/table-snapshot.js';
import { seedTwoTenants, type SeededTenant } from '../support/two-tenants.js';
import { step } from '../support/story.js';

let api: TestApi;
let scanner: TableScanner;
let a: SeededTenant;
let b: SeededTenant;

const ping = async (auth: readonly [string, string]) => (await api.request('GET', '/v1/ping', { auth: [...auth] as [string, string] })).status;

/** The items of one client: its tenant's partitions and its account's partition. */
const itemsOf = (snapshot: TableSnapshot, clientId: string, username: string): TableSnapshot =>
  new Map([...snapshot].filter(([key]) => key.startsWith(`T#${clientId}#`) || key.startsWith(`CLIENT#${encodeURIComponent(username)}\u0000`)));

beforeAll(async () => {
  api = await startTestApi({ uncachedAuthorizer: true });
  scanner = tableScanner(api.tableName);
  ({ a, b } = await seedTwoTenants(api));
}, 180_000);

afterAll(async () => {
  scanner?.close();
  await api?.close();
});

describe('clients list and show', () => {
  it('administers clients in one sequence: list and show, disable and enable, rotate a password, delete, purge', async () => {
    await step('lists every client with its status, and shows one without its password hash', async () => {
      // Act
      const listed = await cliProcess(['clients', 'list']);
      const shown = await cliInProcess(['clients', 'show', a.username]);
      const unknown = await cliInProcess(['clients', 'show', 'nobody-here']);

      // Assess
      expect(listed.code).toBe(0);
      const rows = listed.stdout.trim().split('\n');
      expect(rows[0]).toMatch(/^USERNAME\s+STATUS\s+CLIENT ID/);
      expect(rows.slice(1).map((row) => row.split(/\s+/).slice(0, 3))).toEqual([
        [a.username, 'enabled', a.clientId],
        [b.username, 'enabled', b.clientId],
      ]);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain(`client id:         ${a.clientId}`);
      expect(shown.stdout).toContain(`seller id:         ${a.sellerId}`);
      expect(shown.stdout).not.toMatch(/scrypt|hash|salt/);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('No client with username "nobody-here"');
    });
    await step('a disabled client is refused with 401 until it is enabled again', async () => {
      // Act & Assess
      expect(await ping(a.auth)).toBe(200);
      const disabled = await cliInProcess(['clients', 'disable', a.username]);
      expect(disabled.code).toBe(0);
      expect(await ping(a.auth)).toBe(401);
      expect((await cliInProcess(['clients', 'show', a.username])).stdout).toContain('status:            disabled');
      const enabled = await cliInProcess(['clients', 'enable', a.username]);
      expect(enabled.code).toBe(0);
      expect(await ping(a.auth)).toBe(200);
      expect(await ping(b.auth)).toBe(200);
    });
    await step('prints a new password once; the old one is refused, the new one accepted', async () => {
      // Act
      const rotated = await cliInProcess(['clients', 'rotate-password', 'rotating-rita']);
      await api.createClient('rotating-rita', { password: 'rita-old-password' });
      const result = await cliInProcess(['clients', 'rotate-password', 'rotating-rita']);

      // Assess
      expect(rotated.code).toBe(1);
      expect(result.code).toBe(0);
      const password = /New password of rotating-rita: (\S+)/.exec(result.stdout)?.[1];
      expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
      expect(await ping(['rotating-rita', 'rita-old-password'])).toBe(401);
      expect(await ping(['rotating-rita', password!])).toBe(200);
    });
    await step('asks for the user name, and deletes only the account when it is typed: the data stays', async () => {
      // Prepare
      const carol = await api.createClient('deleted-carol', { password: 'carol-password' });
      await api.importRecords('deleted-carol', [productRecord('C-1'), offerRecord('C-MKT-1', 'C-1', { seller_id: carol.sellerId })]);
      const before = itemsOf(await scanner.scan(), carol.clientId, 'deleted-carol');

      // Act
      const refused = await cliProcess(['clients', 'delete', 'deleted-carol'], 'deleted-caro\n');
      const stillThere = await ping(['deleted-carol', 'carol-password']);
      const deleted = await cliProcess(['clients', 'delete', 'deleted-carol'], 'deleted-carol\n');
      await api.settle();

      // Assess
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('Type the user name to confirm');
      expect(refused.stderr).toContain('Not confirmed: nothing was deleted');
      expect(stillThere).toBe(200);
      expect(deleted.code).toBe(0);
      expect(deleted.stdout).toContain(`its data stays under T#${carol.clientId}#`);
      const after = itemsOf(await scanner.scan(), carol.clientId, 'deleted-carol');
      // Checked after the scan: a refused login counts an attempt for the user name, known or not.
      expect(await ping(['deleted-carol', 'carol-password'])).toBe(401);
      const tenantKeys = (snapshot: TableSnapshot) => [...snapshot.keys()].filter((key) => key.startsWith('T#')).sort();
      expect(tenantKeys(after)).toEqual(tenantKeys(before));
      expect(tenantKeys(after).length).toBeGreaterThan(0);
      expect([...after.keys()].filter((key) => key.startsWith('CLIENT#'))).toEqual([]);
      expect((await cliInProcess(['clients', 'list'])).stdout).not.toContain('deleted-carol');
    });
    await step('with --purge --yes, deletes every item of the tenant and leaves the neighbour exactly as it was', async () => {
      // Prepare
      await api.settle();
      const before = await scanner.scan();
      const neighbourBefore = itemsOf(before, b.clientId, b.username);
      expect(itemsOf(before, a.clientId, a.username).size).toBeGreaterThan(20);

      // Act: in process, so the purge can wait for this test's stream consumers between passes.
      const { deleteClientCommand } = await import('../../tools/admin/client-commands.js');
      const deleted = await deleteClientCommand(a.username, undefined, { purge: true, settle: () => api.settle() });
      await api.settle();

      // Assess
      const after = await scanner.scan();
      expect(deleted.clientId).toBe(a.clientId);
      expect(deleted.purged?.deleted).toBeGreaterThanOrEqual(itemsOf(before, a.clientId, a.username).size - 2);
      // Found by key before anything is deleted, so a list maintainer unlisting meanwhile cannot shrink the count.
      expect(deleted.purged?.deleted).toBeGreaterThanOrEqual([...before.keys()].filter((key) => key.startsWith(`T#${a.clientId}#`)).length);
      expect([...itemsOf(after, a.clientId, a.username).keys()]).toEqual([]);
      expect([...after.keys()].filter((key) => key.includes(a.clientId))).toEqual([]);
      expect(itemsOf(after, b.clientId, b.username)).toEqual(neighbourBefore);
      expect(await ping(a.auth)).toBe(401);
      const neighbourOffers = await api.request<{ meta: { total: number } }>('GET', '/v1/offers?_include_other_offers=true', {
        auth: [...b.auth] as [string, string],
      });
      expect(neighbourOffers.body.meta.total).toBe(b.offerIds.length);
    });
    await step('with --purge through the CLI, reports its progress and leaves nothing of the tenant', async () => {
      // Prepare
      const dave = await api.createClient('purged-dave', { password: 'dave-password' });
      await api.importRecords('purged-dave', [productRecord('D-1'), offerRecord('D-MKT-1', 'D-1', { seller_id: dave.sellerId })]);

      // Act
      const purged = await cliInProcess(['clients', 'delete', 'purged-dave', '--purge', '--yes', '--settle-seconds', '2']);
      await api.settle();

      // Assess
      expect(purged.code).toBe(0);
      expect(purged.stderr).toMatch(/purge pass 1: \d+ items scanned, \d+ of the tenant deleted/);
      expect(purged.stdout).toMatch(/purged: \d+ items of the tenant in \d+ passes/);
      expect([...(await scanner.scan()).keys()].filter((key) => key.includes(dave.clientId) || key.includes('purged-dave'))).toEqual([]);
    });
  }, 360_000);
});
