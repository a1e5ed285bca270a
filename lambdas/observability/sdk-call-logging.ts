/**
 * The AWS SDK's logger middleware copies every call's input and output, sensitive members
 * masked, for the client's logger, and does so even when that logger is the default one that
 * discards everything. No client is given a logger (the functions log what they do themselves),
 * so the copies are pure cost: about a thirtieth of the node CPU of a test file busy with
 * DynamoDB, and a like share of a function's billed time. The DynamoDB clients, which make nearly
 * every call (lambdas/data/table/dynamo.ts, and the local tools' DynamoDB and stream clients),
 * go without it. Nothing else about a call changes: errors, retries and tracing are other
 * middlewares.
 */
export const LOGGER_MIDDLEWARE = 'loggerMiddleware';

interface HasMiddlewareStack {
  readonly middlewareStack: { remove(name: string): boolean };
}

/** The client, without the SDK's per-call log copy. */
export const withoutCallLogging = <C extends HasMiddlewareStack>(client: C): C => {
  client.middlewareStack.remove(LOGGER_MIDDLEWARE);
  return client;
};
