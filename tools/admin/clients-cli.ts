import { parseArgs } from 'node:util';
import {
  createClientCommand,
  deleteClientCommand,
  disableClientCommand,
  enableClientCommand,
  KeyRegistrationError,
  showClientCommand,
  type KeyOutcome,
} from './client-commands.js';
import { listClients, rotatePassword, type ClientSummary, type CreatedClientAccount } from './clients.js';
import { confirmByTyping } from './confirm.js';
import { DEFAULT_SETTLE_MS, LOCAL_SETTLE_MS } from './purge.js';
import type { StageTargets } from './stage.js';
import { UsageError } from './usage-error.js';
import type { UsageKeys } from './usage-keys.js';

/** `npm run cli -- clients <subcommand> ...`: parsing and output; the work is in ./client-commands.ts. */
export interface ClientsCliContext {
  /** Set with `--stage`: the deployed stage and its usage plan's keys. */
  readonly stage?: { readonly targets: StageTargets; readonly keys: UsageKeys };
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly confirm?: (prompt: string, expected: string) => Promise<boolean>;
}

const oneUsername = (command: string, positionals: readonly string[]): string => {
  const [username] = positionals;
  if (!username || positionals.length !== 1) throw new UsageError(`clients ${command} needs exactly one <username>`);
  return username;
};

const keyLine = (key: KeyOutcome, stage: string | undefined): string => {
  switch (key.kind) {
    case 'none':
      return '';
    case 'missing':
      return `  API key:           none found in stage ${stage ?? ''}\n`;
    default:
      return `  API key:           ${key.kind} in stage ${stage ?? ''}${key.id ? ` (id ${key.id})` : ''}\n`;
  }
};

const describe = (client: ClientSummary): string =>
  `${client.username}\n` +
  `  client id:         ${client.clientId}\n` +
  `  status:            ${client.enabled ? 'enabled' : 'disabled'}\n` +
  `  seller id:         ${client.sellerId}\n` +
  `  default connector: ${client.defaultConnector}\n` +
  `  usage key:         ${client.usageKey ?? 'none (`clients enable` with --stage gives it one)'}\n` +
  `  failed logins:     ${client.failedLogins}\n` +
  `  created:           ${client.createdAt}\n` +
  `  updated:           ${client.updatedAt}\n`;

const create = async (args: string[], context: ClientsCliContext): Promise<void> => {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { password: { type: 'string' }, 'seller-id': { type: 'string' }, connector: { type: 'string' } },
  });
  const username = oneUsername('create', positionals);
  const describeCreated = (account: CreatedClientAccount, key: KeyOutcome) =>
    `Created client ${account.username}\n  client id:         ${account.clientId}\n  seller id:         ${account.sellerId}\n  default connector: ${account.defaultConnector}\n` +
    (values.password ? '' : `  password:          ${account.password}\n  (shown once: it is stored only as a scrypt hash)\n`) +
    `  usage key:         ${account.usageKey}\n` +
    keyLine(key, context.stage?.targets.stage) +
    (context.stage?.targets.apiUrl ? `  API:               ${context.stage.targets.apiUrl}\n` : '');
  try {
    const { account, key } = await createClientCommand(
      {
        username,
        ...(values.password ? { password: values.password } : {}),
        ...(values['seller-id'] ? { sellerId: values['seller-id'] } : {}),
        ...(values.connector ? { connector: values.connector } : {}),
      },
      context.stage?.keys,
    );
    context.out(describeCreated(account, key));
  } catch (error) {
    // The account exists: its generated password must still be shown, or it is lost.
    if (error instanceof KeyRegistrationError) context.out(describeCreated(error.account, { kind: 'missing' }));
    throw error;
  }
};

