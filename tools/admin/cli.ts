/**
 * Administration CLI, against the same DynamoDB endpoint and table as `npm start`, or with
 * `--stage <name>` against a deployed stage (docs/administration.md):
 *   npm run cli -- clients create|list|show|disable|enable|rotate-password|delete ...
 *   npm run cli -- import <file.ndjson> --client <username>
 *   npm run cli -- rebuild [--client <username>]
 *   npm run cli -- connectors import <file.ndjson>
 *   npm run cli -- pushes stop --reason "..." | resume [--yes] | status
 *   npm run cli -- --stage <name> queues list | redrive <name> [--yes | --dry-run]
 *   npm run cli -- --stage <name> restore copy --from <restored table> [--client <username>]
 * Without a stage, DYNAMODB_ENDPOINT and TABLE_NAME aim it at another table.
 */
import { parseArgs } from 'node:util';
import { LOCAL_TABLE_NAME, TABLE_NAME_ENV } from '../../lambdas/config/table-schema.js';
import type { ClientsCliContext } from './clients-cli.js';
import { confirmByTyping } from './confirm.js';
import { extractStage } from './cli-args.js';
import { UsageError } from './usage-error.js';

/** Where a command's output goes and where its confirmations are typed. */
export interface CliIo {
  /** The command's result (tables, summaries). */
  readonly out: (text: string) => void;
  /** Progress, prompts and errors. */
  readonly err: (text: string) => void;
  /** What the operator types (a deletion's confirmation). */
  readonly input: NodeJS.ReadableStream;
}

export const USAGE = `Usage: npm run cli -- [--stage <name>] <command>
  clients create <username> [--password P] [--seller-id S] [--connector U]
                                             with --stage, also registers its API key in the usage plan
  clients list
  clients show <username>
  clients disable <username>                 refused from then on; with --stage, its API key is disabled
  clients enable <username>                  with --stage, its API key is (re)registered and enabled
  clients rotate-password <username>         prints a new password once
  clients delete <username> [--purge] [--yes] [--settle-seconds N]
                                             removes the account (and its API key); --purge deletes every
                                             item of its data too (passes until one finds nothing, at most
                                             N s apart); asks for the user name unless --yes
  import <file.ndjson> --client <username>   a client's products and offers
  connectors import <file.ndjson>            connector types (reference data for every client); the
                                             shipped ones: tools/admin/connector-types.ndjson
  rebuild [--client <username>]              re-derive lists and counts from canonical items
  pushes stop --reason "<why>"               stops every price push of the stage at once (pending
                                             changes wait, nothing is failed)
  pushes resume [--yes]                      lets them go again; asks to type "resume" unless --yes
  pushes status                              whether pushes are stopped, since when and why
  queues list                                with --stage: each dead-letter queue and its messages
  queues redrive <name> [--yes | --dry-run]  with --stage: moves a dead-letter queue's messages back to
                                             its queue; shows the counts, then asks to type "redrive"
                                             unless --yes (--dry-run only shows them)
  restore copy --from <table> [--client <username>] [--yes | --dry-run]
                                             copies a point-in-time restore's items (or one client's)
                                             back into the table; asks to type "copy" unless --yes

  --stage <name>   the deployed stack RepricerApi-<name>: its table, API and usage plan come from
                   the stack's outputs (AWS credentials and region from the environment)`;

/**
 * Must run before any module that builds the DynamoDB client is imported: the client reads
 * DYNAMODB_ENDPOINT when it is built.
 */
const configureEnvironment = async (stage: string | undefined, io: CliIo): Promise<ClientsCliContext['stage']> => {
  if (stage !== undefined) {
    const { describeStage } = await import('./stage.js');
    const { UsageKeys } = await import('./usage-keys.js');
    const targets = await describeStage(stage);
    process.env[TABLE_NAME_ENV] = targets.tableName;
    delete process.env.DYNAMODB_ENDPOINT;
    io.err(`Stage ${stage}: table ${targets.tableName}, API ${targets.apiId}, usage plan ${targets.usagePlanId}\n`);
    return { targets, keys: new UsageKeys({ stage, usagePlanId: targets.usagePlanId }) };
  }
  if (!process.env[TABLE_NAME_ENV]) {
    process.env[TABLE_NAME_ENV] = LOCAL_TABLE_NAME;
    process.env.DYNAMODB_ENDPOINT ??= `http://localhost:${process.env.DYNAMODB_PORT ?? '8000'}`;
  }
  process.env.AWS_REGION ??= 'local';
  return undefined;
};

/** A file validation refused (nothing written): its problems as they are on stderr, status 1. */
const refusalsAsStatus = async (io: CliIo, work: () => Promise<number>): Promise<number> => {
  // Loaded here, not at the top: import.js builds the DynamoDB client, after configureEnvironment.
  const { ImportValidationError } = await import('./import.js');
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ImportValidationError)) throw error;
    io.err(`${error.message}\n`);
    return 1;
  }
};

