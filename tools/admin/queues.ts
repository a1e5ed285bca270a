import {
  GetQueueAttributesCommand,
  ListDeadLetterSourceQueuesCommand,
  ListMessageMoveTasksCommand,
  StartMessageMoveTaskCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { parseArgs } from 'node:util';
import { UsageError } from './usage-error.js';

/**
 * `npm run cli -- --stage <name> queues list|redrive`: a deployed stage's dead-letter queues, by
 * the names their alarms carry (`<name>DeadLettersDepth`, docs/operations.md). A redrive moves a
 * dead-letter queue's messages back to the queue they came from with SQS's own message move task
 * (StartMessageMoveTask): SQS moves them in order, and a message that fails again comes back here.
 * It shows the counts first and moves nothing unless the operator types `redrive` or gives
 * `--yes`; `--dry-run` only shows them.
 */
export interface QueuesCliContext {
  readonly stage: string;
  /** The stack's `DeadLetterQueues` output: `<name>=<queue url>` pairs (lib/repricer-stack.ts). */
  readonly deadLetterQueues: string | undefined;
  readonly sqs: SQSClient;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly confirm: (prompt: string, expected: string) => Promise<boolean>;
}

/** The typed word that confirms a redrive. */
export const REDRIVE_CONFIRMATION = 'redrive';

/** The dead-letter queues by name, as the stack's output lists them. */
export const parseDeadLetterQueues = (output: string | undefined, stage: string): Map<string, string> => {
  if (output === undefined || output.trim() === '')
    throw new Error(
      `Stage ${stage} does not list its dead-letter queues (output DeadLetterQueues): deploy the current version (\`npx cdk deploy -c stage=${stage}\`)`,
    );
  return new Map(
    output
      .trim()
      .split(/\s+/)
      .map((pair) => {
        const at = pair.indexOf('=');
        if (at <= 0) throw new Error(`Unreadable DeadLetterQueues output entry: ${pair}`);
        return [pair.slice(0, at), pair.slice(at + 1)] as const;
      }),
  );
};

const queueNameOf = (url: string): string => url.slice(url.lastIndexOf('/') + 1);

interface QueueCounts {
  readonly arn: string;
  /** Messages waiting to be received. */
  readonly visible: number;
  /** Received and not yet deleted (a consumer has them, or a move task is moving them). */
  readonly inFlight: number;
}

const countsOf = async (sqs: SQSClient, url: string): Promise<QueueCounts> => {
  const { Attributes: attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn', 'ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  );
  return {
    arn: attributes.QueueArn ?? '',
    visible: Number(attributes.ApproximateNumberOfMessages ?? 0),
    inFlight: Number(attributes.ApproximateNumberOfMessagesNotVisible ?? 0),
  };
};

/** The name as given, or with `DeadLetters` added: `Repricing` and `RepricingDeadLetters` are the same queue. */
const chooseQueue = (queues: ReadonlyMap<string, string>, name: string | undefined): [string, string] => {
  const names = [...queues.keys()].join(', ');
  if (name === undefined) throw new UsageError(`queues redrive needs a dead-letter queue: one of ${names}`);
  for (const candidate of [name, `${name}DeadLetters`]) {
    const url = queues.get(candidate);
    if (url !== undefined) return [candidate, url];
  }
  throw new UsageError(`No dead-letter queue named ${name}: one of ${names}`);
};

const list = async (args: string[], context: QueuesCliContext): Promise<void> => {
  if (args.length > 0) throw new UsageError('queues list takes no arguments');
  const queues = parseDeadLetterQueues(context.deadLetterQueues, context.stage);
  const rows = await Promise.all(
    [...queues].map(async ([name, url]) => {
      const counts = await countsOf(context.sqs, url);
      return `${name.padEnd(24)} ${String(counts.visible).padStart(8)} ${String(counts.inFlight).padStart(10)}`;
    }),
  );
  context.out(`${'Dead-letter queue'.padEnd(24)} ${'messages'.padStart(8)} ${'in flight'.padStart(10)}\n${rows.join('\n')}\n`);
};

const redrive = async (args: string[], context: QueuesCliContext): Promise<void> => {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { yes: { type: 'boolean', default: false }, 'dry-run': { type: 'boolean', default: false } },
  });
  if (positionals.length > 1) throw new UsageError('queues redrive takes one dead-letter queue name');
  if (values.yes && values['dry-run']) throw new UsageError('queues redrive takes --yes or --dry-run, not both');
  const [name, url] = chooseQueue(parseDeadLetterQueues(context.deadLetterQueues, context.stage), positionals[0]);
  const { sqs } = context;

  const { queueUrls = [] } = await sqs.send(new ListDeadLetterSourceQueuesCommand({ QueueUrl: url }));
  if (queueUrls.length !== 1) {
    // StreamFailures is the stream's failure destination: its messages say which records failed, and no queue sends them.
    throw new Error(
      `${name} is the dead-letter queue of ${queueUrls.length === 0 ? 'no queue' : `${queueUrls.length} queues`}: nothing to redrive it to (docs/operations.md, its runbook entry)`,
    );
  }
  const sourceUrl = queueUrls[0]!;
  const [dead, source] = await Promise.all([countsOf(sqs, url), countsOf(sqs, sourceUrl)]);
  context.out(
    `${name} on stage ${context.stage}: ${dead.visible} messages (${dead.inFlight} in flight)\n` +
      `  redrive to ${queueNameOf(sourceUrl)}: ${source.visible} messages waiting (${source.inFlight} in flight)\n`,
  );

  const { Results: tasks = [] } = await sqs.send(new ListMessageMoveTasksCommand({ SourceArn: dead.arn, MaxResults: 1 }));
  const latest = tasks[0];
  if (latest?.Status === 'RUNNING') {
    context.out(
      `A redrive is already running: ${latest.ApproximateNumberOfMessagesMoved ?? 0} of ${latest.ApproximateNumberOfMessagesToMove ?? '?'} moved. Nothing started.\n`,
    );
    return;
  }
  if (latest !== undefined)
    context.out(
      `  last redrive: ${latest.Status ?? 'unknown'}, ${latest.ApproximateNumberOfMessagesMoved ?? 0} moved${latest.FailureReason ? ` (${latest.FailureReason})` : ''}\n`,
    );
  if (dead.visible === 0) {
    context.out('Nothing to redrive.\n');
    return;
  }
  if (values['dry-run']) {
    context.out('Dry run: nothing moved.\n');
    return;
  }
  if (
    !values.yes &&
    !(await context.confirm(
      `Move ${dead.visible} messages from ${name} back to ${queueNameOf(sourceUrl)}? Type "${REDRIVE_CONFIRMATION}" to confirm: `,
      REDRIVE_CONFIRMATION,
    ))
  ) {
    context.out('Not confirmed: nothing moved.\n');
    return;
  }
  const started = await sqs.send(new StartMessageMoveTaskCommand({ SourceArn: dead.arn, DestinationArn: source.arn }));
  context.out(
    `Redrive started (task ${started.TaskHandle ?? 'unknown'}): SQS moves the messages back to ${queueNameOf(sourceUrl)}.\n` +
      `  Run \`npm run cli -- --stage ${context.stage} queues list\` to watch ${name} empty.\n`,
  );
};

const COMMANDS: Readonly<Record<string, (args: string[], context: QueuesCliContext) => Promise<void>>> = { list, redrive };

export const runQueuesCommand = async (subcommand: string | undefined, args: string[], context: QueuesCliContext): Promise<void> => {
  const command = subcommand !== undefined && Object.hasOwn(COMMANDS, subcommand) ? COMMANDS[subcommand] : undefined;
  if (!command) throw new UsageError(subcommand ? `Unknown command: queues ${subcommand}` : 'queues needs a command');
  await command(args, context);
};
