/**
 * `npm run bench -- --planner-sim [--quick] [--seed N] [--minutes M] [--budget R]`: the read
 * planner against today's fixed tiers, a discrete-event simulation at marketplace scale
 * (docs/performance.md). No table, no HTTP: one seeded world (planner-sim-world.ts), each
 * schedule run over it at 10, 100 and 1,000 reads a second, with and without one large tenant
 * asking for a sync every minute; the figures side by side. Printed, and written to
 * .bench/planner-sim.json.
 */
import { READ_PLANNER } from '../../lambdas/config/read-planner.js';
import { parseBenchFlags } from './bench-flags.js';
import { runPlanned } from './planner-sim-planned.js';
import { Recorder, type RunFigures } from './planner-sim-recorder.js';
import { runToday, type RunOptions } from './planner-sim-today.js';
import { buildWorld, type WorldShape } from './planner-sim-world.js';

export interface PlannerSimSettings {
  readonly quick: boolean;
  readonly seed: number;
  readonly minutes: number;
  readonly warmupMinutes: number;
  /** 0: every budget of `budgets`; else this one alone. */
  readonly budget: number;
}

const FULL_SHAPE: Omit<WorldShape, 'spanSeconds'> = {
  tenants: 1_000,
  tenantOffers: 500_000,
  products: 100_000,
  minOffers: 10,
  maxOffers: 20_000,
  maxSellers: 30,
  repricedShare: 0.3,
  hotShare: 0.03,
  hotMoveSeconds: 4 * 60,
  coldMoveSeconds: 3 * 24 * 3600,
  driftSeconds: 30 * 60,
  contestedShare: 0.3,
  eventsPerSecond: 0.5,
  noisyOffers: 100_000,
};
const QUICK_SHAPE: Omit<WorldShape, 'spanSeconds'> = {
  ...FULL_SHAPE,
  tenants: 100,
  tenantOffers: 50_000,
  products: 10_000,
  maxOffers: 2_000,
  noisyOffers: 10_000,
};
const BUDGETS = [10, 100, 1_000];
const NOISY_SYNC_EVERY_MS = 60_000;

export const plannerSimSettings = (argv: readonly string[]): PlannerSimSettings => {
  const {
    skip: _skip,
    shapes: _shapes,
    ...settings
  } = parseBenchFlags(argv, {
    full: { quick: false, seed: 1, minutes: 60, warmupMinutes: 20, budget: 0 },
    quick: { quick: true, seed: 1, minutes: 30, warmupMinutes: 10, budget: 0 },
    numbers: { '--seed': 'seed', '--minutes': 'minutes', '--budget': 'budget' },
    parts: [],
  });
  return settings;
};

export interface BudgetFigures {
  readonly budget: number;
  readonly today: RunFigures & { readonly cpuMs: number };
  readonly planner: RunFigures & { readonly cpuMs: number; readonly plannerMs: number; readonly early: number };
  readonly todayNoisy: RunFigures;
  readonly plannerNoisy: RunFigures & { readonly syncs: { accepted: number; coalesced: number; rejected: number } };
}

const say = (line: string) => process.stderr.write(`${line}\n`);

