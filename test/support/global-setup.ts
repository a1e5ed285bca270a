/**
 * The integration project's settings for every file. Each file starts a DynamoDB Local of its
 * own (test/support/dynamodb-environment.cjs); workers inherit what is set here.
 */
export default function globalSetup(): void {
  process.env.AWS_REGION = 'local';
  // A busy machine can pause a JVM for seconds under eight concurrent importers: give each
  // attempt 15 s rather than the deployed 1.2 s, which dynamodb-outage.test.ts checks on its own
  // instance (see REQUEST_TIMEOUT_ENV in lambdas/data/table/dynamo.ts).
  process.env.DYNAMODB_REQUEST_TIMEOUT_MS ??= '15000';
}
