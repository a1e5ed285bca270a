/**
 * The repository stands alone: no doc or comment names a document outside it, and every path a
 * doc or comment names exists. A file that moves without its mentions leaves a newcomer following
 * a dead end; the compiler checks imports, this checks the prose.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const ROOMS = ['README.md', 'docs', 'lambdas', 'lib', 'tools', 'bin', 'test'];
const TEXT = /\.(ts|md|cjs|sh)$/;

const files = ROOMS.flatMap((room) => {
  const path = join(ROOT, room);
  if (!existsSync(path)) return [];
  if (TEXT.test(room)) return [room];
  return readdirSync(path, { recursive: true, encoding: 'utf8' })
    .filter((name) => TEXT.test(name) && !name.includes('node_modules'))
    .map((name) => join(room, name));
});

/** Lines that are prose (docs, comments, strings), not import statements: the compiler checks those. */
const proseLines = (file: string): { readonly line: number; readonly text: string }[] =>
  readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .map((text, index) => ({ line: index + 1, text }))
    .filter(({ text }) => !/^\s*import\s|\bfrom '\.|^\s*export \* from/.test(text));

/** A path from the repository's root: `lambdas/data/offers/write.ts`. */
const ROOTED = /(?<![\w/.-])((?:lambdas|tools|test|docs|lib|bin)\/[\w./-]+\.(?:ts|md|json|cjs|sh))\b/g;
/** A path inside a room, as comments write them: `data/offers/write.ts`, `send-prices/plan.ts`. */
const IN_ROOM = /(?<![\w/.-])((?:data|domain|functions|marketplace|send-prices|sync-market|read-storefront|config|http|queue|market|bench|admin|local|constructs|support|unit|integration|property)\/[\w./-]+\.(?:ts|md))\b/g;
/** Placeholders that stand for any file, as docs/testing.md's rule writes them. */
const PLACEHOLDER = /(^|\/)x\/y(\.test)?\.ts$/;

const exists = (file: string, path: string): boolean =>
  [ROOT, join(ROOT, 'lambdas'), join(ROOT, 'lambdas', 'functions'), join(ROOT, 'tools'), join(ROOT, 'test'), join(ROOT, 'lib'), join(ROOT, dirname(file))].some((base) =>
    existsSync(join(base, path)),
  );

describe('the repository stands alone', () => {
  it('names no document outside the repository', () => {
    const outside = files
      .filter((file) => !file.endsWith('paths.test.ts'))
      .flatMap((file) =>
      proseLines(file)
        .filter(({ text }) => /DESIGN\.md|DESIGN section|spec\/takealot|service-interface\.md|\.\.\/shared\//.test(text))
        .map(({ line }) => `${file}:${line}`),
    );
    expect(outside).toEqual([]);
  });

  it('names only paths that exist', () => {
    const missing = files.flatMap((file) =>
      proseLines(file).flatMap(({ line, text }) =>
        [...text.matchAll(ROOTED), ...text.matchAll(IN_ROOM)]
          .map((match) => match[1]!)
          .filter((path) => !PLACEHOLDER.test(path) && !exists(file, path))
          .map((path) => `${relative(ROOT, join(ROOT, file))}:${line} ${path}`),
      ),
    );
    expect(missing).toEqual([]);
  });
});
