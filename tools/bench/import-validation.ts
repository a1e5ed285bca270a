/**
 * The worst import bodies `POST /v1/imports` can be sent, validated as its function does
 * (the base64 event body decoded, every line checked, the job's counters built), each in a
 * process of its own so its peak memory is its own. Prints, per shape, the body's size, the
 * outcome, the time and the process's peak resident memory, against the function's 512 MB and
 * 10 s. Each process gets the heap limits Lambda's Node.js bootstrap derives from the function's
 * memory (a tenth for the young generation, its half the semi-space, the rest the old space),
 * so the garbage validation leaves is collected as on Lambda; BENCH_NODE_DEFAULTS=1 leaves
 * Node's own (larger) limits.
 *   npx tsx tools/bench/import-validation.ts            (every shape)
 *   npx tsx tools/bench/import-validation.ts <shape>    (one, as JSON)
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  checkImportBody,
  invalidJobCounters,
  MAX_IMPORT_BODY_BYTES,
  MAX_IMPORT_LINES,
  MAX_LINE_BYTES,
  type ImportType,
} from '../../lambdas/domain/import-jobs.js';

/** Lines repeated until the body is as large as the cap allows (or `maxLines`). */
const fill = (line: string, maxLines = Number.POSITIVE_INFINITY): string => {
  const count = Math.min(maxLines, Math.floor(MAX_IMPORT_BODY_BYTES / (Buffer.byteLength(line) + 1)));
  return `${line}\n`.repeat(count);
};
const keys = (prefix: string, bytes: number, value: string) => {
  const parts: string[] = [];
  let size = 2;
  for (let i = 0; size < bytes - 40; i++) {
    const part = `"${prefix}${i}":${value}`;
    parts.push(part);
    size += part.length + 1;
  }
  return `{${parts.join(',')}}`;
};

/** Each shape: the import type and the body, as the function would receive it. */
const SHAPES: Record<string, () => { type: ImportType; body: string }> = {
  // The 5 MB body: over the cap, answered 413 before it is read.
  '5 MB of empty objects': () => ({ type: 'products', body: '{}\n'.repeat(Math.floor((5 * 1000 * 1000) / 3)) }),
  // The attack: 1.4 million empty objects; past the line cap, refused before parsing.
  'empty objects to the byte cap': () => ({ type: 'products', body: fill('{}') }),
  // As many lines as allowed, each missing every one of a product's 18 fields.
  'empty objects to the line cap': () => ({ type: 'products', body: fill('{}', MAX_IMPORT_LINES) }),
  // As many lines as allowed, each as long as the bytes allow, of unknown keys echoed in errors.
  'unknown keys on every line': () => ({
    type: 'products',
    body: fill(keys('\uffff', Math.floor(MAX_IMPORT_BODY_BYTES / MAX_IMPORT_LINES), '0'), MAX_IMPORT_LINES),
  }),
  // The longest lines allowed, each of thousands of unknown keys.
  'longest lines of unknown keys': () => ({ type: 'offers', body: fill(keys('k', MAX_LINE_BYTES, '0')) }),
  // The longest lines allowed, each a record of thousands of fee estimates, each wrong.
  'longest lines of wrong fee estimates': () => ({ type: 'products', body: fill(`{"fee_estimates":${keys('c', MAX_LINE_BYTES - 20, '1')}}`) }),
  // Valid lines as short as a repricer line can be: everything validated, nothing refused.
  'valid repricer lines to the line cap': () => ({
    type: 'repricers',
    body: Array.from({ length: MAX_IMPORT_LINES }, (_, i) => JSON.stringify({ product_code: `P-${i}`, preferred_price: 10, preferred_profit: 1 })).join('\n'),
  }),
};

const measure = (shape: string) => {
  const { type, body } = SHAPES[shape]!();
  // As API Gateway hands a binary media type: base64 in the event.
  const eventBody = Buffer.from(body, 'utf8').toString('base64');
  const started = performance.now();
  const raw = Buffer.from(eventBody, 'base64');
  // The body limit comes first (lambdas/http/body-limit.ts): a body over the cap is never decoded.
  const text = raw.byteLength > MAX_IMPORT_BODY_BYTES ? undefined : new TextDecoder('utf-8', { fatal: true }).decode(raw);
  const checked = text === undefined ? { ok: false as const, message: `413: over ${MAX_IMPORT_BODY_BYTES} bytes` } : checkImportBody(type, text);
  const outcome = !checked.ok
    ? checked.message.startsWith('413')
      ? checked.message
      : `400: ${checked.message}`
    : checked.problems.length > 0
      ? (() => {
          const counters = invalidJobCounters(checked.total, checked.problems, checked.invalidLines);
          return `202 failed: ${counters.invalid} of ${counters.total} lines invalid, ${counters.errors.length} listed (${Buffer.byteLength(JSON.stringify(counters.errors))} bytes)`;
        })()
      : `202 pending: ${checked.total} lines`;
  const ms = performance.now() - started;
  return { shape, bodyBytes: raw.byteLength, outcome, ms: Math.round(ms), peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024) };
};

const FUNCTION_MEMORY_MB = 512;
const lambdaHeapFlags = (memoryMb: number): string[] => {
  const newSpace = Math.floor(memoryMb / 10);
  return [`--max-semi-space-size=${Math.floor(newSpace / 2)}`, `--max-old-space-size=${memoryMb - newSpace}`];
};

const shape = process.argv[2];
if (shape) {
  if (!(shape in SHAPES)) throw new Error(`Unknown shape "${shape}"; one of: ${Object.keys(SHAPES).join(', ')}`);
  console.log(JSON.stringify(measure(shape)));
} else {
  const baseline = Math.round(process.resourceUsage().maxRSS / 1024);
  console.log(
    `Import validation, worst bodies (cap ${MAX_IMPORT_BODY_BYTES} bytes, ${MAX_IMPORT_LINES} lines, ${MAX_LINE_BYTES} bytes a line); this process at rest: ${baseline} MB`,
  );
  console.log(
    process.env.BENCH_NODE_DEFAULTS === '1'
      ? "Node's default heap limits"
      : `Heap limits of a ${FUNCTION_MEMORY_MB} MB function: ${lambdaHeapFlags(FUNCTION_MEMORY_MB).join(' ')}`,
  );
  for (const name of Object.keys(SHAPES)) {
    const heapFlags = process.env.BENCH_NODE_DEFAULTS === '1' ? [] : lambdaHeapFlags(FUNCTION_MEMORY_MB);
    const run = spawnSync(process.execPath, [...heapFlags, ...process.execArgv, fileURLToPath(import.meta.url), name], { encoding: 'utf8', timeout: 120_000 });
    if (run.status !== 0) {
      console.log(`${name}: failed (${run.signal ?? run.status}) ${run.stderr.slice(0, 500)}`);
      continue;
    }
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as ReturnType<typeof measure>;
    console.log(
      `${result.shape.padEnd(40)} ${String(result.bodyBytes).padStart(8)} B  ${String(result.ms).padStart(6)} ms  peak RSS ${String(result.peakRssMb).padStart(4)} MB  ${result.outcome}`,
    );
  }
}
