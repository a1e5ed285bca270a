/**
 * Administration CLI, against the same DynamoDB endpoint and table as `npm start`:
 *   npm run cli -- clients create <username> [--password P] [--seller-id S] [--connector U]
 *   npm run cli -- import <file.ndjson> --client <username>
 *   npm run cli -- rebuild [--client <username>]
 *   npm run cli -- connectors import <file.ndjson>
 * Set DYNAMODB_ENDPOINT and TABLE_NAME to aim it at another table (AWS when the endpoint is
 * unset and TABLE_NAME names a deployed table).
 */
import { parseArgs } from 'node:util';
import { LOCAL_TABLE_NAME, TABLE_NAME_ENV } from '../lib/table-schema.js';

const USAGE = `Usage:
  npm run cli -- clients create <username> [--password P] [--seller-id S] [--connector U]
  npm run cli -- import <file.ndjson> --client <username>     a client's products and offers
  npm run cli -- connectors import <file.ndjson>              connector types (reference data for every client)
  npm run cli -- rebuild [--client <username>]                re-derive lists and counts from canonical items`;

const configureEnvironment = () => {
  if (!process.env[TABLE_NAME_ENV]) {
    process.env[TABLE_NAME_ENV] = LOCAL_TABLE_NAME;
    process.env.DYNAMODB_ENDPOINT ??= `http://localhost:${process.env.DYNAMODB_PORT ?? '8000'}`;
  }
  process.env.AWS_REGION ??= 'local';
};

const createClient = async (args: string[]) => {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { password: { type: 'string' }, 'seller-id': { type: 'string' }, connector: { type: 'string' } },
  });
  const [username] = positionals;
  if (!username || positionals.length !== 1) throw new UsageError('clients create needs exactly one <username>');
  const { createClientAccount } = await import('../lib/admin/clients.js');
  const account = await createClientAccount({
    username,
    ...(values.password ? { password: values.password } : {}),
    ...(values['seller-id'] ? { sellerId: values['seller-id'] } : {}),
    ...(values.connector ? { connector: values.connector } : {}),
  });
  process.stdout.write(
    `Created client ${account.username}\n  seller id:         ${account.sellerId}\n  default connector: ${account.defaultConnector}\n` +
      (values.password ? '' : `  password:          ${account.password}\n  (shown once: it is stored only as a scrypt hash)\n`) +
      `  usage key:         ${account.usageKey}\n` +
      '  (on a deployed stage, register it in the usage plan: see docs/security.md, "Usage plan")\n',
  );
};

const importFile = async (args: string[]) => {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { client: { type: 'string' } } });
  const [file] = positionals;
  if (!file || positionals.length !== 1 || !values.client) throw new UsageError('import needs <file.ndjson> and --client <username>');
  const { importRecords, readNdjson, ImportValidationError } = await import('../lib/admin/import.js');
  const records = await readNdjson(file);
  process.stderr.write(`Validating ${records.length} records from ${file}\n`);
  try {
    const summary = await importRecords(records, {
      username: values.client,
      jobRecords: true,
      onProgress: (done, total) => process.stderr.write(`\r  offers ${done}/${total}`),
    });
    process.stderr.write('\n');
    const rate = summary.seconds > 0 ? Math.round((summary.offers + summary.unchangedOffers) / summary.seconds) : 0;
    process.stdout.write(
      `Imported for ${values.client}: ${summary.products} products and ` +
        `${summary.offers} offers written (${summary.unchangedOffers} offers unchanged) in ${summary.seconds.toFixed(1)} s, ${rate} offers/s\n` +
        `Import records: ${summary.jobs.map((job) => `${job.import_type} ${job.id}`).join(', ') || 'none'} (GET /v1/imports/{id})\n`,
    );
  } catch (error) {
    if (error instanceof ImportValidationError) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 1;
      return;
    }
    throw error;
  }
};

const rebuild = async (args: string[]) => {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { client: { type: 'string' } } });
  if (positionals.length > 0) throw new UsageError('rebuild takes only --client <username>');
  const { describeProgress, rebuildAll, rebuildClient } = await import('../lib/admin/rebuild.js');
  const progress = (username: string) => (request: Parameters<typeof describeProgress>[0]) =>
    process.stderr.write(`\r${username}: ${describeProgress(request)}\x1b[K`);
  if (values.client) {
    const result = await rebuildClient(values.client, progress(values.client));
    process.stderr.write('\n');
    if (result.status === 'failed') throw new Error(`Rebuild of ${values.client} failed`);
  } else {
    const count = await rebuildAll((username, request) => progress(username)(request));
    process.stderr.write(`\nRebuilt ${count} clients.\n`);
  }
};

/** Reference data: only this explicit operator command writes connector types. */
const importConnectors = async (args: string[]) => {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const [file] = positionals;
  if (!file || positionals.length !== 1) throw new UsageError('connectors import needs exactly one <file.ndjson>');
  const { importConnectorTypes, readNdjson, ImportValidationError } = await import('../lib/admin/import.js');
  const records = await readNdjson(file);
  process.stderr.write(`Validating ${records.length} connector types from ${file}\n`);
  try {
    const summary = await importConnectorTypes(records);
    process.stdout.write(
      `Connector types: ${summary.connectorTypes} written, ${summary.unchangedConnectorTypes} unchanged, in ${summary.seconds.toFixed(1)} s\n`,
    );
  } catch (error) {
    if (error instanceof ImportValidationError) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 1;
      return;
    }
    throw error;
  }
};

class UsageError extends Error {}

const main = async () => {
  configureEnvironment();
  const [command, subcommand, ...rest] = process.argv.slice(2);
  if (command === 'clients' && subcommand === 'create') return createClient(rest);
  if (command === 'import') return importFile([subcommand ?? '', ...rest].filter(Boolean));
  if (command === 'rebuild') return rebuild([subcommand ?? '', ...rest].filter(Boolean));
  if (command === 'connectors' && subcommand === 'import') return importConnectors(rest);
  throw new UsageError(command ? `Unknown command: ${[command, subcommand].filter(Boolean).join(' ')}` : 'No command given');
};

main().catch((error: unknown) => {
  if (error instanceof UsageError) process.stderr.write(`${error.message}\n\n${USAGE}\n`);
  else process.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = error instanceof UsageError ? 2 : 1;
});
