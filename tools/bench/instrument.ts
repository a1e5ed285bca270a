import type { DynamoDBDocumentClient, NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { itemSize, readUnits } from './capacity-model.js';
import { keyOf } from './stream-images.js';

/**
 * Wraps the document client's `send` (the one every function of the data layer uses) to see
 * each call as it goes: what reads cost under AWS's published model, which keys committed
 * transactions wrote (the write meter counts those twice), and when items were written.
 */
type Item = Record<string, NativeAttributeValue>;

/** One DynamoDB call of a request, with its cost as DynamoDB Local reported it and as AWS would charge it. */
export interface CallRecord {
  readonly command: string;
  readonly index?: string;
  readonly consistent: boolean;
  /** Items returned. */
  readonly items: number;
  /** Bytes of the items returned. */
  readonly bytes: number;
  /** Bytes of the items read (for a filtered Query, also those the filter dropped, when known). */
  readonly readBytes: number;
  readonly localUnits: number;
  readonly awsUnits: number;
  /** Sort key, entity and stored size of each item returned. */
  readonly returned: readonly Returned[];
}

export interface Returned {
  readonly sk: string;
  readonly entity: string;
  readonly bytes: number;
}

export interface ReadTally {
  calls: number;
  units: number;
  byCommand: Record<string, { calls: number; units: number }>;
}

export const emptyReadTally = (): ReadTally => ({ calls: 0, units: 0, byCommand: {} });

export interface Instrument {
  /** Records every call `work` makes (and nothing else: call it when nothing else runs). */
  record<T>(work: () => Promise<T>): Promise<{ result: T; calls: CallRecord[] }>;
  /** Read units of every call made from now until `end()`, whoever makes it. */
  beginReads(): void;
  endReads(): ReadTally;
  /** Called with the keys of each committed TransactWriteItems call. */
  onTransaction?: (keys: string[]) => void;
  /** Called with the items of each completed Put and BatchWrite put, and the time. */
  onWritten?: (items: Item[], at: number) => void;
  /** Conditional writes and transactions refused by a condition or a conflict (they cost capacity too). */
  refused: number;
  /** When set, a filtered Query is read again without its filter to price what the filter dropped. */
  priceFilteredReads: boolean;
}

const commandName = (command: unknown) => (command as object).constructor.name.replace('Command', '');

const transactionKeys = (input: Record<string, unknown>): string[] =>
  ((input.TransactItems as Record<string, { Item?: Item; Key?: Item }>[] | undefined) ?? []).flatMap((action) => {
    const write = action.Put ?? action.Update ?? action.Delete;
    if (!write) return [];
    return [keyOf((write.Item ?? write.Key)!)];
  });

export const instrument = (client: DynamoDBDocumentClient): Instrument => {
  let recording: CallRecord[] | undefined;
  let reads: ReadTally | undefined;
  const send = client.send.bind(client) as (command: unknown) => Promise<Record<string, unknown>>;

  const priced = async (command: unknown, output: Record<string, unknown>): Promise<CallRecord> => {
    const name = commandName(command);
    const input = (command as { input: Record<string, unknown> }).input;
    const consumed = output.ConsumedCapacity as { CapacityUnits?: number } | { CapacityUnits?: number }[] | undefined;
    const localUnits = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []).reduce((s, c) => s + (c.CapacityUnits ?? 0), 0);
    if (name === 'BatchGet') {
      const requests = input.RequestItems as Record<string, { Keys: Item[]; ConsistentRead?: boolean }>;
      const responses = (output.Responses as Record<string, Item[]> | undefined) ?? {};
      const unprocessed = (output.UnprocessedKeys as Record<string, { Keys?: Item[] }> | undefined) ?? {};
      let awsUnits = 0;
      let items = 0;
      let bytes = 0;
      let consistent = false;
      const returned: Returned[] = [];
      for (const [table, request] of Object.entries(requests)) {
        consistent ||= request.ConsistentRead === true;
        const found = responses[table] ?? [];
        const asked = request.Keys.length - (unprocessed[table]?.Keys?.length ?? 0);
        // Each item is priced on its own, rounded up to 4 KB; a key that finds nothing still costs the minimum.
        for (const item of found) {
          const size = itemSize(item);
          awsUnits += readUnits(size, request.ConsistentRead === true);
          bytes += size;
          returned.push({ sk: String(item.sk), entity: String(item.entity), bytes: size });
        }
        awsUnits += Math.max(0, asked - found.length) * readUnits(0, request.ConsistentRead === true);
        items += found.length;
      }
      return { command: name, consistent, items, bytes, readBytes: bytes, localUnits, awsUnits, returned };
    }
    const found = (output.Items as Item[] | undefined) ?? (output.Item ? [output.Item as Item] : []);
    const returned = found.map((item): Returned => ({ sk: String(item.sk), entity: String(item.entity), bytes: itemSize(item) }));
    const bytes = returned.reduce((s, r) => s + r.bytes, 0);
    const consistent = input.ConsistentRead === true;
    let readBytes = bytes;
    if (name === 'Query' && typeof input.FilterExpression === 'string' && instrumentation.priceFilteredReads) {
      // What the filter dropped was read and is billed: the same Query without the filter returns it.
      const { FilterExpression: _, ...unfiltered } = input;
      const names = unfiltered.ExpressionAttributeNames as Record<string, string> | undefined;
      const values = { ...(unfiltered.ExpressionAttributeValues as Record<string, unknown>) };
      for (const placeholder of Object.keys(values)) if (!String(unfiltered.KeyConditionExpression).includes(placeholder)) delete values[placeholder];
      const Ctor = (command as { constructor: new (input: Record<string, unknown>) => unknown }).constructor;
      const all = await send(
        new Ctor({ ...unfiltered, ExpressionAttributeValues: values, ...(names ? { ExpressionAttributeNames: names } : {}), ReturnConsumedCapacity: 'NONE' }),
      );
      readBytes = ((all.Items as Item[] | undefined) ?? []).reduce((s, item) => s + itemSize(item), 0);
    }
    return {
      command: name,
      ...(typeof input.IndexName === 'string' ? { index: input.IndexName } : {}),
      consistent,
      items: found.length,
      bytes,
      readBytes,
      localUnits,
      awsUnits: name === 'Get' || name === 'Query' ? readUnits(readBytes, consistent) : 0,
      returned,
    };
  };

  const instrumentation: Instrument = {
    refused: 0,
    priceFilteredReads: false,
    async record<T>(work: () => Promise<T>) {
      recording = [];
      try {
        const result = await work();
        return { result, calls: recording };
      } finally {
        recording = undefined;
      }
    },
    beginReads() {
      reads = emptyReadTally();
    },
    endReads() {
      const tally = reads ?? emptyReadTally();
      reads = undefined;
      return tally;
    },
  };

  (client as unknown as { send: (command: unknown) => Promise<unknown> }).send = async (command: unknown) => {
    const name = commandName(command);
    const input = (command as { input: Record<string, unknown> }).input;
    let output: Record<string, unknown>;
    try {
      output = await send(command);
    } catch (error) {
      const kind = (error as { name?: string } | undefined)?.name;
      if (kind === 'ConditionalCheckFailedException' || kind === 'TransactionCanceledException') instrumentation.refused += 1;
      throw error;
    }
    const at = performance.now();
    if (name === 'TransactWrite') instrumentation.onTransaction?.(transactionKeys(input));
    if (instrumentation.onWritten) {
      if (name === 'Put') instrumentation.onWritten([input.Item as Item], at);
      if (name === 'BatchWrite') {
        const unprocessed = new Set(
          Object.values((output.UnprocessedItems as Record<string, { PutRequest?: { Item: Item } }[]> | undefined) ?? {})
            .flat()
            .flatMap((request) => (request.PutRequest ? [keyOf(request.PutRequest.Item)] : [])),
        );
        const puts = Object.values(input.RequestItems as Record<string, { PutRequest?: { Item: Item } }[]>)
          .flat()
          .flatMap((request) => (request.PutRequest && !unprocessed.has(keyOf(request.PutRequest.Item)) ? [request.PutRequest.Item] : []));
        if (puts.length > 0) instrumentation.onWritten(puts, at);
      }
    }
    if ((recording || reads) && (name === 'Get' || name === 'BatchGet' || name === 'Query')) {
      const call = await priced(command, output);
      recording?.push(call);
      if (reads) {
        reads.calls += 1;
        reads.units += call.awsUnits;
        const entry = (reads.byCommand[name] ??= { calls: 0, units: 0 });
        entry.calls += 1;
        entry.units += call.awsUnits;
      }
    }
    return output;
  };
  return instrumentation;
};
