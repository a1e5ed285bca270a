/**
 * The registry of stored kinds (lambdas/data/table/entities.ts) against itself, the key builders
 * and docs/data-model.md: no two kinds can take the same key, every builder makes keys of the
 * kind it is declared for, and the data model's table of items lists every kind with its key
 * pattern, and nothing else.
 */
import { readFileSync } from 'node:fs';
import {
  COLLECTIONS,
  ENTITIES,
  ENTITY_NAMES,
  entityOfKey,
  keyPatternOf,
  patternRegExp,
  RANKED_LIST_TAGS,
  type EntityName,
} from '../../../../lambdas/data/table/entities.js';
import { OFFER_LIST } from '../../../../lambdas/data/offers/list.js';
import { PRICE_CHANGE_LIST, PRODUCT_PRICE_CHANGE_LIST } from '../../../../lambdas/data/price-changes/list.js';
import { REPRICER_LIST } from '../../../../lambdas/data/repricers/list.js';

const isLiteral = (segment: string) => !segment.includes('{');
const isTail = (segment: string) => segment.includes('{...');
const literalPrefix = (segment: string) => segment.slice(0, segment.indexOf('{'));
const literalSuffix = (segment: string) => segment.slice(segment.lastIndexOf('}') + 1);
const compatible = (a: string, b: string) => a.startsWith(b) || b.startsWith(a);

/**
 * Whether one `#`-free segment of two patterns can be the same text. Two literals must be equal;
 * a literal must match the other's pattern; two segments with variables can only be told apart
 * by their literal prefixes and suffixes (anything else may overlap: the answer errs that way).
 */
const segmentsMayMeet = (a: string, b: string): boolean => {
  if (isLiteral(a) && isLiteral(b)) return a === b;
  if (isLiteral(a)) return patternRegExp(b).test(a);
  if (isLiteral(b)) return patternRegExp(a).test(b);
  return compatible(literalPrefix(a), literalPrefix(b)) && (literalSuffix(a).endsWith(literalSuffix(b)) || literalSuffix(b).endsWith(literalSuffix(a)));
};

/**
 * Whether some key can match both patterns. A variable never holds `#` (entities.ts), so a key's
 * `#`-separated segments line up with its pattern's: patterns with different segment counts never
 * meet, and otherwise they meet only if every pair of segments can. A `{...tail}` may span
 * segments: from it on, the patterns are taken to meet if the literal before it allows.
 */
const patternsMayMeet = (a: string, b: string): boolean => {
  const [as, bs] = [a.split('#'), b.split('#')];
  for (let i = 0; ; i++) {
    const [x, y] = [as[i], bs[i]];
    if (x === undefined || y === undefined) return x === y;
    if (isTail(x) || isTail(y)) return compatible(isTail(x) ? literalPrefix(x) : x, isTail(y) ? literalPrefix(y) : y);
    if (!segmentsMayMeet(x, y)) return false;
  }
};

const keysMayMeet = (a: EntityName, b: EntityName): boolean => {
  const [x, y] = [keyPatternOf(a), keyPatternOf(b)];
  return patternsMayMeet(x.pk, y.pk) && patternsMayMeet(x.sk, y.sk);
};

