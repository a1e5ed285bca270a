import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { connectorRecord, offerRecord, productRecord } from '../support/fixtures.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import type { OfferInput } from '../../lambdas/shared/data/offers-write.js';
import { fcParameters } from '../support/seed.js';

/**
 * The aggregates behind `meta.total` and `_start`: after any sequence of upserts, moves between
 * competitiveness values or competitor counts, and deletes, every rank directory equals a
 * recount of its view's index (bucket counts, histogram, no empty bucket but the first).
 */
let api: TestApi;
let tenantNumber = 0;
const OWN = 'seller-own';
const SORTS = ['id', 'total_competitors', 'offer_price', 'updated_at'] as const;
const COMPETITIVENESS = ['high', 'low'] as const;

beforeAll(async () => {
  api = await startTestApi();
}, 60_000);
afterAll(async () => api?.close());

const operation = fc.oneof(
  fc.record({ kind: fc.constant('upsert' as const), offer: fc.integer({ min: 0, max: 349 }), own: fc.boolean(), comp: fc.constantFrom(...COMPETITIVENESS), tc: fc.integer({ min: 0, max: 9 }), cents: fc.integer({ min: 0, max: 999 }) }),
  fc.record({ kind: fc.constant('delete' as const), offer: fc.integer({ min: 0, max: 349 }) }),
);

const offerInput = (n: number, own: boolean, comp: string, tc: number, cents: number): OfferInput =>
  ({ ...(offerRecord(`o${n}`, 'P1', { seller_id: own ? OWN : 'seller-other', competitiveness: comp, total_competitors: tc, offer_price: cents / 100 }).data as object) }) as OfferInput;

it('keeps every rank directory equal to a recount of its index', async () => {
  const { viewName, competitorsPrefixOf, SORT_STORAGE } = await import('../../lambdas/shared/data/offer-keys.js');
  const { readDirectory } = await import('../../lambdas/shared/data/rank-store.js');
  const { upsertOffers, deleteOffers } = await import('../../lambdas/shared/data/offers-write.js');
  const { offerViewPartition } = await import('../../lambdas/shared/data/keys.js');
  const { documentClient, tableName } = await import('../../lambdas/shared/data/dynamo.js');

  const indexKeys = async (clientId: string, view: string, sort: (typeof SORTS)[number]) => {
    const keys: string[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await documentClient.send(new QueryCommand({
        TableName: tableName(), IndexName: SORT_STORAGE[sort].rankIndex, ConsistentRead: true,
        KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': offerViewPartition(clientId, view) }, ExclusiveStartKey: start,
      }));
      keys.push(...(page.Items ?? []).map((i) => String(i[SORT_STORAGE[sort].rankAttribute])));
      start = page.LastEvaluatedKey;
    } while (start);
    return keys;
  };

  await fc.assert(
    fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 60 }), async (operations) => {
      const username = `ranked${++tenantNumber}`;
      const account = await api.createClient(username, { password: 'rank-password', sellerId: OWN });
      const owner = { clientId: account.clientId, sellerId: OWN };
      await api.importRecords(username, [connectorRecord('amazon'), productRecord('P1')]);
      // A base of 300 offers, enough to split buckets, then the random operations in small batches.
      const model = new Map<number, { own: boolean; comp: string }>();
      const base = Array.from({ length: 300 }, (_, n) => offerInput(n, n % 3 !== 0, COMPETITIVENESS[n % 2]!, n % 7, (n * 37) % 1000));
      base.forEach((o, n) => model.set(n, { own: n % 3 !== 0, comp: o.competitiveness }));
      await upsertOffers(owner, base);
      for (let i = 0; i < operations.length; i += 6) {
        const batch = new Map<number, (typeof operations)[number]>();
        for (const op of operations.slice(i, i + 6)) batch.set(op.offer, op);
        const upserts = [...batch.values()].flatMap((op) => (op.kind === 'upsert' ? [offerInput(op.offer, op.own, op.comp, op.tc, op.cents)] : []));
        const deletes = [...batch.values()].flatMap((op) => (op.kind === 'delete' ? [`o${op.offer}`] : []));
        if (upserts.length) await upsertOffers(owner, upserts);
        if (deletes.length) await deleteOffers(owner, deletes);
        for (const op of batch.values()) {
          if (op.kind === 'upsert') model.set(op.offer, { own: op.own, comp: op.comp });
          else model.delete(op.offer);
        }
      }

      for (const scope of ['own', 'all'] as const) {
        for (const comp of [undefined, ...COMPETITIVENESS]) {
          const view = viewName(scope, comp);
          const expectedTotal = [...model.values()].filter((o) => (scope === 'all' || o.own) && (comp === undefined || o.comp === comp)).length;
          for (const sort of SORTS) {
            const { directory } = await readDirectory(owner.clientId, view, sort);
            const keys = await indexKeys(owner.clientId, view, sort);
            expect(keys.length).toBe(expectedTotal);
            const recount = directory.bounds.map((lower, b) => {
              const upper = directory.bounds[b + 1];
              return keys.filter((k) => k >= lower && (upper === undefined || k < upper)).length;
            });
            expect(directory.counts).toEqual(recount);
            expect(directory.bounds[0]).toBe('');
            expect(directory.counts.slice(1).every((n) => n > 0)).toBe(true);
            if (sort === 'total_competitors') {
              const histogram: Record<string, number> = {};
              for (const k of keys) histogram[competitorsPrefixOf(k)] = (histogram[competitorsPrefixOf(k)] ?? 0) + 1;
              expect(directory.histogram).toEqual(histogram);
            }
          }
        }
      }
    }),
    fcParameters({ numRuns: 4 }),
  );
}, 900_000);
