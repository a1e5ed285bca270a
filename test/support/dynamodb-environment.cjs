/**
 * The integration files' test environment: Node's, with a DynamoDB Local of the file's own,
 * started before any of the file's modules load (the data layer builds its client, endpoint
 * included, on import) and stopped after its last hook. Its endpoint is DYNAMODB_ENDPOINT and
 * its java process DYNAMODB_LOCAL_PID (dynamodb-outage.test.ts freezes it). It runs with the
 * JVM options of a short-lived instance (SHORT_LIVED_JVM in tools/local/dynamodb-local.ts).
 *
 * Why not one for the run: DynamoDB Local never forgets a stream record while it runs, not even
 * a deleted table's, and each GetRecords call costs more the more records it holds (about 1 ms
 * per 1,000 on this machine). A whole run's worth made every poll of every later file cost a
 * tenth of a second, on the one thread that does all of its SQLite work: files that take 25 s
 * alone took over 600 s late in a run. A fresh instance costs about 3 s to start.
 *
 * CommonJS, as jest loads environments; tsx loads the TypeScript starter.
 */
const { TestEnvironment } = require('jest-environment-node');

class DynamoDbLocalEnvironment extends TestEnvironment {
  async setup() {
    await super.setup();
    const { tsImport } = await import('tsx/esm/api');
    const { freePort, startDynamoDbLocal, SHORT_LIVED_JVM } = await tsImport('../../tools/local/dynamodb-local.ts', __filename);
    this.dynamoDbLocal = await startDynamoDbLocal({ port: await freePort(), jvmOptions: SHORT_LIVED_JVM });
    this.global.process.env.DYNAMODB_ENDPOINT = this.dynamoDbLocal.endpoint;
    this.global.process.env.DYNAMODB_LOCAL_PID = String(this.dynamoDbLocal.pid);
  }

  async teardown() {
    await this.dynamoDbLocal?.stop();
    await super.teardown();
  }
}

module.exports = DynamoDbLocalEnvironment;
