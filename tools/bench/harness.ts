import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EventRuntime } from '../local/event-runtime.js';
import type { StartingPosition } from '../local/shard-reader.js';
import { instrument, type Instrument, type ReadTally } from './instrument.js';
import { WriteMeter, type WriteTally } from './write-meter.js';

/**
 * One measured operation: it runs, then the change stream is settled (every listing and count
 * it causes is written), and what it wrote and read meanwhile, whoever did it (the operation
 * itself or the list maintainer), is counted.
 */
export interface Measured<T> {
  readonly result: T;
  /** Until the operation returned. */
  readonly operationMs: number;
  /** Until the stream was settled: listed and counted. */
  readonly settledMs: number;
  readonly writes: WriteTally;
  readonly reads: ReadTally;
  /** Conditional writes refused meanwhile. */
  readonly refused: number;
}

export interface Harness {
  readonly instrument: Instrument;
  readonly meter: WriteMeter;
  measure<T>(operation: () => Promise<T>, options?: { readonly progress?: (elapsedMs: number) => void }): Promise<Measured<T>>;
  settle(): Promise<void>;
  /**
   * Runs `work` with the event runtime stopped (settled first, started again from the stream's
   * tip afterwards): read latencies measured without the stream poller's traffic beside them.
   * `work` must not write.
   */
  withoutRuntime<T>(work: () => Promise<T>): Promise<T>;
  /** Messages the maintainer gave up on and stream records the forwarder did, since the harness started. */
  failures(): number;
  stop(): Promise<void>;
}

export const createHarness = async (
  client: DynamoDBDocumentClient,
  startRuntime: (options: { readonly onRecords: WriteMeter['onRecords']; readonly startingPosition: StartingPosition }) => Promise<EventRuntime>,
  startingPosition: StartingPosition,
): Promise<Harness> => {
  const meter = new WriteMeter();
  const tools = instrument(client);
  tools.onTransaction = (keys) => meter.noteTransaction(keys);
  let runtime: EventRuntime | undefined = await startRuntime({ onRecords: meter.onRecords, startingPosition });
  let earlierFailures = 0;
  const running = () => {
    if (!runtime) throw new Error('The event runtime is not running');
    return runtime;
  };
  const harness: Harness = {
    instrument: tools,
    meter,
    async settle() {
      await running().settle();
    },
    async withoutRuntime(work) {
      await harness.settle();
      earlierFailures += running().failures().length;
      await running().stop();
      runtime = undefined;
      try {
        return await work();
      } finally {
        runtime = await startRuntime({ onRecords: meter.onRecords, startingPosition: 'LATEST' });
      }
    },
    failures: () => earlierFailures + (runtime?.failures().length ?? 0),
    async stop() {
      earlierFailures += runtime?.failures().length ?? 0;
      await runtime?.stop();
      runtime = undefined;
    },
    async measure(operation, options = {}) {
      // Start from a quiet table: nothing of an earlier operation is counted here.
      await harness.settle();
      meter.begin();
      tools.beginReads();
      const refused = tools.refused;
      const started = performance.now();
      const ticker = options.progress ? setInterval(() => options.progress!(performance.now() - started), 10_000) : undefined;
      try {
        const result = await operation();
        const operationMs = performance.now() - started;
        await harness.settle();
        const settledMs = performance.now() - started;
        return { result, operationMs, settledMs, writes: meter.end(), reads: tools.endReads(), refused: tools.refused - refused };
      } catch (error) {
        meter.end();
        tools.endReads();
        throw error;
      } finally {
        if (ticker) clearInterval(ticker);
      }
    },
  };
  return harness;
};
