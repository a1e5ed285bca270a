/**
 * The integration files' test environment: Node's, with a DynamoDB Local to work on, ready
 * before any of the file's modules load (the data layer builds its client, endpoint included,
 * on import). Its endpoint is DYNAMODB_ENDPOINT and its java process DYNAMODB_LOCAL_PID.
 *
 * The instance is the jest worker's, kept across the files the worker runs and replaced once it
 * holds too many stream records (test/support/dynamodb-workers.ts says why); each file works in
 * a table of its own on it. A file that freezes or stops its DynamoDB Local
 * (dynamodb-outage.test.ts) says so in its first comment, `@dynamodb-local own`, and gets one
 * of its own, stopped after its last hook. Every instance runs with the JVM options of a
 * short-lived one (SHORT_LIVED_JVM in tools/local/dynamodb-local.ts).
 *
 * The files also share worker processes (tools/test/jest.sh), so a file must stop what it
 * starts: a server or child process it leaves running fails it (`LEFT_RUNNING`), rather than
 * going on under the next file.
 *
 * CommonJS, as jest loads environments; tsx loads the TypeScript starter.
 */
const { setTimeout: sleep } = require('node:timers/promises');
const { TestEnvironment } = require('jest-environment-node');

/** Handles a file must not leave behind, as `process.getActiveResourcesInfo()` names them. */
const LEFT_RUNNING = ['TCPServerWrap', 'PipeServerWrap', 'ProcessWrap'];

const runningCounts = () => {
  const counts = Object.fromEntries(LEFT_RUNNING.map((kind) => [kind, 0]));
  for (const kind of process.getActiveResourcesInfo()) if (kind in counts) counts[kind] += 1;
  return counts;
};

/** A server's close and a child's exit may settle a tick after the last hook. */
const settleHandles = () => sleep(50);

class DynamoDbLocalEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.ownInstance = String(context.docblockPragmas?.['dynamodb-local'] ?? '').trim() === 'own';
  }

  async setup() {
    this.runningBefore = runningCounts();
    await super.setup();
    const { tsImport } = await import('tsx/esm/api');
    const { leaseInstance } = await tsImport('./dynamodb-workers.ts', __filename);
    this.dynamoDbLocal = await leaseInstance({ own: this.ownInstance });
    this.global.process.env.DYNAMODB_ENDPOINT = this.dynamoDbLocal.endpoint;
    this.global.process.env.DYNAMODB_LOCAL_PID = String(this.dynamoDbLocal.pid);
  }

  // Jest calls it again when it throws; the second call has nothing left to do.
  async teardown() {
    if (this.tornDown) return;
    this.tornDown = true;
    await this.dynamoDbLocal?.release();
    await super.teardown();
    await settleHandles();
    const after = runningCounts();
    const left = LEFT_RUNNING.filter((kind) => after[kind] > (this.runningBefore?.[kind] ?? 0)).map(
      (kind) => `${after[kind] - this.runningBefore[kind]} ${kind}`,
    );
    if (left.length > 0)
      throw new Error(`The file left running after its last hook: ${left.join(', ')}. Close its servers and stop its processes in afterAll.`);
  }
}

module.exports = DynamoDbLocalEnvironment;
