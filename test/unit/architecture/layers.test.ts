/**
 * The layout of `lambdas/` as rules over its import graph (tools/architecture/import-graph.ts,
 * `npm run graph` prints the same figures): entry points in `functions/` on top, no two folders
 * that import each other at any level, and a domain that imports nothing that does I/O.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { folderArrows, folderUnder, importEdges, levels, mutualPairs } from '../../../tools/architecture/import-graph.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const edges = importEdges(repoRoot);

describe('the layout of lambdas/', () => {
  it('reads the imports it rules on', () => {
    expect(edges.length).toBeGreaterThan(500);
    expect(folderArrows(edges, 'lambdas').has('lambdas/functions -> lambdas/http')).toBe(true);
  });

  it.each(levels(repoRoot))('has no two folders of %s/ that import each other', (level) => {
    expect(mutualPairs(edges, level)).toEqual([]);
  });

  it('keeps entry points on top: nothing imports a function, and no function imports another', () => {
    const intoFunctions = edges.filter(({ from, to }) => {
      const target = folderUnder('lambdas/functions', to);
      return target !== undefined && folderUnder('lambdas/functions', from) !== target;
    });
    expect(intoFunctions.map(({ from, to }) => `${from} -> ${to}`)).toEqual([]);
  });

  it('keeps the domain pure: it imports only itself and configuration constants', () => {
    const outOfDomain = edges.filter(
      ({ from, to }) => from.startsWith('lambdas/domain/') && !to.startsWith('lambdas/domain/') && !to.startsWith('lambdas/config/'),
    );
    expect(outOfDomain.map(({ from, to }) => `${from} -> ${to}`)).toEqual([]);
  });

  it('keeps the domain off the clock: it takes time as an argument, never reads lambdas/config/clock.ts', () => {
    const intoClock = edges.filter(({ from, to }) => from.startsWith('lambdas/domain/') && to === 'lambdas/config/clock.ts');
    expect(intoClock.map(({ from, to }) => `${from} -> ${to}`)).toEqual([]);
    // The rule reads the edges it would catch: the clock is imported by the service's other rooms.
    expect(edges.some(({ from, to }) => from.startsWith('lambdas/data/') && to === 'lambdas/config/clock.ts')).toBe(true);
  });

  it('keeps the domain free of I/O packages: zod and Node built-ins only', () => {
    const domainFiles = [...new Set(edges.map(({ from }) => from).filter((file) => file.startsWith('lambdas/domain/')))];
    const packages = domainFiles.flatMap((file) =>
      [...readFileSync(path.join(repoRoot, file), 'utf8').matchAll(/from\s+'([^.'][^']*)'/g)]
        .map((match) => match[1] ?? '')
        .filter((name) => name !== 'zod' && !name.startsWith('node:'))
        .map((name) => `${file}: ${name}`),
    );
    expect(packages).toEqual([]);
  });
});
