/**
 * The dead-letter redrive (tools/admin/queues.ts) against a mocked SQS: it shows the counts,
 * moves nothing without the typed confirmation or --yes, and then starts SQS's move task from the
 * dead-letter queue to the one queue that sends to it.
 */
import { Readable } from 'node:stream';
import {
  GetQueueAttributesCommand,
  ListDeadLetterSourceQueuesCommand,
  ListMessageMoveTasksCommand,
  SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { runCli } from '../../../tools/admin/cli.js';
import { confirmByTyping } from '../../../tools/admin/confirm.js';
import { parseDeadLetterQueues, runQueuesCommand, type QueuesCliContext } from '../../../tools/admin/queues.js';

const sqs = mockClient(SQSClient);
const cloudFormation = mockClient(CloudFormationClient);

const BASE = 'https://sqs.eu-west-1.amazonaws.com/123456789012';
const REPRICING_DLQ = `${BASE}/RepricerApi-prod-RepricingDeadLetters-A.fifo`;
const REPRICING = `${BASE}/RepricerApi-prod-RepricingQueue-B.fifo`;
const STREAM_FAILURES = `${BASE}/RepricerApi-prod-StreamFailures-C`;
const OUTPUT = `RepricingDeadLetters=${REPRICING_DLQ} StreamFailures=${STREAM_FAILURES}`;
const arnOf = (url: string) => `arn:aws:sqs:eu-west-1:123456789012:${url.slice(url.lastIndexOf('/') + 1)}`;

const counts: Record<string, [visible: number, inFlight: number]> = {};

beforeEach(() => {
  sqs.reset();
  counts[REPRICING_DLQ] = [7, 1];
  counts[REPRICING] = [2, 0];
  counts[STREAM_FAILURES] = [3, 0];
  sqs.on(GetQueueAttributesCommand).callsFake((input: { QueueUrl: string }) => {
    const [visible, inFlight] = counts[input.QueueUrl] ?? [0, 0];
    return {
      Attributes: { QueueArn: arnOf(input.QueueUrl), ApproximateNumberOfMessages: String(visible), ApproximateNumberOfMessagesNotVisible: String(inFlight) },
    };
  });
  sqs.on(ListDeadLetterSourceQueuesCommand, { QueueUrl: REPRICING_DLQ }).resolves({ queueUrls: [REPRICING] });
  sqs.on(ListDeadLetterSourceQueuesCommand, { QueueUrl: STREAM_FAILURES }).resolves({ queueUrls: [] });
  sqs.on(ListMessageMoveTasksCommand).resolves({ Results: [] });
  sqs.on(StartMessageMoveTaskCommand).resolves({ TaskHandle: 'task-1' });
});

const run = async (args: string[], typed = '') => {
  let stdout = '';
  const context: QueuesCliContext = {
    stage: 'prod',
    deadLetterQueues: OUTPUT,
    sqs: new SQSClient({ region: 'eu-west-1' }),
    out: (text) => (stdout += text),
    err: () => undefined,
    confirm: (prompt, expected) => confirmByTyping(prompt, expected, Readable.from([typed]), () => undefined),
  };
  const [subcommand, ...rest] = args;
  await runQueuesCommand(subcommand, rest, context);
  return stdout;
};

const moves = () => sqs.commandCalls(StartMessageMoveTaskCommand).map((call) => call.args[0].input);

describe('queues redrive', () => {
  it('shows the counts of the dead-letter queue and its source and moves nothing when the confirmation is not typed', async () => {
    // Act
    const out = await run(['redrive', 'RepricingDeadLetters'], 'yes\n');

    // Assess
    expect(out).toContain('RepricingDeadLetters on stage prod: 7 messages (1 in flight)');
    expect(out).toContain('redrive to RepricerApi-prod-RepricingQueue-B.fifo: 2 messages waiting');
    expect(out).toContain('Not confirmed: nothing moved.');
    expect(moves()).toEqual([]);
  });

  it('moves nothing with --dry-run, and does not ask', async () => {
    const out = await run(['redrive', 'Repricing', '--dry-run'], 'redrive\n');

    expect(out).toContain('7 messages');
    expect(out).toContain('Dry run: nothing moved.');
    expect(moves()).toEqual([]);
  });

  it.each([
    ['the typed confirmation', [] as string[], 'redrive\n'],
    ['--yes', ['--yes'], ''],
  ])('starts a move task from the dead-letter queue to its source queue on %s', async (_, flags, typed) => {
    // Act
    const out = await run(['redrive', 'Repricing', ...flags], typed);

    // Assess
    expect(moves()).toEqual([{ SourceArn: arnOf(REPRICING_DLQ), DestinationArn: arnOf(REPRICING) }]);
    expect(out).toContain('Redrive started (task task-1)');
  });

  it('starts nothing while a move task is running, or when the queue is empty', async () => {
    // Prepare
    sqs
      .on(ListMessageMoveTasksCommand)
      .resolves({ Results: [{ Status: 'RUNNING', ApproximateNumberOfMessagesMoved: 3, ApproximateNumberOfMessagesToMove: 7 }] });

    // Act
    const running = await run(['redrive', 'Repricing', '--yes']);
    sqs.on(ListMessageMoveTasksCommand).resolves({ Results: [] });
    counts[REPRICING_DLQ] = [0, 0];
    const empty = await run(['redrive', 'Repricing', '--yes']);

    // Assess
    expect(running).toContain('A redrive is already running: 3 of 7 moved. Nothing started.');
    expect(empty).toContain('Nothing to redrive.');
    expect(moves()).toEqual([]);
  });

  it('refuses a dead-letter queue no queue sends to (the stream failures), and an unknown name', async () => {
    await expect(run(['redrive', 'StreamFailures', '--yes'])).rejects.toThrow('StreamFailures is the dead-letter queue of no queue: nothing to redrive it to');
    await expect(run(['redrive', 'Nope'])).rejects.toThrow('No dead-letter queue named Nope: one of RepricingDeadLetters, StreamFailures');
    expect(moves()).toEqual([]);
  });
});

describe('queues list', () => {
  it('counts every dead-letter queue of the stage', async () => {
    const out = await run(['list']);

    expect(out).toMatch(/RepricingDeadLetters +7 +1\n/);
    expect(out).toMatch(/StreamFailures +3 +0\n/);
  });
});

describe('the stack output the CLI reads', () => {
  it('asks for a redeploy when the stage predates it', () => {
    expect(() => parseDeadLetterQueues(undefined, 'prod')).toThrow('deploy the current version');
    expect([...parseDeadLetterQueues(OUTPUT, 'prod').keys()]).toEqual(['RepricingDeadLetters', 'StreamFailures']);
  });

  it('runs only against a stage, reading the queues from its stack', async () => {
    // Prepare
    cloudFormation.reset();
    cloudFormation.on(DescribeStacksCommand).resolves({
      Stacks: [
        {
          StackName: 'RepricerApi-prod',
          StackStatus: 'UPDATE_COMPLETE',
          CreationTime: new Date(),
          Outputs: Object.entries({ TableName: 'T', ApiId: 'a', UsagePlanId: 'u', DeadLetterQueues: OUTPUT }).map(([OutputKey, OutputValue]) => ({
            OutputKey,
            OutputValue,
          })),
        },
      ],
    });
    const before = { ...process.env };
    let stdout = '';
    let stderr = '';
    const io = { out: (text: string) => (stdout += text), err: (text: string) => (stderr += text), input: Readable.from(['']) };

    try {
      // Act
      const local = await runCli(['queues', 'list'], io);
      const staged = await runCli(['--stage', 'prod', 'queues', 'redrive', 'Repricing'], io);

      // Assess
      expect(local).toBe(2);
      expect(stderr).toContain('queues needs --stage <name>');
      expect(staged).toBe(0);
      expect(stdout).toContain('RepricingDeadLetters on stage prod: 7 messages');
      expect(stdout).toContain('Not confirmed: nothing moved.');
      expect(moves()).toEqual([]);
    } finally {
      process.env = before;
    }
  });
});
