import { jest } from '@jest/globals';
import { startEventRuntime, type EventRuntime } from '../../../tools/local/event-runtime.js';
import { fakeStream, type FakeStream } from './fake-stream.js';

/**
 * The event runtime's market clock, on a stream in memory (fake-stream.ts). What a tick does is
 * the schedule's business (its own tests); here: who ticks, and that stop() ends it.
 */
let stream: FakeStream;
let runtime: EventRuntime | undefined;

jest.setTimeout(30_000);

beforeEach(() => {
  stream = fakeStream();
  stream.addShard('shard-a');
});

afterEach(async () => {
  await runtime?.stop();
  runtime = undefined;
  stream.restore();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const until = async (condition: () => boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(5);
  }
};

const start = async (market: { tickMs?: number }) => {
  const invoked: string[] = [];
  runtime = await startEventRuntime({
    endpoint: 'http://localhost:1',
    tableName: 'fake',
    market,
    onInvoke: (name) => invoked.push(name),
    // A tick against this fake table fails; that it ran is what counts here.
    onError: () => undefined,
  });
  return { runtime, schedules: () => invoked.filter((name) => name === 'market-schedule').length };
};

describe('the event runtime’s market clock', () => {
  it('ticks every tickMs once started, and never after stop()', async () => {
    // Prepare
    const { runtime: started, schedules } = await start({ tickMs: 10 });

    // Act
    await until(() => schedules() >= 2);
    await started.stop();
    runtime = undefined;
    const atStop = schedules();
    await sleep(60);

    // Assert
    expect(schedules()).toBe(atStop);
  });

  it('ticks only when asked without tickMs: tickMarket runs the schedule once', async () => {
    // Prepare
    const { runtime: started, schedules } = await start({});
    await sleep(40);
    expect(schedules()).toBe(0);

    // Act
    await started.tickMarket('2026-11-25T17:00:00.000Z').catch(() => undefined);

    // Assert
    expect(schedules()).toBe(1);
  });
});
