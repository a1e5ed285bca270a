import { deflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import {
  addNode,
  addToNode,
  copyNode,
  decodeNode,
  emptyNode,
  filteredCount,
  FIRST_BOUND,
  nodeIndexOf,
  nodeItem,
  totalOf,
  type RankNode,
} from '../../../../../lambdas/data/lists/ranked/nodes.js';
import { fcParameters, fcRuns } from '../../../../support/seed.js';

const PK = 'T#c1#OLN#id#b';

/** A node from per-cell histograms: { cell: { value: count } }. */
const nodeOf = (lo: string, hist: Record<string, Record<number, number>>, extra: Partial<RankNode> = {}): RankNode => {
  const node = emptyNode(lo, true, extra.hi);
  for (const [cell, values] of Object.entries(hist)) {
    for (const [g, n] of Object.entries(values)) addToNode(node, cell, Number(g), n);
  }
  return { ...node, ...extra };
};

const plain = (node: RankNode) => ({
  lo: node.lo,
  hi: node.hi,
  counts: Object.fromEntries([...node.counts].filter(([, n]) => n !== 0)),
  hist: node.hist
    ? Object.fromEntries(
        [...node.hist]
          .map(([cell, values]) => [cell, Object.fromEntries([...values].filter(([, n]) => n !== 0))] as const)
          .filter(([, values]) => Object.keys(values).length > 0),
      )
    : undefined,
  q: node.q,
  v: node.v,
});

describe('node items', () => {
  it('stores counts as n:<cell> attributes, the histogram as bytes, and leaves zero counts out', () => {
    // Prepare
    const node = nodeOf('00000010', { 'own|high': { 3: 2, 5: 1 }, 'other|low': { 0: 1 } }, { hi: '00000020', q: '17', v: 4 });
    addToNode(node, 'own|medium', 1, 1);
    addToNode(node, 'own|medium', 1, -1);

    // Act
    const item = nodeItem(PK, node);

    // Assess
    expect(item).toEqual({
      pk: PK,
      sk: '00000010',
      entity: 'rankNode',
      hi: '00000020',
      'n:own|high': 3,
      'n:other|low': 1,
      h: expect.any(Uint8Array),
      q: '17',
      v: 4,
    });
  });

  it('leaves out hi for the last node, q before any batch, and h without a histogram', () => {
    const item = nodeItem(PK, emptyNode(FIRST_BOUND, false));
    expect(item).toEqual({ pk: PK, sk: FIRST_BOUND, entity: 'rankNode', v: 0 });
  });

  it.each<[string, RankNode]>([
    ['an empty first node', emptyNode(FIRST_BOUND, false)],
    ['an empty node with a histogram', emptyNode('0005', true, '0009')],
    [
      'counts only',
      {
        ...emptyNode('x', false),
        counts: new Map([
          ['on', 3],
          ['off', 1],
        ]),
        q: '99',
        v: 2,
      },
    ],
    ['a histogram over a wide range of values', nodeOf('a', { 'own|%23': { 0: 1, 1_000_000: 2 } })],
  ])('round-trips %s', (_case, node) => {
    expect(plain(decodeNode(nodeItem(PK, node)))).toEqual(plain(node));
  });

  it('round-trips any node', () => {
    const cell = fc.constantFrom('own|high', 'own|low', 'other|high', 'other|%C3%A9');
    const histograms = fc.dictionary(
      cell,
      fc.dictionary(
        fc.oneof(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 1_000_000 })).map(String),
        fc.integer({ min: -3, max: 500 }).filter((n) => n !== 0),
      ),
    );
    fc.assert(
      fc.property(histograms, fc.bigInt({ min: 0n, max: 2n ** 64n }), fc.nat(), (hist, q, v) => {
        const node = nodeOf(
          '00000abc',
          Object.fromEntries(Object.entries(hist).map(([c, values]) => [c, Object.fromEntries(Object.entries(values).map(([g, n]) => [Number(g), n]))])),
          {
            q: String(q),
            v,
          },
        );
        expect(plain(decodeNode(nodeItem(PK, node)))).toEqual(plain(node));
      }),
      fcParameters({ numRuns: fcRuns(200, 1000) }),
    );
  });

  it('keeps a node whose competitor counts lie far apart small and quick to read', () => {
    // Prepare: every cell holds an offer with no competitors and one with a million
    const node = nodeOf('-', Object.fromEntries(['own|high', 'own|low', 'other|high', 'other|low'].map((cell) => [cell, { 0: 1, 1_000_000: 1 }])));

    // Act
    const started = performance.now();
    const item = nodeItem(PK, node);
    const decoded = decodeNode(item);
    const elapsed = performance.now() - started;

    // Assess
    expect((item.h as Uint8Array).length).toBeLessThan(100);
    expect(elapsed).toBeLessThan(200);
    expect(plain(decoded)).toEqual(plain(node));
  });

  it('reads histograms written densely, value after value', () => {
    // Prepare: 'own|high' counts 2 at 3 competitors and 1 at 5, written without skips
    const item = { pk: PK, sk: '-', v: 1, 'n:own|high': 3, h: deflateRawSync(Buffer.from('own|high=3:2,0,1', 'utf8')) };

    // Act & Assess
    expect(decodeNode(item).hist).toEqual(
      new Map([
        [
          'own|high',
          new Map([
            [3, 2],
            [5, 1],
          ]),
        ],
      ]),
    );
  });

  it('keeps a chunk of thousands of items small', () => {
    // Prepare: 6 cells, 5,000 items each, competitor counts spread over 0-200
    const node = emptyNode(FIRST_BOUND, true);
    for (const cell of ['own|high', 'own|medium', 'own|low', 'other|high', 'other|medium', 'other|low']) {
      for (let i = 0; i < 5_000; i++) addToNode(node, cell, (i * 7919) % 201, 1);
    }

    // Act
    const bytes = Buffer.byteLength(JSON.stringify(nodeItem(PK, node)));

    // Assess
    expect(totalOf(node)).toBe(30_000);
    expect(bytes).toBeLessThan(4_000);
  });
});

