/**
 * The benchmarks' command-line flags, parsed one way for every part (docs/performance.md):
 * `--quick` picks the quick sizes, `--skip a,b` leaves parts out, `--shapes NAME` picks the
 * simulator's shapes (`default`, or `reported`: every form of Takealot's pages only reported,
 * tools/market/shapes.ts), and each named numeric flag sets one setting to a whole number from 1
 * to 100,000.
 */
import { SHAPE_PRESETS } from '../market/shapes.js';

export interface BenchFlags<S, P extends string> {
  readonly full: S;
  readonly quick: S;
  /** Flag -> setting, e.g. `'--products': 'products'`. */
  readonly numbers: Readonly<Record<string, keyof S>>;
  /** What `--skip` may name. */
  readonly parts: readonly P[];
}

export const parseBenchFlags = <S extends object, P extends string>(
  argv: readonly string[],
  spec: BenchFlags<S, P>,
): S & { readonly skip: ReadonlySet<P>; readonly shapes: string } => {
  const settings: Record<string, unknown> = { shapes: 'default', ...(argv.includes('--quick') ? spec.quick : spec.full) } as Record<string, unknown>;
  const skip = new Set<P>();
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (flag === '--quick') continue;
    const value = argv[i + 1];
    i += 1;
    if (flag === '--skip') {
      for (const part of (value ?? '').split(',')) {
        if (!(spec.parts as readonly string[]).includes(part)) throw new Error(`--skip takes ${spec.parts.join(', ')}; got ${part}`);
        skip.add(part as P);
      }
      continue;
    }
    if (flag === '--shapes') {
      if (value === undefined || !Object.hasOwn(SHAPE_PRESETS, value))
        throw new Error(`--shapes takes ${Object.keys(SHAPE_PRESETS).join(' or ')}; got ${value}`);
      settings.shapes = value;
      continue;
    }
    const key = spec.numbers[flag];
    const number = Number(value);
    if (key === undefined) throw new Error(`Unknown option ${flag}: --quick, --skip, ${Object.keys(spec.numbers).join(', ')}`);
    if (!Number.isInteger(number) || number < 1 || number > 100_000) throw new Error(`${flag} takes a whole number from 1 to 100000, got ${value}`);
    settings[key as string] = number;
  }
  return { ...(settings as S & { shapes: string }), skip };
};
