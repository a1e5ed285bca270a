/** The prices benchmark's settings: full and `--quick` sizes, and the flags that change them (docs/performance.md). */

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
  readonly skip: ReadonlySet<PricesRun>;
}

const FULL: Omit<PricesSettings, 'skip'> = {
  quick: false,
  seed: 21,
  products: 1_000,
  seconds: 300,
  tickSeconds: 60,
  botTickSeconds: 20,
  drainSeconds: 240,
};

const QUICK: Omit<PricesSettings, 'skip'> = { ...FULL, quick: true, products: 100, seconds: 90, tickSeconds: 15, botTickSeconds: 5, drainSeconds: 150 };

const FLAGS: Readonly<Record<string, keyof typeof FULL>> = {
  '--seed': 'seed',
  '--products': 'products',
  '--seconds': 'seconds',
  '--tick-seconds': 'tickSeconds',
  '--bot-tick-seconds': 'botTickSeconds',
  '--drain-seconds': 'drainSeconds',
};

/** `--quick`, `--skip polling,faults` and the numeric flags above (`--products 300`). */
export const pricesSettings = (argv: readonly string[]): PricesSettings => {
  const settings: Record<string, unknown> = { ...(argv.includes('--quick') ? QUICK : FULL) };
  const skip = new Set<PricesRun>();
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (flag === '--quick') continue;
    const value = argv[i + 1];
    i += 1;
    if (flag === '--skip') {
      for (const part of (value ?? '').split(',')) {
        if (!(PRICES_RUNS as readonly string[]).includes(part)) throw new Error(`--skip takes ${PRICES_RUNS.join(', ')}; got ${part}`);
        skip.add(part as PricesRun);
      }
      continue;
    }
    const key = FLAGS[flag];
    const number = Number(value);
    if (key === undefined) throw new Error(`Unknown option ${flag}: --quick, --skip, ${Object.keys(FLAGS).join(', ')}`);
    if (!Number.isInteger(number) || number < 1 || number > 100_000) throw new Error(`${flag} takes a whole number from 1 to 100000, got ${value}`);
    settings[key] = number;
  }
  return { ...(settings as Omit<PricesSettings, 'skip'>), skip };
};