describe('filteredCount', () => {
  const node = nodeOf('-', { 'own|high': { 0: 1, 3: 2, 7: 1 }, 'own|low': { 5: 4 }, 'other|high': { 9: 3 } });
  const own = (cell: string) => cell.startsWith('own|');
  const every = () => true;

  it.each<[string, (cell: string) => boolean, number | undefined, number]>([
    ['every cell', every, undefined, 11],
    ['own cells', own, undefined, 8],
    ['one cell', (cell) => cell === 'own|low', undefined, 4],
    ['no cell', () => false, undefined, 0],
    ['every cell, at least 0', every, 0, 11],
    ['every cell, at least 3', every, 3, 10],
    ['own cells, at least 4', own, 4, 5],
    ['own cells, at least 8', own, 8, 0],
    ['every cell, at least 9', every, 9, 3],
    ['every cell, at least 10', every, 10, 0],
  ])('counts %s', (_case, cells, gte, expected) => {
    expect(filteredCount(node, { cells, ...(gte === undefined ? {} : { gte }) })).toBe(expected);
  });

  it('refuses a histogram filter on a node without a histogram', () => {
    const counts = { ...emptyNode('-', false), counts: new Map([['on', 2]]) };
    expect(() => filteredCount(counts, { cells: every, gte: 1 })).toThrow('histogram');
  });
});

describe('nodeIndexOf', () => {
  const nodes = [FIRST_BOUND, '00000010', '00000020', '00000030'].map((lo) => emptyNode(lo, false));

  it.each<[string, number]>([
    ['00000001', 0],
    ['0000000z', 0],
    ['00000010', 1],
    ['00000011', 1],
    ['00000020', 2],
    ['0000002z', 2],
    ['00000030', 3],
    ['zzzzzzzz', 3],
  ])('finds the node covering %p', (key, index) => {
    expect(nodeIndexOf(nodes, key)).toBe(index);
  });

  it('agrees with a linear search for any key and any bounds', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.stringMatching(/^[0-9a-z]{1,4}$/), { maxLength: 30 }), fc.stringMatching(/^[0-9a-z]{1,5}$/), (bounds, key) => {
        const sorted = [FIRST_BOUND, ...bounds.sort()].map((lo) => emptyNode(lo, false));
        let expected = 0;
        sorted.forEach((node, i) => {
          if (node.lo <= key) expected = i;
        });
        expect(nodeIndexOf(sorted, key)).toBe(expected);
      }),
      fcParameters({ numRuns: fcRuns(300, 1500) }),
    );
  });
});

describe('addToNode, addNode, copyNode', () => {
  it('adds and removes items of a cell, in the counts and the histogram', () => {
    // Prepare
    const node = emptyNode('-', true);

    // Act
    addToNode(node, 'own|high', 4, 1);
    addToNode(node, 'own|high', 4, 1);
    addToNode(node, 'own|high', 2, 1);
    addToNode(node, 'own|high', 4, -1);

    // Assess
    expect(node.counts).toEqual(new Map([['own|high', 2]]));
    expect(node.hist).toEqual(
      new Map([
        [
          'own|high',
          new Map([
            [4, 1],
            [2, 1],
          ]),
        ],
      ]),
    );
  });

  it('ignores the histogram value for a node without a histogram', () => {
    const node = emptyNode('-', false);
    addToNode(node, 'on', 3, 1);
    expect(node).toEqual({ ...emptyNode('-', false), counts: new Map([['on', 1]]) });
  });

  it('sums every count and histogram entry of one node into another', () => {
    // Prepare
    const into = nodeOf('-', { 'own|high': { 1: 1 }, 'own|low': { 2: 2 } });
    const from = nodeOf('x', { 'own|high': { 1: 2, 3: 1 }, 'other|high': { 0: 5 } });

    // Act
    addNode(into, from);

    // Assess
    expect(plain(into)).toEqual(plain(nodeOf('-', { 'own|high': { 1: 3, 3: 1 }, 'own|low': { 2: 2 }, 'other|high': { 0: 5 } })));
    expect(totalOf(into)).toBe(totalOf(from) + 3);
  });

  it('copies a node so that changing the copy leaves the original alone', () => {
    const original = nodeOf('-', { 'own|high': { 1: 1 } });
    const copy = copyNode(original);
    addToNode(copy, 'own|high', 1, 5);
    expect(plain(original)).toEqual(plain(nodeOf('-', { 'own|high': { 1: 1 } })));
  });
});
