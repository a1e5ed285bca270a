import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { itemSize, readUnits } from './capacity-model.js';

/** One DynamoDB call of a request, with its cost as DynamoDB Local reported it and as AWS would charge it. */
export interface CallRecord {
  readonly command: string;
  readonly index?: string;
  readonly consistent: boolean;
  readonly items: number;
  readonly bytes: number;
  readonly localUnits: number;
  readonly awsUnits: number;
}

/** Wraps `send` so every call's input and output is recorded while `recording` is set. */
export const instrument = (client: DynamoDBDocumentClient) => {
  let recording: CallRecord[] | undefined;
  const send = client.send.bind(client) as (command: unknown) => Promise<Record<string, unknown>>;
  (client as unknown as { send: (command: unknown) => Promise<unknown> }).send = async (command: unknown) => {
    const output = await send(command);
    if (recording) {
      const input = (command as { input: Record<string, unknown> }).input;
      const items = (output.Items as Record<string, unknown>[] | undefined) ?? (output.Item ? [output.Item as Record<string, unknown>] : []);
      const bytes = items.reduce((sum, item) => sum + itemSize(item), 0);
      const consistent = input.ConsistentRead === true;
      const consumed = output.ConsumedCapacity as { CapacityUnits?: number } | undefined;
      recording.push({
        command: (command as object).constructor.name.replace('Command', ''),
        ...(typeof input.IndexName === 'string' ? { index: input.IndexName } : {}),
        consistent,
        items: items.length,
        bytes,
        localUnits: consumed?.CapacityUnits ?? 0,
        awsUnits: readUnits(bytes, consistent),
      });
    }
    return output;
  };
  return {
    async record<T>(work: () => Promise<T>): Promise<{ result: T; calls: CallRecord[] }> {
      recording = [];
      try {
        const result = await work();
        return { result, calls: recording };
      } finally {
        recording = undefined;
      }
    },
  };
};
