import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AUTHORIZER, ROUTES } from '../../lambdas/config/routes.js';
import { LAMBDA_BUNDLING } from '../../lib/constructs/bundling.js';
import { CHANGE_HANDLERS } from '../../lambdas/config/event-sources.js';

export interface BundleFigures {
  readonly name: string;
  readonly bytes: number;
  readonly coldImportMs: number;
}

const BARE_SOURCE = `import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
export const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
export const handler = async () => ({ statusCode: 200, body: '' });
`;

/** One function's bundle, built with the stack's esbuild settings (lib/constructs/bundling.ts); its size in bytes. */
export const bundleFunction = async (root: string, entry: string, outfile: string): Promise<number> => {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: LAMBDA_BUNDLING.target,
    mainFields: [...LAMBDA_BUNDLING.mainFields],
    banner: { js: LAMBDA_BUNDLING.banner },
    minify: LAMBDA_BUNDLING.minify,
    absWorkingDir: root,
    logLevel: 'error',
  });
  return statSync(outfile).size;
};

/** Time to import a bundle in a fresh Node process (what a cold start pays for code). */
const importMs = (file: string): number => {
  const script = `const t = performance.now(); await import(${JSON.stringify(file)}); process.stdout.write(String(performance.now() - t));`;
  return Number(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      env: {
        ...process.env,
        TABLE_NAME: 'bench',
        LIST_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/bench.fifo',
        REPRICING_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/bench-repricing.fifo',
        AWS_REGION: 'us-east-1',
        POWERTOOLS_LOG_LEVEL: 'WARN',
      },
    }).toString(),
  );
};

/** Every function's bundle, built with the stack's esbuild settings, beside a bare client bundle. */
export const measureBundles = async (root: string, outDir: string, runs = 15): Promise<BundleFigures[]> => {
  mkdirSync(outDir, { recursive: true });
  const barePath = path.join(outDir, 'bare-entry.mjs');
  writeFileSync(barePath, BARE_SOURCE);
  const entries = [
    { name: 'bare DynamoDB document client', entry: barePath },
    { name: 'authorizer', entry: path.join(root, AUTHORIZER.entry) },
    ...ROUTES.map((route) => ({ name: route.name, entry: path.join(root, route.entry) })),
    { name: 'ForwardChanges (stream)', entry: path.join(root, CHANGE_HANDLERS.forwarderEntry) },
    { name: 'MaintainLists (queue)', entry: path.join(root, CHANGE_HANDLERS.maintainerEntry) },
    { name: 'EvaluateRepricers (queue)', entry: path.join(root, CHANGE_HANDLERS.evaluatorEntry) },
  ];
  const built: { name: string; outfile: string; bytes: number }[] = [];
  for (const { name, entry } of entries) {
    const outfile = path.join(outDir, `${name.replace(/\W+/g, '-')}.mjs`);
    built.push({ name, outfile, bytes: await bundleFunction(root, entry, outfile) });
  }
  // One untimed round (files in the page cache), then the bundles in turn, so a slower moment of the machine weighs on all alike.
  for (const { outfile } of built) importMs(outfile);
  const times = built.map(() => [] as number[]);
  for (let run = 0; run < runs; run++) built.forEach(({ outfile }, i) => times[i]!.push(importMs(outfile)));
  return built.map(({ name, bytes }, i) => {
    const sorted = times[i]!.sort((a, b) => a - b);
    return { name, bytes, coldImportMs: sorted[Math.floor(sorted.length / 2)]! };
  });
};
