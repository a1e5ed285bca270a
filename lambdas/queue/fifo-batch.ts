import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

type RegisterOptions = Parameters<SqsFifoPartialProcessorAsync['register']>[2];
/** The options as typed for a FIFO processor, where `skipGroupOnError` is allowed. */
type FifoOptions = NonNullable<Parameters<typeof processPartialResponse<SqsFifoPartialProcessorAsync>>[3]>;

/**
 * Powertools' FIFO processor with `skipGroupOnError` always on. SQS hands a FIFO consumer
 * batches that mix message groups (tenants, connections), each group in order: a failed message
 * must fail the later messages of its own group (they wait, to stay in order) and no others.
 * Without the option the processor fails every message after the first failure, other groups'
 * included, and sends them towards their dead-letter queue with the poison one.
 *
 * In this version of Powertools the option is read at `register` (processPartialResponse's
 * options), not given to the constructor: the processor sets it there itself, so a consumer
 * cannot leave it out.
 */
export class GroupIsolatedFifoProcessor extends SqsFifoPartialProcessorAsync {
  override register(...[records, handler, options]: Parameters<SqsFifoPartialProcessorAsync['register']>): this {
    const isolated: FifoOptions = { context: options?.context, throwOnFullBatchFailure: options?.throwOnFullBatchFailure, skipGroupOnError: true };
    // The base class types its options for every processor kind, where the FIFO-only option is `never`.
    return super.register(records, handler, isolated as RegisterOptions);
  }
}

export interface FifoBatchOptions {
  /** False: a batch whose every message failed is answered with their failures rather than thrown (Powertools' default throws). */
  readonly throwOnFullBatchFailure?: boolean;
}

/** Handles an SQS FIFO batch message by message, each group in order; a failure holds back its own group only. */
export const processFifoBatch = (
  event: SQSEvent,
  handleRecord: (record: SQSRecord) => Promise<void>,
  options: FifoBatchOptions = {},
): Promise<SQSBatchResponse> => processPartialResponse(event, handleRecord, new GroupIsolatedFifoProcessor(), { ...options, skipGroupOnError: true });

/**
 * The batch response of a consumer that handles its messages itself, by group (the price sender
 * a connection's messages together, the storefront reader with its holds): the messages it
 * failed, through the same processor, so the answer is the same as every other consumer's.
 */
export const fifoBatchResponse = (event: SQSEvent, failed: ReadonlySet<string>): Promise<SQSBatchResponse> =>
  processFifoBatch(
    event,
    (record) =>
      failed.has(record.messageId) ? Promise.reject(new Error(`Message ${record.messageId} failed; its error was logged when it did`)) : Promise.resolve(),
    { throwOnFullBatchFailure: false },
  );
