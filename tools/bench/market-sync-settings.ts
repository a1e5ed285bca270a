/** The market-sync benchmark's settings: full and `--quick` sizes, and the flags that change them (docs/performance.md). */
import { parseBenchFlags } from './bench-flags.js';

export interface MarketSyncSettings {
  readonly quick: boolean;
  readonly seed: number;
  /** Convergence: products of its market, bot ticks of its history. */
  readonly products: number;
  readonly historyTicks: number;
  /** Cost: own offers of its market, and competitors per product there. */
  readonly offers: number;
  readonly costCompetitors: number;
  /** Freshness: products with an enabled repricer, and how long they are watched. */
  readonly freshnessProducts: number;
  readonly freshnessSeconds: number;
  /**
   * Real seconds between the freshness part's ticks (the schedule's: 60). Tiers are due by tick
   * number, so shorter (`--quick`: 15) runs the same tiers faster; ages and their target scale with it.
   */
  readonly tickSeconds: number;
  /** The storefront's limit in the freshness part (the simulator's burst and refill per second). */
  readonly storefrontLimit: number;
  /** The simulator's shapes (`--shapes`): `default`, or `reported` (tools/market/shapes.ts). */
  readonly shapes: string;
  readonly skip: ReadonlySet<'convergence' | 'cost' | 'freshness'>;
}

const FULL: Omit<MarketSyncSettings, 'skip' | 'shapes'> = {
  quick: false,
  seed: 7,
  products: 200,
  historyTicks: 60,
  offers: 10_000,
  costCompetitors: 2,
  freshnessProducts: 1_000,
  freshnessSeconds: 420,
  tickSeconds: 60,
  storefrontLimit: 10,
};

const QUICK: Omit<MarketSyncSettings, 'skip' | 'shapes'> = {
  ...FULL,
  quick: true,
  products: 20,
  historyTicks: 10,
  offers: 200,
  freshnessProducts: 40,
  freshnessSeconds: 75,
  tickSeconds: 15,
};

const FLAGS: Readonly<Record<string, keyof typeof FULL>> = {
  '--seed': 'seed',
  '--products': 'products',
  '--history-ticks': 'historyTicks',
  '--offers': 'offers',
  '--cost-competitors': 'costCompetitors',
  '--freshness-products': 'freshnessProducts',
  '--freshness-seconds': 'freshnessSeconds',
  '--storefront-limit': 'storefrontLimit',
  '--tick-seconds': 'tickSeconds',
};

/** `--quick`, `--skip cost,freshness` and the numeric flags above (`--offers 1000`). */
export const marketSyncSettings = (argv: readonly string[]): MarketSyncSettings =>
  parseBenchFlags(argv, { full: FULL, quick: QUICK, numbers: FLAGS, parts: ['convergence', 'cost', 'freshness'] as const });
