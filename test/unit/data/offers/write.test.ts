import { BatchWriteCommand, DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { counterKey, offerKey, offerLookupKey } from '../../../../lambdas/data/table/keys.js';
import { deleteOffers, planOffers, readLookups, upsertOffers, writeOfferPlan, type OfferInput } from '../../../../lambdas/data/offers/write.js';
import type { OfferFields } from '../../../../lambdas/domain/records.js';
import { FakeTable, TABLE } from '../fake-table.js';
import { offerFields } from '../fixtures.js';

const ddb = mockClient(DynamoDBDocumentClient);
const OWNER = { clientId: 'c1', sellerId: 'seller-own', defaultConnector: 'amazon' };
const NOW = '2026-11-22T10:15:30.123Z';
const LATER = '2026-11-23T08:00:00.000Z';

let table: FakeTable;

const input = (offerId: string, overrides: Partial<OfferFields> = {}, productCode = 'SKU-1', connector?: string): OfferInput => ({
  ...offerFields({ offer_id: offerId, ...overrides }),
  product_code: productCode,
  ...(connector === undefined ? {} : { connector }),
});
const canonical = (offerId: string, productCode = 'SKU-1') => table.get(offerKey('c1', productCode, offerId));
const lookup = (offerId: string) => table.get(offerLookupKey('c1', offerId));
const commandOrder = () => ddb.calls().map((call) => (call.args[0] as { constructor: { name: string } }).constructor.name);

beforeAll(() => {
  process.env.TABLE_NAME = TABLE;
});

beforeEach(() => {
  ddb.reset();
  table = new FakeTable([{ ...counterKey('offer'), value: 40 }]).serve(ddb);
});

describe('upsertOffers', () => {
  it('writes each new offer as one canonical item under its product, with a lookup claimed under a condition', async () => {
    // Act
    const summary = await upsertOffers(OWNER, [input('A'), input('B', { seller_id: 'seller-x' }, 'SKU-2', 'takealot')], NOW);

    // Assess
    expect(summary).toEqual({ written: 2, unchanged: 0 });
    expect(canonical('A')).toEqual({
      pk: 'T#c1#P#SKU-1',
      sk: 'O#A',
      entity: 'offer',
      sv: 1,
      id: 41,
      product_code: 'SKU-1',
      connector: 'amazon',
      scope: 'own',
      fields: offerFields({ offer_id: 'A' }),
      created_at: NOW,
      updated_at: NOW,
      price_at: NOW,
    });
    expect(canonical('B', 'SKU-2')).toMatchObject({ id: 42, scope: 'other', connector: 'takealot' });
    expect(lookup('A')).toEqual({ pk: 'T#c1#OID', sk: 'A', entity: 'offerLookup', id: 41, productCode: 'SKU-1', listedCell: 'own|winning' });
    expect(lookup('B')).toMatchObject({ id: 42, productCode: 'SKU-2', listedCell: 'other|winning' });
    const claims = ddb.commandCalls(PutCommand).map((call) => call.args[0].input);
    expect(claims).toHaveLength(2);
    for (const claim of claims) expect(claim.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input.ExpressionAttributeValues)).toEqual([{ ':count': 2 }]);
  });

  it('does not rewrite an unchanged offer', async () => {
    // Prepare
    await upsertOffers(OWNER, [input('A'), input('B')], NOW);
    ddb.resetHistory();

    // Act
    const summary = await upsertOffers(OWNER, [input('A'), input('B')], LATER);

    // Assess
    expect(summary).toEqual({ written: 0, unchanged: 2 });
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(0);
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
    expect(canonical('A')?.updated_at).toBe(NOW);
  });

  it('rewrites a changed offer under the same id, keeping created_at and its connector', async () => {
    // Prepare
    await upsertOffers(OWNER, [input('A', {}, 'SKU-1', 'takealot'), input('B')], NOW);

    // Act
    const summary = await upsertOffers(OWNER, [input('A', { offer_price: 399.99 }), input('B')], LATER);

    // Assess
    expect(summary).toEqual({ written: 1, unchanged: 1 });
    expect(canonical('A')).toMatchObject({ id: 41, connector: 'takealot', fields: { offer_price: 399.99 }, created_at: NOW, updated_at: LATER });
  });

  it("keeps the price's own time through a write of other fields, and moves it with a new price (the writer's time, not the item's)", async () => {
    // Prepare: written at NOW; a page read at LATER changes the buy box only
    await upsertOffers(OWNER, [input('A')], NOW);
    await upsertOffers(OWNER, [input('A', { winning: false })], LATER);
    expect(canonical('A')).toMatchObject({ updated_at: LATER, price_at: NOW });

    // Act: a sync that saw a new price at NOW + 1 s writes it after the page's write
    const sawAt = '2026-11-22T10:15:31.123Z';
    await upsertOffers(OWNER, [input('A', { winning: false, offer_price: 399.99 })], sawAt);

    // Assess: the item's version is later than the page's, the price is as old as the look that saw it
    expect(canonical('A')).toMatchObject({ updated_at: '2026-11-23T08:00:00.001Z', price_at: sawAt });
  });

  it('rewrites an offer whose seller became the client: it is now an own offer', async () => {
    await upsertOffers(OWNER, [input('A', { seller_id: 'seller-x' })], NOW);
    await upsertOffers(OWNER, [input('A', { seller_id: 'seller-own' })], LATER);
    expect(canonical('A')).toMatchObject({ scope: 'own', updated_at: LATER });
  });

  it('adopts the id of a writer that claimed the same new offer first', async () => {
    // Prepare: another import claims offer A between this writer's read and its claim
    table.intercept = (command, request) => {
      const item = (request as { Item?: { sk?: string } }).Item;
      if (command === 'Put' && item?.sk === 'A' && !lookup('A')) {
        table.put({ ...offerLookupKey('c1', 'A'), entity: 'offerLookup', id: 7, productCode: 'SKU-1', listedCell: 'own|winning' });
      }
    };

    // Act
    const summary = await upsertOffers(OWNER, [input('A'), input('B')], NOW);

    // Assess
    expect(summary.written).toBe(2);
    expect(canonical('A')?.id).toBe(7);
    expect(lookup('A')?.id).toBe(7);
    expect(canonical('B')?.id).not.toBe(7);
  });

  it('moves an offer whose line names another product: the lookup first, then the item', async () => {
    // Prepare
    await upsertOffers(OWNER, [input('A')], NOW);
    ddb.resetHistory();

    // Act
    const summary = await upsertOffers(OWNER, [input('A', {}, 'SKU-2')], LATER);

    // Assess
    expect(summary).toEqual({ written: 1, unchanged: 0 });
    expect(canonical('A')).toBeUndefined();
    expect(canonical('A', 'SKU-2')).toMatchObject({ id: 41, product_code: 'SKU-2', created_at: NOW, updated_at: LATER });
    expect(lookup('A')).toMatchObject({ id: 41, productCode: 'SKU-2' });
    expect(commandOrder().filter((name) => name !== 'BatchGetCommand')).toEqual(['UpdateCommand', 'BatchWriteCommand']);
  });

  it('writes in batches of 25 and reserves the ids of a whole call at once', async () => {
    // Act
    const summary = await upsertOffers(
      OWNER,
      Array.from({ length: 60 }, (_, i) => input(`O${i}`)),
      NOW,
    );

    // Assess
    expect(summary.written).toBe(60);
    expect(ddb.commandCalls(BatchWriteCommand).map((call) => call.args[0].input.RequestItems?.[TABLE]?.length)).toEqual([25, 25, 10]);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(1);
    expect(new Set([...Array(60).keys()].map((i) => canonical(`O${i}`)?.id)).size).toBe(60);
  });
});

