/** A command line the CLI cannot run: it prints the usage and exits with status 2. */
export class UsageError extends Error {}
