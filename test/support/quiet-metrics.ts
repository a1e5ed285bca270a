/** Every handler invocation would print an EMF line; tests that assert metrics turn them on. */
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