describe('deleteOffers', () => {
  it('deletes the canonical items of known offers and keeps their lookups, so a re-import gets the id back', async () => {
    // Prepare
    await upsertOffers(OWNER, [input('A'), input('B')], NOW);

    // Act
    const deleted = await deleteOffers('c1', ['A', 'unknown']);
    await upsertOffers(OWNER, [input('A')], LATER);

    // Assess
    expect(deleted).toBe(1);
    expect(canonical('B')).toBeDefined();
    expect(canonical('A')).toMatchObject({ id: 41, created_at: LATER });
    expect((await readLookups('c1', ['A'])).get('A')?.id).toBe(41);
  });

  it('writes nothing for ids that do not exist', async () => {
    expect(await deleteOffers('c1', ['nope'])).toBe(0);
    expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(0);
  });
});

describe('a write from the copy its writer read (OfferBasis)', () => {
  it('writes nothing over a copy its writer did not read: the offer comes back to be computed again', async () => {
    // Prepare: the writer read the offer as written at NOW; another writer has rewritten it since.
    await upsertOffers(OWNER, [input('A', { offer_price: 100 })], NOW);
    await upsertOffers(OWNER, [input('A', { offer_price: 90 })], LATER);
    ddb.resetHistory();

    // Act
    const plan = await planOffers(OWNER, [{ ...input('A', { offer_price: 100, winning: false }), basis: { readVersion: NOW } }], LATER);
    const conflicts = await writeOfferPlan(plan, { guarded: true });

    // Assess
    expect([plan.stale, conflicts, plan.updated]).toEqual([['A'], ['A'], 0]);
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
    expect(canonical('A')).toMatchObject({ fields: { offer_price: 90 }, updated_at: LATER, price_at: LATER });
  });

  it('writes over the copy it read, conditioned on it, and never stores the basis', async () => {
    // Prepare
    await upsertOffers(OWNER, [input('A', { offer_price: 100 })], NOW);

    // Act
    const plan = await planOffers(OWNER, [{ ...input('A', { offer_price: 100, winning: false }), basis: { readVersion: NOW } }], LATER);
    const conflicts = await writeOfferPlan(plan, { guarded: true });

    // Assess
    expect(conflicts).toEqual([]);
    const put = ddb.commandCalls(PutCommand).at(-1)!.args[0].input;
    expect([put.ConditionExpression, put.ExpressionAttributeValues]).toEqual(['updated_at = :replaced', { ':replaced': NOW }]);
    // A write of other fields keeps the price's time; the basis is not a field.
    expect(canonical('A')).toMatchObject({ fields: { winning: false }, updated_at: LATER, price_at: NOW });
    expect(canonical('A')).not.toHaveProperty('basis');
    expect(canonical('A')?.fields).not.toHaveProperty('basis');
  });

  it('stamps a price looked at anew with the look, even when the price is the one stored', async () => {
    // Prepare
    await upsertOffers(OWNER, [input('A', { offer_price: 100 })], NOW);

    // Act
    const plan = await planOffers(OWNER, [{ ...input('A', { offer_price: 100 }), basis: { readVersion: NOW, priceSeen: true } }], LATER);
    await writeOfferPlan(plan, { guarded: true });

    // Assess
    expect(plan.updated).toBe(1);
    expect(canonical('A')).toMatchObject({ fields: { offer_price: 100 }, updated_at: LATER, price_at: LATER });
  });
});
