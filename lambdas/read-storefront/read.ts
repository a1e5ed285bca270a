import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

/** Holds a message back: SQS's ChangeMessageVisibility on AWS, the local queue's equivalent under `npm start`. */
export type HoldMessage = (record: SQSRecord, delayMs: number) => Promise<void>;

export interface StorefrontReaderOptions {
  /** Requests per second this reader may send to one host (the stage's rate divided among the readers). */
  readonly requestsPerSecond?: number;
}

/**
 * The storefront reader: reads product pages at a polite pace per host and applies them
 * (data/market-sync.ts applyProductMarket). A refused read (429, 403) holds the host for its
 * Retry-After and holds back the batch's remaining messages as long.
 */
export const storefrontReader =
  (hold: HoldMessage, options: StorefrontReaderOptions = {}) =>
  async (event: SQSEvent): Promise<SQSBatchResponse> => {
    void hold;
    void options;
    void event;
    throw new Error('not yet');
  };
