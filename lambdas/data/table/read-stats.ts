import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';

/**
 * What a read cost: DynamoDB calls made, round trips (calls made one after another; calls
 * made in parallel count once) and read capacity consumed (table and indexes).
 */
export class ReadStats {
  calls = 0;
  roundTrips = 0;
  capacityUnits = 0;

  record(consumed: ConsumedCapacity | readonly ConsumedCapacity[] | undefined): void {
    this.calls += 1;
    const list: readonly ConsumedCapacity[] = consumed === undefined ? [] : Array.isArray(consumed) ? consumed : [consumed as ConsumedCapacity];
    for (const entry of list) this.capacityUnits += entry.CapacityUnits ?? 0;
  }

  /** Runs calls that go out together: they add one round trip, or as many as the longest needs. */
  async together<T>(calls: readonly ((stats: ReadStats) => Promise<T>)[]): Promise<T[]> {
    const parts = calls.map(() => new ReadStats());
    const results = await Promise.all(calls.map((call, i) => call(parts[i]!)));
    for (const part of parts) {
      this.calls += part.calls;
      this.capacityUnits += part.capacityUnits;
    }
    this.roundTrips += Math.max(0, ...parts.map((part) => part.roundTrips));
    return results;
  }
}
