/**
 * The import graph of `lambdas/`, read from the source text: which folders import which.
 * `npm run graph` prints the figures (folders that import each other, at each level);
 * test/unit/architecture/layers.test.ts holds the rules the layout keeps.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ImportEdge {
  from: string; // a file, relative to the repository root
  to: string;
}

const importPattern = /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Every import from one file of `root` to another, `.js` specifiers mapped to their `.ts` files. */
export function importEdges(repoRoot: string, root = 'lambdas'): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of sourceFiles(join(repoRoot, root))) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(importPattern)) {
      const specifier = match[1] ?? match[2];
      if (!specifier?.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
      edges.push({ from: relative(repoRoot, file), to: relative(repoRoot, target) });
    }
  }
  return edges;
}

/** The folder directly under `parent` that holds `file`, or undefined when `file` lies elsewhere or at its top. */
export function folderUnder(parent: string, file: string): string | undefined {
  if (!file.startsWith(`${parent}/`)) return undefined;
  const rest = file.slice(parent.length + 1).split('/');
  return rest.length > 1 ? `${parent}/${rest[0]}` : undefined;
}

/** Folder arrows among the folders directly under `parent`: "a -> b" once each. */
export function folderArrows(edges: ImportEdge[], parent: string): Set<string> {
  const arrows = new Set<string>();
  for (const { from, to } of edges) {
    const a = folderUnder(parent, from);
    const b = folderUnder(parent, to);
    if (a && b && a !== b) arrows.add(`${a} -> ${b}`);
  }
  return arrows;
}

/** Pairs of folders directly under `parent` that import each other. */
export function mutualPairs(edges: ImportEdge[], parent: string): string[] {
  const arrows = folderArrows(edges, parent);
  const pairs: string[] = [];
  for (const arrow of arrows) {
    const [a = '', b = ''] = arrow.split(' -> ');
    if (a < b && arrows.has(`${b} -> ${a}`)) pairs.push(`${a} <-> ${b}`);
  }
  return pairs.sort();
}

/** Every folder under `root` (itself included) that has subfolders: the levels the rules are checked at. */
export function levels(repoRoot: string, root = 'lambdas'): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    const subdirs = readdirSync(join(repoRoot, dir)).filter((name) => statSync(join(repoRoot, dir, name)).isDirectory());
    if (subdirs.length > 0) out.push(dir);
    for (const name of subdirs) walk(`${dir}/${name}`);
  };
  walk(root);
  return out;
}

/** The files `start` reaches through its imports, each with its distance in imports from `start`. */
export function reachableFrom(edges: ImportEdge[], start: string): Map<string, number> {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const distance = new Map([[start, 0]]);
  const queue = [start];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const target of next.get(file) ?? []) {
      if (distance.has(target)) continue;
      distance.set(target, (distance.get(file) ?? 0) + 1);
      queue.push(target);
    }
  }
  return distance;
}

if (process.argv[1]?.endsWith('import-graph.ts')) {
  process.stdout.on('error', () => process.exit(0)); // a closed pipe (| head) ends the listing
  const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
  const edges = importEdges(repoRoot);
  const fromIndex = process.argv.indexOf('--from');
  const start = fromIndex > 0 ? process.argv[fromIndex + 1] : undefined;
  if (start) {
    // What a reader opens to follow one entry point down: the files it reaches, by room.
    const reached = reachableFrom(edges, start);
    const rooms = new Map<string, number>();
    for (const file of reached.keys()) {
      const room = file
        .split('/')
        .slice(0, file.startsWith('lambdas/data/') || file.startsWith('lambdas/functions/') ? 3 : 2)
        .join('/');
      rooms.set(room, (rooms.get(room) ?? 0) + 1);
    }
    console.log(`${start}: reaches ${reached.size} files, at most ${Math.max(...reached.values())} imports deep`);
    for (const [room, count] of [...rooms].sort((a, b) => b[1] - a[1])) console.log(`  ${String(count).padStart(3)} ${room}/`);
    process.exit(0);
  }
  console.log(`imports between files of lambdas/: ${edges.length}`);
  for (const level of levels(repoRoot)) {
    const pairs = mutualPairs(edges, level);
    console.log(`${level}/: ${folderArrows(edges, level).size} folder arrows, ${pairs.length} pairs importing each other`);
    for (const pair of pairs) console.log(`  ${pair}`);
  }
}
