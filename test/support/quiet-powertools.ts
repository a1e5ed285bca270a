import './quiet-metrics.js';

/**
 * Powertools resets the log level at each invocation to the one it started with, so a level a
 * unit test sets lasts one call: start silent instead. Tests that assert logs raise it.
 */
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';

/**
 * Unit tests check the deployed configuration. `npm test` runs the integration project's global
 * setup in the parent process, whose environment every worker inherits: drop the longer
 * per-attempt DynamoDB timeout it sets for the shared DynamoDB Local.
 */
delete process.env.DYNAMODB_REQUEST_TIMEOUT_MS;
