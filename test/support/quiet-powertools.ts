import './quiet-metrics.js';

/**
 * Powertools resets the log level at each invocation to the one it started with, so a level a
 * unit test sets lasts one call: start silent instead. Tests that assert logs raise it.
 */
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