const importFile = async (args: string[], io: CliIo): Promise<number> => {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { client: { type: 'string' } } });
  const [file] = positionals;
  const username = values.client;
  if (!file || positionals.length !== 1 || !username) throw new UsageError('import needs <file.ndjson> and --client <username>');
  const { importRecords, readNdjson } = await import('./import.js');
  const records = await readNdjson(file);
  io.err(`Validating ${records.length} records from ${file}\n`);
  return refusalsAsStatus(io, async () => {
    const summary = await importRecords(records, {
      username,
      jobRecords: true,
      onProgress: (done, total) => io.err(`\r  offers ${done}/${total}`),
    });
    io.err('\n');
    const rate = summary.seconds > 0 ? Math.round((summary.offers + summary.unchangedOffers) / summary.seconds) : 0;
    io.out(
      `Imported for ${username}: ${summary.products} products and ` +
        `${summary.offers} offers written (${summary.unchangedOffers} offers unchanged) in ${summary.seconds.toFixed(1)} s, ${rate} offers/s\n` +
        `Import records: ${summary.jobs.map((job) => `${job.import_type} ${job.id}`).join(', ') || 'none'} (GET /v1/imports/{id})\n`,
    );
    return 0;
  });
};

const rebuild = async (args: string[], io: CliIo): Promise<number> => {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { client: { type: 'string' } } });
  if (positionals.length > 0) throw new UsageError('rebuild takes only --client <username>');
  const { describeProgress, rebuildAll, rebuildClient } = await import('./rebuild.js');
  const progress = (username: string) => (request: Parameters<typeof describeProgress>[0]) => io.err(`\r${username}: ${describeProgress(request)}\x1b[K`);
  if (values.client) {
    const result = await rebuildClient(values.client, progress(values.client));
    io.err('\n');
    if (result.status === 'failed') throw new Error(`Rebuild of ${values.client} failed`);
  } else {
    const count = await rebuildAll((username, request) => progress(username)(request));
    io.err(`\nRebuilt ${count} clients.\n`);
  }
  return 0;
};

/** Reference data: only this explicit operator command writes connector types. */
const importConnectors = async (args: string[], io: CliIo): Promise<number> => {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const [file] = positionals;
  if (!file || positionals.length !== 1) throw new UsageError('connectors import needs exactly one <file.ndjson>');
  const { importConnectorTypes, readNdjson } = await import('./import.js');
  const records = await readNdjson(file);
  io.err(`Validating ${records.length} connector types from ${file}\n`);
  return refusalsAsStatus(io, async () => {
    const summary = await importConnectorTypes(records);
    io.out(`Connector types: ${summary.connectorTypes} written, ${summary.unchangedConnectorTypes} unchanged, in ${summary.seconds.toFixed(1)} s\n`);
    return 0;
  });
};

const dispatch = async (args: readonly string[], io: CliIo): Promise<number> => {
  const { stage, rest: argv } = extractStage([...args]);
  const stageContext = await configureEnvironment(stage, io);
  const [command, subcommand, ...rest] = argv;
  if (command === 'clients') {
    const { runClientsCommand } = await import('./clients-cli.js');
    await runClientsCommand(subcommand, rest, {
      ...(stageContext ? { stage: stageContext } : {}),
      out: io.out,
      err: io.err,
      confirm: (prompt, expected) => confirmByTyping(prompt, expected, io.input, io.err),
    });
    return 0;
  }
  if (command === 'pushes') {
    const { runPushesCommand } = await import('./pushes.js');
    await runPushesCommand(subcommand, rest, {
      where: stage !== undefined ? `stage ${stage}` : 'the local table',
      out: io.out,
      err: io.err,
      confirm: (prompt, expected) => confirmByTyping(prompt, expected, io.input, io.err),
    });
    return 0;
  }
  if (command === 'queues') {
    if (stageContext === undefined) throw new UsageError('queues needs --stage <name>: under npm start the queues are in process');
    const [{ runQueuesCommand }, { SQSClient }] = await Promise.all([import('./queues.js'), import('@aws-sdk/client-sqs')]);
    await runQueuesCommand(subcommand, rest, {
      stage: stageContext.targets.stage,
      deadLetterQueues: stageContext.targets.deadLetterQueues,
      sqs: new SQSClient({}),
      out: io.out,
      err: io.err,
      confirm: (prompt, expected) => confirmByTyping(prompt, expected, io.input, io.err),
    });
    return 0;
  }
  if (command === 'restore') {
    const { runRestoreCommand } = await import('./restore.js');
    await runRestoreCommand(subcommand, rest, {
      where: stage !== undefined ? `stage ${stage}` : 'the local table',
      out: io.out,
      err: io.err,
      confirm: (prompt, expected) => confirmByTyping(prompt, expected, io.input, io.err),
    });
    return 0;
  }
  if (command === 'import') return importFile([subcommand ?? '', ...rest].filter(Boolean), io);
  if (command === 'rebuild') return rebuild([subcommand ?? '', ...rest].filter(Boolean), io);
  if (command === 'connectors' && subcommand === 'import') return importConnectors(rest, io);
  throw new UsageError(command ? `Unknown command: ${[command, subcommand].filter(Boolean).join(' ')}` : 'No command given');
};

/**
 * Runs one command line and resolves to its exit status: 0, 1 for a failure (its message on
 * `err`), 2 for a command line it cannot run (the usage on `err`). bin/cli.ts runs it on the
 * process's arguments and streams; tests run it in process.
 */
export const runCli = async (args: readonly string[], io: CliIo): Promise<number> => {
  try {
    return await dispatch(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    io.err(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
};