export const runPlannerSim = (settings: PlannerSimSettings): { readonly lines: string[]; readonly results: BudgetFigures[]; readonly shape: WorldShape } => {
  const shape: WorldShape = { ...(settings.quick ? QUICK_SHAPE : FULL_SHAPE), spanSeconds: settings.minutes * 60 };
  const warmupMs = Math.min(settings.warmupMinutes, settings.minutes / 2) * 60_000;
  const spanMs = shape.spanSeconds * 1000;
  const built = performance.now();
  const base = buildWorld(shape, settings.seed, false);
  const noisy = buildWorld(shape, settings.seed, true);
  say(
    `worlds built in ${((performance.now() - built) / 1000).toFixed(1)} s: ${base.tenants} tenants, ${base.productOf.length} tenant-offers, ${base.products} products`,
  );
  const floorMs = READ_PLANNER.floorSeconds * 1000;
  const results: BudgetFigures[] = [];
  for (const budget of settings.budget === 0 ? BUDGETS : [settings.budget]) {
    const options: RunOptions = { budget, seed: settings.seed, warmupMs, noisySyncEveryMs: NOISY_SYNC_EVERY_MS };
    const run = <T extends object>(label: string, world: typeof base, model: (recorder: Recorder) => T): RunFigures & T => {
      const recorder = new Recorder(world, warmupMs, spanMs, floorMs);
      const started = performance.now();
      const extra = model(recorder);
      say(`  ${budget}/s ${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
      return { ...recorder.figures(), ...extra };
    };
    results.push({
      budget,
      today: run('today', base, (r) => runToday(base, r, options)),
      planner: run('planner', base, (r) => runPlanned(base, r, options)),
      todayNoisy: run('today, noisy tenant', noisy, (r) => runToday(noisy, r, options)),
      plannerNoisy: run('planner, noisy tenant', noisy, (r) => runPlanned(noisy, r, options)),
    });
  }
  return { lines: table(results, base.productOf.length, shape, warmupMs), results, shape };
};

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)} %` : 'n/a');
const secs = (x: number) => (Number.isFinite(x) ? (x >= 600 ? `${(x / 60).toFixed(0)} min` : `${x.toFixed(1)} s`) : '> 48 h');
const change = (without: number, withNoisy: number) =>
  `${secs(without)} / ${secs(withNoisy)} (${withNoisy >= without ? '+' : ''}${(100 * (withNoisy / without - 1)).toFixed(1)} %)`;

const table = (results: readonly BudgetFigures[], tenantOffers: number, shape: WorldShape, warmupMs: number): string[] => {
  const header = `| figure | ${results.flatMap((r) => [`today ${r.budget}/s`, `planner ${r.budget}/s`]).join(' | ')} |`;
  const rule = `|---|${results.map(() => '---:|---:|').join('')}`;
  const row = (label: string, cell: (f: RunFigures, r: BudgetFigures, planner: boolean) => string) =>
    `| ${label} | ${results.flatMap((r) => [cell(r.today, r, false), cell(r.planner, r, true)]).join(' | ')} |`;
  const hours = (shape.spanSeconds * 1000 - warmupMs) / 3_600_000;
  const lines = [
    header,
    rule,
    row('reads per second, mean (most in one second)', (f) => `${f.readsPerSecondMean.toFixed(1)} (${f.readsPerSecondMax})`),
    ...[0, 1, 2].map((i) => row(`reads per page per 2-minute look, ${results[0]!.today.readsPerLook[i]!.sellers}`, (f) => f.readsPerLook[i]!.value.toFixed(2))),
    row('reads of one page less than 30 s apart', (f) => String(f.readsWithinFloor)),
    row('moves on repriced products seen within 2 min', (f) => pct(f.movesWithin2Min)),
    row('moves on repriced products seen within 10 min', (f) => pct(f.movesWithin10Min)),
    row("tenants' reads against their fair share (Jain's index)", (f) => f.jain.toFixed(3)),
    row('p95 view age of the other tenants, without / with the noisy tenant', (_f, r, planner) =>
      planner
        ? change(r.planner.freshnessP95Seconds, r.plannerNoisy.freshnessP95Seconds)
        : change(r.today.freshnessP95Seconds, r.todayNoisy.freshnessP95Seconds),
    ),
    row('p95 view age of their repriced offers, without / with', (_f, r, planner) =>
      planner
        ? change(r.planner.freshnessRepricedP95Seconds, r.plannerNoisy.freshnessRepricedP95Seconds)
        : change(r.today.freshnessRepricedP95Seconds, r.todayNoisy.freshnessRepricedP95Seconds),
    ),
    row('queue age p99', (f) => secs(f.queueAgeP99Seconds)),
    row('reads dropped (lost their use)', (f) => String(f.dropped)),
    row('planner CPU, ms per simulated hour per million tenant-offers', (_f, r, planner) =>
      planner ? (r.planner.plannerMs / (shape.spanSeconds / 3600) / (tenantOffers / 1e6)).toFixed(0) : '',
    ),
  ];
  const goals = results.flatMap((r) => {
    const ratio = r.planner.movesWithin2Min / r.today.movesWithin2Min;
    const drift = Math.abs(r.plannerNoisy.freshnessP95Seconds / r.planner.freshnessP95Seconds - 1);
    const driftRepriced = Math.abs(r.plannerNoisy.freshnessRepricedP95Seconds / r.planner.freshnessRepricedP95Seconds - 1);
    return [
      `${r.budget}/s: moves seen within 2 min, planner / today: ${Number.isFinite(ratio) ? ratio.toFixed(1) : 'inf'}x (goal >= 3x) ${ratio >= 3 ? 'MET' : 'MISSED'}`,
      `${r.budget}/s: the noisy tenant's effect on the others' p95 view age: ${(100 * drift).toFixed(1)} %, repriced ${(100 * driftRepriced).toFixed(1)} % (goal <= 10 %) ${drift <= 0.1 && driftRepriced <= 0.1 ? 'MET' : 'MISSED'}; its syncs: ${r.plannerNoisy.syncs.accepted} accepted, ${r.plannerNoisy.syncs.coalesced} coalesced, ${r.plannerNoisy.syncs.rejected} refused (429)`,
      `${r.budget}/s: the planner took ${r.planner.early} looks early from spare budget; its run took ${(r.planner.cpuMs / 1000).toFixed(1)} s, ${(r.planner.plannerMs / 1000).toFixed(1)} s of it in the planner`,
    ];
  });
  return [`${hours.toFixed(1)} hours measured after the warm-up`, '', ...lines, '', ...goals];
};
