/**
 * `npm start -- [flags]`: the flags and environment that decide which marketplace the demo
 * connects to. One table of flags makes both the parser and `--help`, so the help never misses one.
 */
import { DEFAULT_OPTIONS } from '../market/options.js';
import { SHAPE_PRESETS } from '../market/shapes.js';
import { TAKEALOT_SELLER_API_URL_ENV, TAKEALOT_STOREFRONT_URL_ENV } from '../../lambdas/marketplace/registry.js';

export const MARKET_PORT_ENV = 'MARKET_PORT';
/** `--sellers`: each one a client, a connection and its syncs on this machine. */
export const MAX_DEMO_SELLERS = 10;

/** Where the demo's Takealot connection points. */
export type MarketChoice =
  /** The simulator, started in this process on 127.0.0.1. */
  | {
      readonly kind: 'simulator';
      readonly port: number;
      readonly seed: number;
      readonly tickMs: number;
      readonly shapes: string;
      /** With `--sellers N`: N seller accounts, each connected for a demo client of its own (one without it). */
      readonly sellers?: number;
    }
  /** Both URLs were given in the environment: used as they are, nothing started. */
  | { readonly kind: 'given'; readonly sellerApiUrl: string; readonly storefrontUrl: string }
  /** `--no-market`: no marketplace, no connection (the demo as before the market loop). */
  | { readonly kind: 'none' };

export interface StartOptions {
  readonly help: boolean;
  readonly market: MarketChoice;
}

export class StartOptionError extends Error {
  override name = 'StartOptionError';
}

interface Flag {
  readonly name: string;
  /** The value's placeholder; none for a switch. */
  readonly value?: string;
  readonly help: string;
}

export const START_FLAGS: readonly Flag[] = [
  { name: 'no-market', help: 'start no marketplace simulator and connect nothing (also when the Takealot URLs are set)' },
  { name: 'market-seed', value: 'N', help: `seed of the simulator's market (default ${DEFAULT_OPTIONS.seed}); the same seed, the same catalogue` },
  {
    name: 'market-tick-ms',
    value: 'MS',
    help: `time between the simulator's bot moves (default ${DEFAULT_OPTIONS.tickIntervalMs}); 500 shows an hour of bot moves in six minutes`,
  },
  {
    name: 'market-shapes',
    value: 'NAME',
    help: `the storefront's and batch status's shapes: ${Object.keys(SHAPE_PRESETS).join(' or ')} (every form only reported of Takealot; default: default)`,
  },
  {
    name: 'sellers',
    value: 'N',
    help: 'N seller accounts on the simulator, on shared product lines: the demo client and N - 1 more (demo-seller-2, ...), each connected live (default 1)',
  },
  { name: 'help', help: 'print this and exit' },
];

const wholeNumber = (label: string, raw: string, min: number, max: number): number => {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(value) || value < min || value > max) {
    throw new StartOptionError(`${label} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
};

const setting = (env: Readonly<Record<string, string | undefined>>, name: string): string | undefined => {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
};

/**
 * The options from the command line (after `npm start --`) and the environment. Both Takealot
 * URLs set: they are used and no simulator starts; only one set is a mistake, refused rather
 * than half-used. `--no-market` wins over everything.
 */
export const parseStartOptions = (argv: readonly string[], env: Readonly<Record<string, string | undefined>>): StartOptions => {
  let help = false;
  let noMarket = false;
  let seed: number = DEFAULT_OPTIONS.seed;
  let tickMs: number = DEFAULT_OPTIONS.tickIntervalMs;
  let shapes = 'default';
  let sellers: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [name, inline] = arg.startsWith('--') ? (arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined]) : [arg, undefined];
    const flag = START_FLAGS.find((f) => f.name === name);
    if (!arg.startsWith('--') || flag === undefined) throw new StartOptionError(`unknown option "${arg}" (npm start -- --help lists them)`);
    if (flag.value === undefined) {
      if (inline !== undefined) throw new StartOptionError(`--${flag.name} takes no value`);
      if (flag.name === 'help') help = true;
      else noMarket = true;
      continue;
    }
    const raw = inline ?? argv[++i];
    if (raw === undefined) throw new StartOptionError(`--${flag.name} needs a value (${flag.value})`);
    if (flag.name === 'market-shapes') {
      if (!Object.hasOwn(SHAPE_PRESETS, raw))
        throw new StartOptionError(`--market-shapes must be one of ${Object.keys(SHAPE_PRESETS).join(', ')}, got "${raw}"`);
      shapes = raw;
    } else if (flag.name === 'market-tick-ms') tickMs = wholeNumber(`--${flag.name}`, raw, 100, 3_600_000);
    else if (flag.name === 'sellers') sellers = wholeNumber(`--${flag.name}`, raw, 1, MAX_DEMO_SELLERS);
    else seed = wholeNumber(`--${flag.name}`, raw, 0, 4_294_967_295);
  }
  if (noMarket) return { help, market: { kind: 'none' } };
  const sellerApiUrl = setting(env, TAKEALOT_SELLER_API_URL_ENV);
  const storefrontUrl = setting(env, TAKEALOT_STOREFRONT_URL_ENV);
  if (sellerApiUrl !== undefined && storefrontUrl !== undefined) return { help, market: { kind: 'given', sellerApiUrl, storefrontUrl } };
  if (sellerApiUrl !== undefined || storefrontUrl !== undefined) {
    throw new StartOptionError(`set both ${TAKEALOT_SELLER_API_URL_ENV} and ${TAKEALOT_STOREFRONT_URL_ENV}, or neither (then the simulator starts)`);
  }
  const rawPort = setting(env, MARKET_PORT_ENV);
  const port = rawPort === undefined ? DEFAULT_OPTIONS.port : wholeNumber(MARKET_PORT_ENV, rawPort, 1, 65_535);
  return { help, market: { kind: 'simulator', port, seed, tickMs, shapes, ...(sellers === undefined ? {} : { sellers }) } };
};

/** `npm start -- --help`. */
export const startUsage = (): string =>
  [
    'npm start [-- flags]: the whole service on this machine, with demo data and a marketplace simulator (docs/local-run.md)',
    '',
    ...START_FLAGS.map((flag) => `  --${flag.name}${flag.value === undefined ? '' : ` ${flag.value}`}`.padEnd(22) + flag.help),
    '',
    'Environment: PORT, HOST, DYNAMODB_PORT, DYNAMODB_ENDPOINT, TABLE_NAME,',
    `  ${MARKET_PORT_ENV} (the simulator's port, default ${DEFAULT_OPTIONS.port}),`,
    `  ${TAKEALOT_SELLER_API_URL_ENV} and ${TAKEALOT_STOREFRONT_URL_ENV} (a marketplace already running: no simulator is started).`,
  ].join('\n');