const list = async (args: string[], context: ClientsCliContext): Promise<void> => {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  if (positionals.length > 0) throw new UsageError('clients list takes no arguments');
  const clients = await listClients();
  const rows = [
    ['USERNAME', 'STATUS', 'CLIENT ID', 'SELLER ID', 'CONNECTOR', 'CREATED'],
    ...clients.map((c) => [c.username, c.enabled ? 'enabled' : 'disabled', c.clientId, c.sellerId, c.defaultConnector, c.createdAt]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  context.out(
    rows
      .map((row) =>
        row
          .map((cell, column) => cell.padEnd(widths[column]!))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n',
  );
  context.err(`${clients.length} client${clients.length === 1 ? '' : 's'}\n`);
};

const show = async (args: string[], context: ClientsCliContext): Promise<void> => {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const { client, key } = await showClientCommand(oneUsername('show', positionals), context.stage?.keys);
  const keyState =
    key === undefined
      ? ''
      : `  API key:           ${key ? `${key.enabled ? 'enabled' : 'disabled'} (id ${key.id})` : 'not registered'} in stage ${context.stage?.targets.stage ?? ''}\n`;
  context.out(describe(client) + keyState);
};

const setStatus =
  (enabled: boolean) =>
  async (args: string[], context: ClientsCliContext): Promise<void> => {
    const command = enabled ? 'enable' : 'disable';
    const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
    const username = oneUsername(command, positionals);
    const key = await (enabled ? enableClientCommand : disableClientCommand)(username, context.stage?.keys);
    context.out(`Client ${username} ${command}d (cached authorizations end within 60 s)\n${keyLine(key, context.stage?.targets.stage)}`);
  };

const rotate = async (args: string[], context: ClientsCliContext): Promise<void> => {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const username = oneUsername('rotate-password', positionals);
  const password = await rotatePassword(username);
  context.out(`New password of ${username}: ${password}\n  (shown once: it is stored only as a scrypt hash; the old one stops working within 60 s)\n`);
};

const remove = async (args: string[], context: ClientsCliContext): Promise<void> => {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { purge: { type: 'boolean', default: false }, yes: { type: 'boolean', default: false }, 'settle-seconds': { type: 'string' } },
  });
  const username = oneUsername('delete', positionals);
  const settleSeconds = values['settle-seconds'] === undefined ? undefined : Number(values['settle-seconds']);
  if (settleSeconds !== undefined && !(Number.isFinite(settleSeconds) && settleSeconds >= 0))
    throw new UsageError('--settle-seconds takes a number of seconds >= 0');
  if (!values.yes) {
    const what = values.purge ? 'the client and every item of its data' : 'the client account (its data stays)';
    const where = context.stage ? `stage ${context.stage.targets.stage}` : 'the local table';
    const confirm = context.confirm ?? ((prompt, expected) => confirmByTyping(prompt, expected));
    if (!(await confirm(`This deletes ${what} from ${where}. Type the user name to confirm: `, username))) {
      throw new Error('Not confirmed: nothing was deleted');
    }
  }
  const deleted = await deleteClientCommand(username, context.stage?.keys, {
    purge: values.purge,
    settleMs: settleSeconds === undefined ? (context.stage ? DEFAULT_SETTLE_MS : LOCAL_SETTLE_MS) : settleSeconds * 1000,
    onProgress: ({ pass, scanned, deleted: count }) => context.err(`\rpurge pass ${pass}: ${scanned} items scanned, ${count} of the tenant deleted\x1b[K`),
  });
  if (deleted.purged) context.err('\n');
  context.out(
    `Deleted client ${username} (client id ${deleted.clientId})\n` +
      keyLine(deleted.key, context.stage?.targets.stage) +
      (deleted.purged
        ? `  purged: ${deleted.purged.deleted} items of the tenant in ${deleted.purged.passes} passes\n`
        : `  its data stays under T#${deleted.clientId}#\n`),
  );
};

const COMMANDS: Record<string, (args: string[], context: ClientsCliContext) => Promise<void>> = {
  create,
  list,
  show,
  disable: setStatus(false),
  enable: setStatus(true),
  'rotate-password': rotate,
  delete: remove,
};

export const runClientsCommand = async (subcommand: string | undefined, args: string[], context: ClientsCliContext): Promise<void> => {
  const command = subcommand !== undefined && Object.hasOwn(COMMANDS, subcommand) ? COMMANDS[subcommand] : undefined;
  if (!command) throw new UsageError(subcommand ? `Unknown command: clients ${subcommand}` : 'clients needs a command');
  await command(args, context);
};
