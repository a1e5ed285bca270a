/**
 * The X-Ray SDK, which the Powertools tracer loads even where tracing is off (outside Lambda),
 * keeps its context in `cls-hooked` unless told otherwise: an async hook with a destroy hook on
 * every promise of the process, and one more for every test file that loads the SDK into its own
 * module registry (each is enabled, none disabled), so they add up in a long-lived worker.
 * Manual mode creates no such context; nothing in the tests traces.
 * The CLI processes a test starts inherit it. About a tenth of an integration file's CPU.
 */
process.env.AWS_XRAY_MANUAL_MODE ??= '1';
