/** The prices benchmark's settings: full and `--quick` sizes, and the flags that change them (docs/performance.md). */
import { parseBenchFlags } from './bench-flags.js';

export const PRICES_RUNS = ['webhooks', 'polling', 'faults'] as const;
export type PricesRun = (typeof PRICES_RUNS)[number];

export interface PricesSettings {
  readonly quick: boolean;
  readonly seed: number;
  /** Repriced products of each run's market, each with five competitor bots and the static seller. */
  readonly products: number;
  /** Seconds of each run's measured window (after the start-up's decisions have drained). */
  readonly seconds: number;
  /**
   * Real seconds between the schedule's ticks (the stack's: 60). Tiers are due by tick number,
   * so 15 runs the same tiers four times as fast (a repriced page every 30 s instead of 120 s).
   */
  readonly tickSeconds: number;
  /** Real seconds between the bots' ticks. */
  readonly botTickSeconds: number;
  /** Longest wait for the decisions to end after a window (pending or sent ones left count as lost). */
  readonly drainSeconds: number;
  /** The simulator's shapes (`--shapes`): `default`, or `reported` (tools/market/shapes.ts). */
  readonly shapes: string;
  readonly skip: ReadonlySet<PricesRun>;
}

const FULL: Omit<PricesSettings, 'skip' | 'shapes'> = {
  quick: false,
  seed: 21,
  products: 1_000,
  seconds: 300,
  tickSeconds: 60,
  botTickSeconds: 20,
  drainSeconds: 240,
};

const QUICK: Omit<PricesSettings, 'skip' | 'shapes'> = {
  ...FULL,
  quick: true,
  products: 100,
  seconds: 90,
  tickSeconds: 15,
  botTickSeconds: 5,
  drainSeconds: 150,
};

const FLAGS: Readonly<Record<string, keyof typeof FULL>> = {
  '--seed': 'seed',
  '--products': 'products',
  '--seconds': 'seconds',
  '--tick-seconds': 'tickSeconds',
  '--bot-tick-seconds': 'botTickSeconds',
  '--drain-seconds': 'drainSeconds',
};

/** `--quick`, `--skip polling,faults` and the numeric flags above (`--products 300`). */
export const pricesSettings = (argv: readonly string[]): PricesSettings =>
  parseBenchFlags(argv, { full: FULL, quick: QUICK, numbers: FLAGS, parts: PRICES_RUNS });
