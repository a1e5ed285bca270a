/**
 * The operator's stop of every push (tools/admin/pushes.ts) against an in-memory table: the CLI
 * sets and lifts the one stage item the sender reads, asks before resuming, and refuses a stop
 * without a reason.
 */
import { Readable } from 'node:stream';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { pushesStopped, readPushStop } from '../../../lambdas/data/connections/push-stop.js';
import { pushStopKey } from '../../../lambdas/data/table/keys.js';
import { runCli } from '../../../tools/admin/cli.js';
import { FakeTable, TABLE } from '../data/fake-table.js';

const ddb = mockClient(DynamoDBDocumentClient);
let table: FakeTable;

const run = async (args: readonly string[], typed = '') => {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { out: (text) => (stdout += text), err: (text) => (stderr += text), input: Readable.from([typed]) });
  return { code, stdout, stderr };
};

const before = { ...process.env };
beforeEach(() => {
  process.env.TABLE_NAME = TABLE;
  ddb.reset();
  table = new FakeTable().serve(ddb);
});
afterEach(() => {
  process.env = { ...before };
});

describe('pushes stop | resume | status', () => {
  it('stops every push with the reason, in the one stage item the sender reads, and says so', async () => {
    expect(await pushesStopped()).toBe(false);
    expect((await run(['pushes', 'status'])).stdout).toContain('running (never stopped)');

    const stopped = await run(['pushes', 'stop', '--reason', 'marketplace incident 42']);

    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain('Stopped every price push on the local table');
    expect(await pushesStopped()).toBe(true);
    expect(table.get(pushStopKey())).toMatchObject({ entity: 'pushStop', stopped: true, reason: 'marketplace incident 42' });
    const status = await run(['pushes', 'status']);
    expect(status.stdout).toMatch(/STOPPED since .*\n {2}reason: marketplace incident 42/);
  });

  it('keeps when a stop began when it is stopped again with another reason', async () => {
    await run(['pushes', 'stop', '--reason', 'first']);
    const first = await readPushStop();
    await run(['pushes', 'stop', '--reason', 'second']);
    expect(await readPushStop()).toMatchObject({ stopped: true, reason: 'second', stoppedAt: first!.stoppedAt });
  });

  it('resumes only once the operator types "resume" (or with --yes)', async () => {
    await run(['pushes', 'stop', '--reason', 'incident']);

    const refused = await run(['pushes', 'resume'], 'yes\n');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Not confirmed: pushes stay stopped');
    expect(await pushesStopped()).toBe(true);

    const typed = await run(['pushes', 'resume'], 'resume\n');
    expect(typed.code).toBe(0);
    expect(typed.stderr).toContain('Type "resume" to confirm');
    expect(await pushesStopped()).toBe(false);
    expect((await run(['pushes', 'status'])).stdout).toMatch(/running \(resumed .*; last stopped .*: incident\)/);

    await run(['pushes', 'stop', '--reason', 'again']);
    expect((await run(['pushes', 'resume', '--yes'])).code).toBe(0);
    expect(await pushesStopped()).toBe(false);
  });

  it('says there is nothing to resume when pushes are not stopped, and writes nothing', async () => {
    const result = await run(['pushes', 'resume', '--yes']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('nothing to resume');
    expect(table.get(pushStopKey())).toBeUndefined();
  });

  it.each([
    [['pushes'], 'pushes needs a command'],
    [['pushes', 'halt'], 'Unknown command: pushes halt'],
    [['pushes', 'stop'], 'pushes stop needs --reason'],
    [['pushes', 'stop', '--reason', '   '], 'pushes stop needs --reason'],
    [['pushes', 'status', 'now'], 'pushes status takes no arguments'],
  ])('answers %j with status 2 and the usage, changing nothing', async (args, reason) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(reason);
    expect(result.stderr).toContain('pushes stop --reason');
    expect(table.get(pushStopKey())).toBeUndefined();
  });
});
