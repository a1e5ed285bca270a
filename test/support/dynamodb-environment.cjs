/**
 * The integration files' test environment: Node's, with a DynamoDB Local to work on, ready
 * before any of the file's modules load (the data layer builds its client, endpoint included,
 * on import). Its endpoint is DYNAMODB_ENDPOINT and its java process DYNAMODB_LOCAL_PID.
 *
 * The instance is the jest worker's, kept across the files the worker runs and replaced after a
 * few (test/support/dynamodb-workers.ts says why and when); each file works in a table of its
 * own on it. A file that freezes or stops its DynamoDB Local (dynamodb-outage.test.ts) says so
 * in its first comment, `@dynamodb-local own`, and gets one of its own, stopped after its last
 * hook. Every instance runs with the JVM options of a short-lived one (SHORT_LIVED_JVM in
 * tools/local/dynamodb-local.ts).
 *
 * CommonJS, as jest loads environments; tsx loads the TypeScript starter.
 */
const { TestEnvironment } = require('jest-environment-node');

class DynamoDbLocalEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.ownInstance = String(context.docblockPragmas?.['dynamodb-local'] ?? '').trim() === 'own';
  }

  async setup() {
    await super.setup();
    this.started = Date.now();
    const { tsImport } = await import('tsx/esm/api');
    const { leaseInstance } = await tsImport('./dynamodb-workers.ts', __filename);
    this.dynamoDbLocal = await leaseInstance({ own: this.ownInstance });
    this.global.process.env.DYNAMODB_ENDPOINT = this.dynamoDbLocal.endpoint;
    this.global.process.env.DYNAMODB_LOCAL_PID = String(this.dynamoDbLocal.pid);
  }

  async teardown() {
    await this.dynamoDbLocal?.release((Date.now() - this.started) / 1000);
    await super.teardown();
  }
}

module.exports = DynamoDbLocalEnvironment;
