/**
 * What the read planner simulation measures, the same way for both schedules
 * (docs/performance.md): reads per second, reads per page per look, how soon competitor moves on
 * repriced products were seen, each tenant's reads against its fair share, the freshness of a
 * fixed sample of tenant-offers, and the age of reads in the queue. Only what happens after the
 * warm-up counts.
 */
import { createPrng } from '../market/prng.js';
import { AgeHistogram, shareIndex } from './planner-sim-figures.js';
import { movesBetween, type World } from './planner-sim-world.js';

const SELLER_BUCKETS = ['1 seller', '2-5 sellers', '6-30 sellers'] as const;
const bucketOf = (sellers: number): number => (sellers <= 1 ? 0 : sellers <= 5 ? 1 : 2);
const LOOK_PERIOD_MS = 120_000;
/** Moves this close to the end are left out: the last of them could not be seen within 10 minutes. */
const MOVE_TAIL_MS = 10 * 60_000;
const SAMPLE_OFFERS = 5_000;

export interface RunFigures {
  readonly readsPerSecondMean: number;
  readonly readsPerSecondMax: number;
  /** Reads per page requested within one 2-minute period, by the page's sellers. */
  readonly readsPerLook: readonly { readonly sellers: string; readonly value: number }[];
  /** Reads of one page less than the floor apart. */
  readonly readsWithinFloor: number;
  readonly movesWithin2Min: number;
  readonly movesWithin10Min: number;
  readonly movePairs: number;
  readonly jain: number;
  readonly freshnessP95Seconds: number;
  readonly freshnessRepricedP95Seconds: number;
  readonly queueAgeP99Seconds: number;
  readonly reads: number;
  readonly dropped: number;
}

export class Recorder {
  private readonly perSecond: Int32Array;
  private readonly moveLatency = new AgeHistogram();
  private readonly queueAge = new AgeHistogram();
  private readonly freshness = new AgeHistogram();
  private readonly freshnessRepriced = new AgeHistogram();
  readonly demand: Float64Array;
  readonly served: Float64Array;
  private readonly lastPeriod: Float64Array;
  private readonly lastRead: Float64Array;
  private readonly looks = [0, 0, 0];
  private readonly lookReads = [0, 0, 0];
  private readonly sample: Int32Array;
  private readonly repricedCount: Int32Array;
  private within = 0;
  reads = 0;
  dropped = 0;

  constructor(
    private readonly world: World,
    private readonly warmupMs: number,
    private readonly spanMs: number,
    private readonly floorMs: number,
  ) {
    this.perSecond = new Int32Array(Math.ceil(spanMs / 1000));
    this.demand = new Float64Array(world.tenants);
    this.served = new Float64Array(world.tenants);
    this.lastPeriod = new Float64Array(world.products).fill(-1);
    this.lastRead = new Float64Array(world.products).fill(-Infinity);
    this.repricedCount = new Int32Array(world.products);
    for (let i = 0; i < world.productOf.length; i++) if (world.repriced[i] === 1) this.repricedCount[world.productOf[i]!]!++;
    // The same offers in every run of a seed: base tenants that stay.
    const leaving = new Set(world.leaving);
    const prng = createPrng(world.shape.tenants * 7919 + world.baseOffers);
    const picked: number[] = [];
    while (picked.length < SAMPLE_OFFERS) {
      const offer = prng.int(0, world.baseOffers - 1);
      if (!leaving.has(world.tenantOf[offer]!)) picked.push(offer);
    }
    this.sample = Int32Array.from(picked);
  }

  private counts(at: number): boolean {
    return at >= this.warmupMs && at < this.spanMs;
  }

  /** One page read at `at`, requested at `requestedAt`. */
  read(product: number, at: number, requestedAt: number): void {
    if (!this.counts(at)) return;
    this.reads += 1;
    this.perSecond[Math.floor(at / 1000)]!++;
    this.queueAge.add((at - requestedAt) / 1000);
    const bucket = bucketOf(this.world.offerStart[product + 1]! - this.world.offerStart[product]!);
    const period = Math.floor(requestedAt / LOOK_PERIOD_MS);
    this.lookReads[bucket]!++;
    if (period !== this.lastPeriod[product]) {
      this.lastPeriod[product] = period;
      this.looks[bucket]!++;
    }
    if (at - this.lastRead[product]! < this.floorMs) this.within += 1;
    this.lastRead[product] = at;
  }

  /** Moves of a product in (from, to] seen at `to`, for `weight` repricing tenants. */
  movesSeen(product: number, from: number, to: number, weight: number): void {
    if (weight === 0) return;
    const moves = this.world.moves[product]!;
    const { first, end } = movesBetween(moves, from, to);
    for (let i = first; i < end; i++) {
      const at = moves[i]!;
      if (at >= this.warmupMs && at <= this.spanMs - MOVE_TAIL_MS) this.moveLatency.add((to - at) / 1000, weight);
    }
  }

  repricedOn(product: number): number {
    return this.repricedCount[product]!;
  }

  ask(tenant: number, amount: number, at: number): void {
    if (this.counts(at)) this.demand[tenant]! += amount;
  }

  serve(tenant: number, amount: number, at: number): void {
    if (this.counts(at)) this.served[tenant]! += amount;
  }

  /** Samples the age of every sampled tenant-offer's view at `at`. */
  sampleFreshness(at: number, lastSeen: (offer: number) => number): void {
    if (!this.counts(at)) return;
    for (const offer of this.sample) {
      const age = (at - lastSeen(offer)) / 1000;
      this.freshness.add(age);
      if (this.world.repriced[offer] === 1) this.freshnessRepriced.add(age);
    }
  }

  figures(): RunFigures {
    const seconds = this.perSecond.subarray(Math.floor(this.warmupMs / 1000));
    let pairs = 0;
    for (let p = 0; p < this.world.products; p++) {
      if (this.repricedCount[p] === 0) continue;
      const { first, end } = movesBetween(this.world.moves[p]!, this.warmupMs - 1e-9, this.spanMs - MOVE_TAIL_MS);
      pairs += (end - first) * this.repricedCount[p]!;
    }
    const seen = this.moveLatency;
    const weights = Array.from({ length: this.world.tenants }, () => 1);
    return {
      readsPerSecondMean: seconds.reduce((a, b) => a + b, 0) / seconds.length,
      readsPerSecondMax: seconds.reduce((a, b) => Math.max(a, b), 0),
      readsPerLook: SELLER_BUCKETS.map((sellers, i) => ({ sellers, value: this.lookReads[i]! / Math.max(1, this.looks[i]!) })),
      readsWithinFloor: this.within,
      movesWithin2Min: pairs === 0 ? NaN : (seen.within(120) * seen.count) / pairs,
      movesWithin10Min: pairs === 0 ? NaN : (seen.within(600) * seen.count) / pairs,
      movePairs: pairs,
      jain: shareIndex([...this.demand], [...this.served], weights),
      freshnessP95Seconds: this.freshness.quantile(0.95),
      freshnessRepricedP95Seconds: this.freshnessRepriced.quantile(0.95),
      queueAgeP99Seconds: this.queueAge.quantile(0.99),
      reads: this.reads,
      dropped: this.dropped,
    };
  }
}
