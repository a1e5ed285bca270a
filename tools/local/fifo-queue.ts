/**
 * An in-memory SQS FIFO queue driving a Lambda handler as Lambda's SQS event source mapping
 * does (with `ReportBatchItemFailures`), for `npm start` and the integration tests.
 *
 * As on AWS: the `SQSEvent` shape, batches that mix message groups (as many messages of the
 * group whose next message is oldest as fit, then the next group's, each group's in order), a
 * group never in two batches at once, deduplication within the window, receive counts, the
 * messages of a batch's groups with no failure reported deleted, and the dead letters after
 * `maxReceiveCount` deliveries (the messages that go back with a failed one count their
 * deliveries too, so a poison message takes those of its group batched behind it along, as on SQS).
 *
 * Different, on purpose:
 * - a failed message and every later message of its group in the batch go back to the queue,
 *   even those the handler did not report. AWS would delete those, breaking the group's order,
 *   so a FIFO consumer must report them itself (Powertools' FIFO processor does): this queue
 *   does not catch a consumer that forgets, its unit tests must;
 * - a message past `maxReceiveCount` moves to the dead letters as its delivery fails, without
 *   waiting for another visibility timeout;
 * - deduplication is per queue (SQS's default scope).
 * As on AWS, a body of characters SQS does not carry, or over 256 KiB, is refused (fifo-messages.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { reportedFailures, reportedItemError, thrownError, type ReportedFailures } from './batch-failures.js';
import {
  FifoQueueError,
  formatSequenceNumber,
  md5Hex,
  queueArn,
  toSqsRecord,
  validateEntries,
  type FifoSendEntry,
  type StoredMessage,
} from './fifo-messages.js';
import { localLambdaContext } from './lambda-context.js';
import { isJumpingClock, type Clock } from './clock.js';
import { installedClock } from '../../lambdas/config/clock.js';

export { FifoQueueError, MAX_SEND_ENTRIES, type FifoSendEntry } from './fifo-messages.js';

export type QueueHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

export interface FifoQueueOptions {
  /** A FIFO queue's name ends with `.fifo`. */
  readonly name: string;
  readonly handler: QueueHandler;
  /** Messages per invocation at most (1-10 for a FIFO queue). */
  readonly batchSize?: number;
  /** Deliveries of a message before it moves to the dead letters (the redrive policy's). */
  readonly maxReceiveCount?: number;
  /** How long a failed message stays invisible, holding up its group, before it is delivered again. */
  readonly visibilityTimeoutMs?: number;
  /** A message whose deduplication id was sent within this window is accepted but not enqueued. */
  readonly deduplicationWindowMs?: number;
  /** Batches in flight at once (a group is in one of them at most). */
  readonly maxConcurrency?: number;
  /** The `functionName` of the context handed to the handler. */
  readonly functionName?: string;
  readonly onDeadLetter?: (letter: DeadLetter) => void | Promise<void>;
  /** Errors of the queue itself (a failing `onDeadLetter`); delivery goes on. */
  readonly onError?: (error: Error) => void;
  /**
   * The time of visibility timeouts, deduplication and message timestamps (the installed clock by
   * default). A clock that jumps forward makes the messages it made visible deliverable at once.
   */
  readonly clock?: Clock;
}

export interface FifoSendResult {
  readonly id: string;
  readonly messageId: string;
  readonly sequenceNumber: string;
  readonly md5OfMessageBody: string;
  /** Deduplicated: accepted but not enqueued; the ids are the first message's (local-only field). */
  readonly duplicate: boolean;
}

export interface DeadLetter {
  /** The message as its last delivery showed it. */
  readonly record: SQSRecord;
  /** Why that delivery failed. */
  readonly error: Error;
}

export interface LocalFifoQueue {
  readonly name: string;
  readonly arn: string;
  /** SendMessageBatch: at most 10 entries, as on AWS; an invalid call throws and enqueues nothing. */
  send(entries: readonly FifoSendEntry[]): Promise<FifoSendResult[]>;
  /** Resolves once nothing is queued, in flight or waiting to be retried. */
  settle(): Promise<void>;
  /** Delivers nothing more and resolves once the batches in flight are handled. */
  stop(): Promise<void>;
  deadLetters(): readonly DeadLetter[];
  /** Messages not yet deleted or dead-lettered: queued, in flight or waiting to be retried. */
  depth(): number;
  /**
   * ChangeMessageVisibility of a message in flight: if its delivery fails, it (and its group)
   * stays invisible this long instead of the queue's visibility timeout.
   */
  changeVisibility(receiptHandle: string, timeoutMs: number): void;
}

