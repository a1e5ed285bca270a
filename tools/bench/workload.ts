/**
 * The workload of docs/design.md, "Data", priced from per-operation figures: one tenant
 * of 100,000 offers, in one hour, 20,000 offer changes (half one at a time, half in bulk syncs
 * of 1,000), 2,000 list requests of 100 offers, 100 repricer writes and 1,000 repricer reads,
 * at $0.625 per million write units and $0.125 per million read units (on-demand).
 */
export const WRITE_PRICE_PER_UNIT = 0.625 / 1_000_000;
export const READ_PRICE_PER_UNIT = 0.125 / 1_000_000;

export const WORKLOAD = {
  singleChanges: 10_000,
  bulkChanges: 10_000,
  bulkSize: 1_000,
  listRequests: 2_000,
  repricerWrites: 100,
  repricerReads: 1_000,
} as const;

/** Units of one operation: writes and the reads it makes. */
export interface OperationUnits {
  readonly write: number;
  readonly read: number;
}

export interface WorkloadInputs {
  /** One offer change imported alone: price and competitor count moved (realistic). */
  readonly singlePriceChange: OperationUnits;
  /** One offer change imported alone: price and competitor count moved far (worst case). */
  readonly singleWorstChange: OperationUnits;
  /** One offer change imported alone: buy-box flags only. */
  readonly singleFlagsChange: OperationUnits;
  /** One offer change within a bulk sync of 1,000 (per change). */
  readonly bulkChange: OperationUnits;
  /** One list request of 100 offers (the mean over the measured queries). */
  readonly listRequest: OperationUnits;
  readonly repricerCreate: OperationUnits;
  readonly repricerUpdate: OperationUnits;
  /** One repricer read (a list page: the dearer of GET and list). */
  readonly repricerRead: OperationUnits;
}

export interface WorkloadLine {
  readonly what: string;
  readonly count: number;
  readonly writeUnits: number;
  readonly readUnits: number;
  readonly dollars: number;
}

export interface WorkloadCost {
  readonly lines: WorkloadLine[];
  readonly writeUnits: number;
  readonly readUnits: number;
  readonly dollars: number;
}

const line = (what: string, count: number, units: OperationUnits): WorkloadLine => ({
  what,
  count,
  writeUnits: count * units.write,
  readUnits: count * units.read,
  dollars: count * (units.write * WRITE_PRICE_PER_UNIT + units.read * READ_PRICE_PER_UNIT),
});

const mean = (a: OperationUnits, b: OperationUnits): OperationUnits => ({ write: (a.write + b.write) / 2, read: (a.read + b.read) / 2 });

const total = (lines: WorkloadLine[]): WorkloadCost => ({
  lines,
  writeUnits: lines.reduce((s, l) => s + l.writeUnits, 0),
  readUnits: lines.reduce((s, l) => s + l.readUnits, 0),
  dollars: lines.reduce((s, l) => s + l.dollars, 0),
});

/**
 * The hour's cost. Single changes are half price-and-competitor moves, half buy-box flag
 * changes (`singleMix` overrides it, e.g. every change a price move); repricer writes half
 * creates, half updates.
 */
export const workloadCost = (inputs: WorkloadInputs, singleMix: OperationUnits = mean(inputs.singlePriceChange, inputs.singleFlagsChange)): WorkloadCost =>
  total([
    line('offer changes, one at a time', WORKLOAD.singleChanges, singleMix),
    line(`offer changes in bulk syncs of ${WORKLOAD.bulkSize.toLocaleString('en-US')}`, WORKLOAD.bulkChanges, inputs.bulkChange),
    line('list requests of 100 offers', WORKLOAD.listRequests, inputs.listRequest),
    line('repricer writes (half creates, half updates)', WORKLOAD.repricerWrites, mean(inputs.repricerCreate, inputs.repricerUpdate)),
    line('repricer reads', WORKLOAD.repricerReads, inputs.repricerRead),
  ]);

/**
 * The old layout (every offer in 4 view items, each in 3 GSIs and 4 LSIs, with rank
 * directories, all in one transaction), from the figures its own benchmark and issue gave:
 * 125-130 write units per offer change at 10,000-30,000 offers, 101 per repricer create (used
 * for every repricer write), about 15 read units per list request (used for repricer reads
 * too). Its write path's reads are not known and left out, which flatters it.
 */
export const OLD_LAYOUT = {
  changeWriteUnits: [125, 130] as const,
  newOfferWriteUnits: [63, 81] as const,
  repricerWriteUnits: 101,
  listReadUnits: 15,
};

export const oldWorkloadCost = (changeWriteUnits: number): WorkloadCost =>
  total([
    line('offer changes, one at a time', WORKLOAD.singleChanges, { write: changeWriteUnits, read: 0 }),
    line(`offer changes in bulk syncs of ${WORKLOAD.bulkSize.toLocaleString('en-US')}`, WORKLOAD.bulkChanges, { write: changeWriteUnits, read: 0 }),
    line('list requests of 100 offers', WORKLOAD.listRequests, { write: 0, read: OLD_LAYOUT.listReadUnits }),
    line('repricer writes', WORKLOAD.repricerWrites, { write: OLD_LAYOUT.repricerWriteUnits, read: 0 }),
    line('repricer reads', WORKLOAD.repricerReads, { write: 0, read: OLD_LAYOUT.listReadUnits }),
  ]);