describe('the registry of stored kinds', () => {
  it('tells overlapping key patterns from disjoint ones (the check below can fail)', () => {
    expect(patternsMayMeet('T#{client}#P#{code}', 'T#{client}#{kind}#{id}')).toBe(true);
    expect(patternsMayMeet('T#{client}#P#{code}', 'T#{client}#PC#{code}')).toBe(false);
    expect(patternsMayMeet('PUSH#{connector}#{token}', 'PUSHES#{offerId}#{day}')).toBe(false);
    expect(patternsMayMeet('{offerId}', 'PRODUCT')).toBe(true);
    expect(patternsMayMeet('T#{client}#PS={code}#PCL#{cell}', 'T#{client}#P#{code}#PCL#{cell}')).toBe(false);
    expect(patternsMayMeet('T#{client}#OL#{cell}', 'T#{client}#OLN#{order}')).toBe(false);
    expect(patternsMayMeet('T#{client}#OL#{cell}', 'T#{client}#OL')).toBe(false);
    expect(patternsMayMeet('IDEMPOTENCY#{...rest}', 'IDEMPOTENCY#a#b#c')).toBe(true);
    expect(patternsMayMeet('IDEMPOTENCY#{...rest}', 'IDEMPOTENT#a')).toBe(false);
  });

  it('has no two kinds that can take the same key (pk and sk)', () => {
    const meeting = ENTITY_NAMES.flatMap((a, i) => ENTITY_NAMES.slice(i + 1).flatMap((b) => (keysMayMeet(a, b) ? [`${a} / ${b}`] : [])));
    expect(meeting).toEqual([]);
  });

  it.each(ENTITY_NAMES)('knows a key the builders of keys.ts make for %s as that kind and no other', (name) => {
    const { example } = ENTITIES[name];
    expect(entityOfKey(example.pk, example.sk)).toBe(name);
    expect(
      ENTITY_NAMES.filter((other) => patternRegExp(keyPatternOf(other).pk).test(example.pk) && patternRegExp(keyPatternOf(other).sk).test(example.sk)),
    ).toEqual([name]);
  });

  it('names every collection some entity lives in, and no other', () => {
    expect(new Set(ENTITY_NAMES.map((name) => ENTITIES[name].collection))).toEqual(new Set(Object.keys(COLLECTIONS)));
  });

  it('gives the entities of one collection one role (what the purge groups its partitions by)', () => {
    const roles = new Map<string, Set<string>>();
    for (const name of ENTITY_NAMES)
      (roles.get(ENTITIES[name].collection) ?? roles.set(ENTITIES[name].collection, new Set()).get(ENTITIES[name].collection)!).add(ENTITIES[name].role);
    expect([...roles].filter(([, set]) => set.size > 1)).toEqual([]);
  });

  it("names every ranked list by its tag, its listings with the indexes of the list's sort orders", () => {
    const lists = [OFFER_LIST, REPRICER_LIST, PRICE_CHANGE_LIST, PRODUCT_PRICE_CHANGE_LIST];
    expect(lists.map((list) => list.tag).sort()).toEqual(Object.keys(RANKED_LIST_TAGS).sort());
    const listings = ENTITY_NAMES.filter((name) => ENTITIES[name].role === 'listing');
    expect(
      Object.fromEntries(
        listings.map((name) => {
          const tag = (COLLECTIONS[ENTITIES[name].collection] as { list?: string }).list;
          const list = lists.find((candidate) => candidate.tag === tag)!;
          const orders: Record<string, { index?: { indexName: string } }> = list.orders;
          return [name, Object.values(orders).flatMap((order) => (order.index ? [order.index.indexName] : []))];
        }),
      ),
    ).toEqual(Object.fromEntries(listings.map((name) => [name, [...ENTITIES[name].indexes]])));
  });

  it('knows no kind for a key none has', () => {
    expect(entityOfKey('T#c1#P#SKU', 'NOTHING#1')).toBeUndefined();
    expect(entityOfKey('ELSEWHERE#1', 'CLIENT')).toBeUndefined();
  });
});

describe("docs/data-model.md's table of items", () => {
  const doc = readFileSync(new URL('../../../../docs/data-model.md', import.meta.url), 'utf8');
  /** The rows of the table whose header starts `| Entity | pk | sk |`: entity name (in backticks in the first cell), pk, sk. */
  const rows = (() => {
    const start = doc.indexOf('| Entity | pk | sk |');
    expect(start).toBeGreaterThanOrEqual(0);
    const end = doc.indexOf('\n\n', start);
    const lines = doc.slice(start, end).split('\n').slice(2);
    return lines.map((line) => {
      const cells = line.split(' | ');
      const code = (cell = '') => /`([^`]*)`/.exec(cell)?.[1];
      return { name: code(cells[0]), pk: code(cells[1]), sk: code(cells[2]) };
    });
  })();
  /** Variable names are the doc's own (`<c>`, `<code>`): only where variables stand is compared. */
  const shape = (pattern = '') => pattern.replace(/\{\.\.\.[^}]*\}|<\.\.\.[^>]*>/g, '<...>').replace(/\{[^}.]*\}|<[^>.]*>/g, '<>');

  it('has one row for each kind of the registry, and no other', () => {
    expect(rows.map((row) => row.name).sort()).toEqual([...ENTITY_NAMES].sort());
  });

  it('gives each kind its key pattern', () => {
    const wrong = rows.flatMap((row) => {
      if (!row.name || !(row.name in ENTITIES)) return [];
      const expected = keyPatternOf(row.name as EntityName);
      return shape(row.pk) === shape(expected.pk) && shape(row.sk) === shape(expected.sk)
        ? []
        : [`${row.name}: ${row.pk ?? '?'} ${row.sk ?? '?'} (the registry: ${expected.pk} ${expected.sk})`];
    });
    expect(wrong).toEqual([]);
  });
});
