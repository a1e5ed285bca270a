/** The prices benchmark's settings: full and `--quick` sizes, and the flags that change them (docs/performance.md). */
import { BUYBOX_APPROACHES, type BuyboxApproach } from '../../lambdas/domain/approaches.js';
import { parseBenchFlags } from './bench-flags.js';

export const PRICES_RUNS = ['webhooks', 'polling', 'faults', 'write-faults'] as const;
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
  /**
   * The repricers' approaches (`--approaches`), given to the products in turn; `static` leaves
   * a product unrepriced (its own offer keeps its price): the baseline. Default `cheapest` on
   * every product; `all` is every approach and `static`, side by side in one run.
   */
  readonly approaches: readonly PricedBy[];
}

export type PricedBy = BuyboxApproach | 'static';
export const PRICED_BY: readonly PricedBy[] = [...BUYBOX_APPROACHES, 'static'];

/** `--approaches all` or a comma list of PRICED_BY; taken out of argv before the common flags are read. */
const approachesOf = (argv: readonly string[]): { approaches: readonly PricedBy[]; rest: string[] } => {
  const at = argv.indexOf('--approaches');
  if (at < 0) return { approaches: ['cheapest'], rest: [...argv] };
  const value = argv[at + 1] ?? '';
  const approaches = value === 'all' ? PRICED_BY : value.split(',');
  for (const approach of approaches)
    if (!(PRICED_BY as readonly string[]).includes(approach)) throw new Error(`--approaches takes all or ${PRICED_BY.join(', ')}; got ${approach}`);
  return { approaches: approaches as PricedBy[], rest: [...argv.slice(0, at), ...argv.slice(at + 2)] };
};

const FULL: Omit<PricesSettings, 'skip' | 'shapes' | 'approaches'> = {
  quick: false,
  seed: 21,
  products: 1_000,
  seconds: 300,
  tickSeconds: 60,
  botTickSeconds: 20,
  drainSeconds: 240,
};

const QUICK: Omit<PricesSettings, 'skip' | 'shapes' | 'approaches'> = {
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

/** `--quick`, `--skip polling,faults`, `--approaches all` and the numeric flags above (`--products 300`). */
export const pricesSettings = (argv: readonly string[]): PricesSettings => {
  const { approaches, rest } = approachesOf(argv);
  return { ...parseBenchFlags(rest, { full: FULL, quick: QUICK, numbers: FLAGS, parts: PRICES_RUNS }), approaches };
};