const DEFAULTS = {
  batchSize: 10,
  maxReceiveCount: 5,
  visibilityTimeoutMs: 200,
  deduplicationWindowMs: 5 * 60_000,
  maxConcurrency: 4,
} as const;

interface Group {
  readonly id: string;
  /** In order; a batch in flight is at the head until its outcome is known. */
  readonly messages: StoredMessage[];
  inFlight: boolean;
  /** Failed messages are invisible, and hold up the group, until then. */
  visibleAt: number;
}

/** A group's share of a batch: its first messages, in order, and their records of this delivery. */
interface Portion {
  readonly group: Group;
  readonly messages: readonly StoredMessage[];
  readonly records: readonly SQSRecord[];
}

const positiveInteger = (name: string, value: number, max: number): number => {
  if (!Number.isInteger(value) || value < 1 || value > max) throw new RangeError(`${name} must be an integer from 1 to ${max}, not ${value}`);
  return value;
};

export const createLocalFifoQueue = (options: FifoQueueOptions): LocalFifoQueue => {
  if (!options.name.endsWith('.fifo')) throw new FifoQueueError('InvalidParameterValue', `A FIFO queue's name ends with .fifo: ${options.name}`);
  const batchSize = positiveInteger('batchSize', options.batchSize ?? DEFAULTS.batchSize, 10);
  const maxReceiveCount = positiveInteger('maxReceiveCount', options.maxReceiveCount ?? DEFAULTS.maxReceiveCount, 1_000);
  const maxConcurrency = positiveInteger('maxConcurrency', options.maxConcurrency ?? DEFAULTS.maxConcurrency, 1_000);
  const visibilityTimeoutMs = options.visibilityTimeoutMs ?? DEFAULTS.visibilityTimeoutMs;
  const deduplicationWindowMs = options.deduplicationWindowMs ?? DEFAULTS.deduplicationWindowMs;
  const functionName = options.functionName ?? `local-${options.name.replace(/\.fifo$/, '')}-consumer`;
  const reportError = options.onError ?? (() => undefined);
  const arn = queueArn(options.name);
  const clock = options.clock ?? installedClock;

  const groups = new Map<string, Group>();
  /** In send order, so expired entries are at the front. */
  const deduplication = new Map<string, { messageId: string; sequenceNumber: string; expiresAt: number }>();
  const dead: DeadLetter[] = [];
  const deliveries = new Set<Promise<void>>();
  /** Visibility timeouts asked for messages in flight, by receipt handle. */
  const visibilityChanges = new Map<string, number>();
  let idleWaiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  // SQS numbers a FIFO queue's messages in increasing order over the queue's whole life, and the
  // list maintainer relies on it (a node remembers the last batch applied to it): a queue of a
  // later run on a kept table must go on above the numbers of the runs before it. Starting from
  // the clock in microseconds does, as long as no run sends more than a million messages a millisecond.
  // The wall clock: a test's clock moved forward would number a later run's queue below this one's.
  let lastSequenceNumber = BigInt(Date.now()) * 1_000n * 1_000n;
  let stopped = false;
  let pumpSoon: NodeJS.Immediate | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  // A jump of the clock may end holds at once: look again rather than wait for the timer.
  const stopWatchingClock = isJumpingClock(clock) ? clock.onAdvance(() => pump()) : () => undefined;

  const depth = () => [...groups.values()].reduce((total, group) => total + group.messages.length, 0);
  const idle = () => depth() === 0 && deliveries.size === 0;

  const notifyIfIdle = () => {
    if (!idle()) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const waiter of waiters) waiter.resolve();
  };

  const headOf = (group: Group): string => group.messages[0]?.sequenceNumber ?? '';

  /**
   * The groups of the next batch, oldest next message first, so no group starves: at most
   * `batchSize` of them (each gives one message at least), none in flight or waiting to be visible.
   */
  const nextGroups = (now: number): Group[] => {
    const chosen: Group[] = [];
    for (const group of groups.values()) {
      if (group.inFlight || group.messages.length === 0 || group.visibleAt > now) continue;
      if (chosen.length === batchSize && headOf(group) >= headOf(chosen[chosen.length - 1]!)) continue;
      const at = chosen.findIndex((other) => headOf(group) < headOf(other));
      chosen.splice(at < 0 ? chosen.length : at, 0, group);
      if (chosen.length > batchSize) chosen.pop();
    }
    return chosen;
  };

  /** As SQS fills a FIFO batch: as many messages of the first group as fit, then of the next, up to `batchSize`. */
  const nextBatch = (now: number): { group: Group; messages: StoredMessage[] }[] => {
    let room = batchSize;
    const batch: { group: Group; messages: StoredMessage[] }[] = [];
    for (const group of nextGroups(now)) {
      if (room === 0) break;
      const messages = group.messages.slice(0, room);
      batch.push({ group, messages });
      room -= messages.length;
    }
    return batch;
  };

  const scheduleRetry = (now: number) => {
    clearTimeout(retryTimer);
    retryTimer = undefined;
    const waiting = [...groups.values()].filter((group) => !group.inFlight && group.messages.length > 0 && group.visibleAt > now);
    if (waiting.length === 0) return;
    const at = Math.min(...waiting.map((group) => group.visibleAt));
    retryTimer = setTimeout(pump, at - now);
  };

  function pump(): void {
    if (stopped) return;
    const now = clock.now();
    while (deliveries.size < maxConcurrency) {
      const batch = nextBatch(now);
      if (batch.length === 0) break;
      const delivery: Promise<void> = deliver(batch)
        .catch((error: unknown) => reportError(error instanceof Error ? error : new Error(String(error))))
        .finally(() => {
          deliveries.delete(delivery);
          pump();
          notifyIfIdle();
        });
      deliveries.add(delivery);
    }
    scheduleRetry(now);
  }

  const invoke = async (records: SQSRecord[]): Promise<ReportedFailures | undefined> => {
    try {
      // A copy, as Lambda parses a fresh event: the dead letters keep what was delivered.
      const response = await options.handler({ Records: structuredClone(records) }, localLambdaContext(functionName));
      return reportedFailures(
        records.map((record) => record.messageId),
        response,
      );
    } catch (error) {
      return { kind: 'all', error: thrownError(error) };
    }
  };

  const deadLetter = async (group: Group, record: SQSRecord, error: Error): Promise<void> => {
    const index = group.messages.findIndex((message) => message.messageId === record.messageId);
    if (index >= 0) group.messages.splice(index, 1);
    const letter = { record, error };
    dead.push(letter);
    try {
      await options.onDeadLetter?.(letter);
    } catch (failure) {
      reportError(new Error('onDeadLetter threw; the message is a dead letter all the same', { cause: failure }));
    }
  };

  /** A group's outcome of a batch: deleted up to its first failure, the rest back in the queue (or dead-lettered). */
  const settleGroup = async ({ group, messages, records }: Portion, failures: ReportedFailures | undefined, settledAt: number): Promise<void> => {
    const failedAt = failures === undefined ? -1 : failures.kind === 'all' ? 0 : records.findIndex((record) => failures.ids.has(record.messageId));
    // The successful messages are deleted: those before the group's first failure (all, without one).
    group.messages.splice(0, failedAt < 0 ? messages.length : failedAt);
    if (failures !== undefined && failedAt >= 0) {
      const error = failures.kind === 'all' ? failures.error : reportedItemError(records[failedAt]?.messageId);
      const returned = records.slice(failedAt);
      for (const [i, record] of returned.entries()) {
        if ((messages[failedAt + i]?.receiveCount ?? 0) >= maxReceiveCount) await deadLetter(group, record, error);
      }
      // The group waits for its failed messages to be visible again; with none left it goes on.
      const stillQueued = returned.some((record) => group.messages.some((message) => message.messageId === record.messageId));
      const asked = returned[0] ? visibilityChanges.get(returned[0].receiptHandle) : undefined;
      if (stillQueued) group.visibleAt = settledAt + (asked ?? visibilityTimeoutMs);
    }
    group.inFlight = false;
    if (group.messages.length === 0) groups.delete(group.id);
  };

  const deliver = async (batch: readonly { group: Group; messages: StoredMessage[] }[]): Promise<void> => {
    for (const { group } of batch) group.inFlight = true;
    const now = clock.now();
    const portions: Portion[] = batch.map(({ group, messages }) => ({
      group,
      messages,
      records: messages.map((message) => {
        message.receiveCount += 1;
        message.firstReceiveTimestamp ??= now;
        return toSqsRecord(message, arn, randomUUID());
      }),
    }));
    const records = portions.flatMap((portion) => portion.records);
    const failures = await invoke(records);
    // One time for the whole batch, as SQS times every message of a receive alike: the groups it
    // returns become visible together, however long dead-lettering takes between them.
    const settledAt = clock.now();
    for (const portion of portions) await settleGroup(portion, failures, settledAt);
    for (const record of records) visibilityChanges.delete(record.receiptHandle);
  };

  const enqueue = (entry: FifoSendEntry, now: number): FifoSendResult => {
    const md5OfMessageBody = md5Hex(entry.body);
    const previous = deduplication.get(entry.deduplicationId);
    if (previous && previous.expiresAt > now)
      return { id: entry.id, messageId: previous.messageId, sequenceNumber: previous.sequenceNumber, md5OfMessageBody, duplicate: true };
    lastSequenceNumber += 1n;
    const message: StoredMessage = {
      messageId: randomUUID(),
      body: entry.body,
      md5OfBody: md5OfMessageBody,
      groupId: entry.groupId,
      deduplicationId: entry.deduplicationId,
      sequenceNumber: formatSequenceNumber(lastSequenceNumber),
      sentTimestamp: now,
      receiveCount: 0,
      firstReceiveTimestamp: undefined,
    };
    deduplication.delete(entry.deduplicationId);
    deduplication.set(entry.deduplicationId, { messageId: message.messageId, sequenceNumber: message.sequenceNumber, expiresAt: now + deduplicationWindowMs });
    let group = groups.get(entry.groupId);
    if (!group) {
      group = { id: entry.groupId, messages: [], inFlight: false, visibleAt: 0 };
      groups.set(entry.groupId, group);
    }
    group.messages.push(message);
    return { id: entry.id, messageId: message.messageId, sequenceNumber: message.sequenceNumber, md5OfMessageBody, duplicate: false };
  };

  const forgetExpiredDeduplicationIds = (now: number) => {
    for (const [id, entry] of deduplication) {
      if (entry.expiresAt > now) break;
      deduplication.delete(id);
    }
  };

  return {
    name: options.name,
    arn,

    async send(entries) {
      await Promise.resolve(); // as over the wire: a refused send is a rejected promise, never a throw
      if (stopped) throw new FifoQueueError('QueueDoesNotExist', `The local queue ${options.name} is stopped`);
      validateEntries(entries);
      const now = clock.now();
      forgetExpiredDeduplicationIds(now);
      const results = entries.map((entry) => enqueue(entry, now));
      // Delivery starts after the sender's current tick, so messages sent together are batched together.
      pumpSoon ??= setImmediate(() => {
        pumpSoon = undefined;
        pump();
      });
      return results;
    },

    settle() {
      if (idle()) return Promise.resolve();
      if (stopped) return Promise.reject(new Error(`The local queue ${options.name} is stopped with ${depth()} messages left`));
      return new Promise((resolve, reject) => idleWaiters.push({ resolve, reject }));
    },

    async stop() {
      stopped = true;
      stopWatchingClock();
      clearImmediate(pumpSoon);
      clearTimeout(retryTimer);
      pumpSoon = undefined;
      retryTimer = undefined;
      await Promise.allSettled([...deliveries]);
      notifyIfIdle();
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const waiter of waiters) waiter.reject(new Error(`The local queue ${options.name} was stopped with ${depth()} messages left`));
    },

    deadLetters: () => [...dead],
    depth,
    changeVisibility(receiptHandle, timeoutMs) {
      visibilityChanges.set(receiptHandle, timeoutMs);
    },
  };
};
