import type { DynamoDBRecord } from 'aws-lambda';
import { itemSize } from '../../../tools/bench/capacity-model.js';
import { keyOf, nativeImage } from '../../../tools/bench/stream-images.js';
import { tallyOf, WriteMeter } from '../../../tools/bench/write-meter.js';
import { workloadCost, oldWorkloadCost } from '../../../tools/bench/workload.js';

const record = (pk: string, sk: string, oldImage?: Record<string, unknown>, newImage?: Record<string, unknown>): DynamoDBRecord => ({
  eventName: oldImage && newImage ? 'MODIFY' : newImage ? 'INSERT' : 'REMOVE',
  dynamodb: {
    Keys: { pk: { S: pk }, sk: { S: sk } },
    ...(oldImage ? { OldImage: oldImage as never } : {}),
    ...(newImage ? { NewImage: newImage as never } : {}),
  },
});

const listing = (priceKey: string, bytes = 300) => ({
  pk: { S: 'T#c#OL#own|high' },
  sk: { S: '00000001' },
  entity: { S: 'offerListing' },
  tcKey: { S: '0001' },
  priceKey: { S: priceKey },
  updatedKey: { S: 'u' },
  r: { B: Buffer.alloc(bytes).toString('base64') },
});

describe('stream images', () => {
  it('sizes a binary attribute by its bytes, not its base64 text', () => {
    const item = nativeImage({ pk: { S: 'p' }, r: { B: Buffer.alloc(900).toString('base64') } })!;
    expect(item.r).toBeInstanceOf(Uint8Array);
    expect(itemSize(item)).toBe(2 + 1 + 900 + 1);
  });
});

describe('WriteMeter', () => {
  it('prices each record from its images: a moved GSI key is a delete and a put', () => {
    const meter = new WriteMeter();
    meter.begin();
    meter.onRecords([record('T#c#OL#own|high', '00000001', listing('a'), listing('b'))]);
    const tally = meter.end();
    // Table 1; byPrice moved (2); byCompetitors and byUpdated hold a changed item (1 each).
    expect(tally).toMatchObject({ writes: 1, table: 1, indexes: 4, total: 5 });
    expect(tally.byKind.offerListing).toMatchObject({ writes: 1, transactional: 0 });
  });

  it('counts as many records of a key twice as committed transactions wrote it', () => {
    const meter = new WriteMeter();
    meter.begin();
    const node = { pk: { S: 'T#c#RLN#id#b' }, sk: { S: '-' }, entity: { S: 'rankNode' }, v: { N: '2' } };
    meter.onRecords([record('T#c#RLN#id#b', '-', undefined, node), record('T#c#RLN#id#b', '-', node, { ...node, v: { N: '3' } })]);
    // The transaction's keys may be noted after its records arrived: the measurement settles first.
    meter.noteTransaction([keyOf({ pk: 'T#c#RLN#id#b', sk: '-' })]);
    const tally = meter.end();
    expect(tally.byKind.repricerNode).toMatchObject({ writes: 2, transactional: 1, table: 3 });
  });

  it("tells the repricing evaluator's items and the price-change lists' items from the offers'", () => {
    const meter = new WriteMeter();
    meter.begin();
    const item = (pk: string, sk: string, entity: string) => record(pk, sk, undefined, { pk: { S: pk }, sk: { S: sk }, entity: { S: entity } });
    meter.onRecords([
      item('T#c#PC#P-1', 'PC#1#o#00000001', 'priceChange'),
      item('T#c#P#P-1', 'DECISION#1#o', 'repricerDecision'),
      item('T#c#CL#undercut', '00000001', 'priceChangeListing'),
      item('T#c#PS=P-1#PCL#1|undercut', '00000001', 'productPriceChangeListing'),
      item('T#c#CLN#id#b', '-', 'rankNode'),
      item('T#c#PS=P-1#PCLN#id#c', '-', 'rankNode'),
      item('T#c#OLN#price#b', '-', 'rankNode'),
    ]);
    const { byKind } = meter.end();
    expect(Object.fromEntries(Object.entries(byKind).map(([kind, units]) => [kind, units.writes]))).toEqual({
      priceChange: 1,
      decision: 1,
      priceChangeListing: 2,
      priceChangeNode: 2,
      offerNode: 1,
    });
  });

  it('splits a tally by item kind: the kinds named, or all the others', () => {
    const meter = new WriteMeter();
    meter.begin();
    const item = (pk: string, entity: string, bytes: number) =>
      record(pk, 's', undefined, { pk: { S: pk }, sk: { S: 's' }, entity: { S: entity }, r: { B: Buffer.alloc(bytes).toString('base64') } });
    meter.onRecords([item('T#c#PC#P', 'priceChange', 1500), item('T#c#P#P', 'repricerDecision', 10), item('T#c#P#P', 'offer', 10)]);
    const tally = meter.end();
    expect(tallyOf(tally, ['priceChange', 'decision'])).toMatchObject({ writes: 2, table: 3, indexes: 0, total: 3 });
    expect(tallyOf(tally, ['priceChange', 'decision'], true)).toMatchObject({ writes: 1, table: 1, total: 1, byKind: { offer: { writes: 1 } } });
  });

  it('counts nothing outside a measurement', () => {
    const meter = new WriteMeter();
    meter.onRecords([record('T#c#OL#own|high', '00000001', undefined, listing('a'))]);
    meter.begin();
    expect(meter.end().writes).toBe(0);
    expect(meter.stray).toBe(1);
  });
});

describe('workload cost', () => {
  it('prices the hour at $0.625 per million write units and $0.125 per million read units', () => {
    const one = { write: 1, read: 0 };
    const none = { write: 0, read: 0 };
    const cost = workloadCost({
      singlePriceChange: one,
      singleWorstChange: one,
      singleFlagsChange: one,
      bulkChange: one,
      listRequest: { write: 0, read: 1 },
      repricerCreate: none,
      repricerUpdate: none,
      repricerRead: none,
    });
    expect(cost.writeUnits).toBe(20_000);
    expect(cost.readUnits).toBe(2_000);
    expect(cost.dollars).toBeCloseTo(20_000 * 0.625e-6 + 2_000 * 0.125e-6, 10);
    expect(oldWorkloadCost(125).writeUnits).toBe(20_000 * 125 + 100 * 101);
  });
});
