import { parseArgs } from 'node:util';
import { readPushStop, resumePushes, stopPushes, type PushStop } from '../../lambdas/data/connections/push-stop.js';
import { toStorableText } from '../../lambdas/domain/text.js';
import { UsageError } from './usage-error.js';

/**
 * `npm run cli -- pushes stop|resume|status`: the operator's stop of every price push of a stage
 * (lambdas/data/connections/push-stop.ts, docs/administration.md). Stopping takes effect at the
 * sender's next look at a connection and asks nothing (it is the safe direction); resuming lets
 * every pending change go and asks the operator to type `resume` unless `--yes`.
 */
export interface PushesCliContext {
  /** Where it runs, for the prompt and the lines printed: `stage <name>` or `the local table`. */
  readonly where: string;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly confirm: (prompt: string, expected: string) => Promise<boolean>;
}

/** A reason is shown in the status and logged: kept to one storable line. */
const MAX_REASON_LENGTH = 200;

const describe = (stop: PushStop | undefined): string => {
  if (!stop) return 'Pushes: running (never stopped)\n';
  if (stop.stopped) return `Pushes: STOPPED since ${stop.stoppedAt}\n  reason: ${stop.reason}\n`;
  return `Pushes: running (resumed ${stop.changedAt}; last stopped ${stop.stoppedAt}: ${stop.reason})\n`;
};

const stop = async (args: string[], context: PushesCliContext): Promise<void> => {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { reason: { type: 'string' } } });
  const reason = values.reason?.trim();
  if (positionals.length > 0 || !reason) throw new UsageError('pushes stop needs --reason "<why>" and nothing else');
  const stopped = await stopPushes(toStorableText(reason, MAX_REASON_LENGTH));
  context.out(
    `Stopped every price push on ${context.where}.\n` +
      `  Pending changes stay pending and go once pushes are resumed (npm run cli -- pushes resume).\n` +
      describe(stopped),
  );
};

const resume = async (args: string[], context: PushesCliContext): Promise<void> => {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { yes: { type: 'boolean', default: false } } });
  if (positionals.length > 0) throw new UsageError('pushes resume takes only --yes');
  const current = await readPushStop();
  if (!current?.stopped) {
    context.out(`Pushes are not stopped on ${context.where}: nothing to resume.\n`);
    return;
  }
  if (!values.yes && !(await context.confirm(`Pending price changes on ${context.where} will be sent again. Type "resume" to confirm: `, 'resume'))) {
    throw new Error('Not confirmed: pushes stay stopped');
  }
  const resumed = await resumePushes();
  context.out(`Resumed price pushes on ${context.where}: pending changes go at the sender's next sweep (within a minute).\n${describe(resumed)}`);
};

const status = async (args: string[], context: PushesCliContext): Promise<void> => {
  if (args.length > 0) throw new UsageError('pushes status takes no arguments');
  context.out(describe(await readPushStop()));
};

const COMMANDS: Readonly<Record<string, (args: string[], context: PushesCliContext) => Promise<void>>> = { stop, resume, status };

export const runPushesCommand = async (subcommand: string | undefined, args: string[], context: PushesCliContext): Promise<void> => {
  const command = subcommand !== undefined && Object.hasOwn(COMMANDS, subcommand) ? COMMANDS[subcommand] : undefined;
  if (!command) throw new UsageError(subcommand ? `Unknown command: pushes ${subcommand}` : 'pushes needs a command');
  await command(args, context);
};
