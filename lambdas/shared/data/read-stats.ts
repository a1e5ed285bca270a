import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';

/** What a read cost: DynamoDB calls made and read capacity consumed (table and indexes). */
export class ReadStats {
  roundTrips = 0;
  capacityUnits = 0;

  record(consumed: ConsumedCapacity | readonly ConsumedCapacity[] | undefined): void {
    this.roundTrips += 1;
    const list = Array.isArray(consumed) ? consumed : consumed ? [consumed as ConsumedCapacity] : [];
    for (const entry of list) this.capacityUnits += entry.CapacityUnits ?? 0;
  }
}
