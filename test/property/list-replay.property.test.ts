import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import fc from 'fast-check';
import { createTable, deleteTable } from '../../tools/local/create-table.js';
import { createLocalDynamoClient } from '../../tools/local/dynamodb-local.js';
import { TABLE_NAME_ENV } from '../../lambdas/config/table-schema.js';
import type { StoredOffer } from '../../lambdas/data/offers/list.js';
import type { RankNode } from '../../lambdas/data/lists/ranked/nodes.js';
import type { ListChangesMessage } from '../../lambdas/events/list-changes.js';
import { offerRecord, productRecord } from '../support/fixtures.js';
import { nodeDiscrepancies, type OrderNodes } from '../support/rank-check.js';
import { fcParameters, fcRuns } from '../support/seed.js';

/**
 * The list maintainer's idempotency, against DynamoDB Local with nothing else running: a message
 * that failed at any point of its work and is delivered again with the same sequence number,
 * or that arrives twice in one batch, leaves the counts exactly as one clean delivery would,
 * and a further duplicate changes nothing. (Between the deliveries the offers do not change,
 * as in a FIFO message group the failed message holds back everything after it.)
 */
const CLIENT = 'replay-client';
const OWNER = { clientId: CLIENT, sellerId: 'seller-own', defaultConnector: 'amazon' };
const COMPETITIVENESS = ['high', 'low'] as const;
const WRITES = new Set([PutCommand, UpdateCommand, DeleteCommand, BatchWriteCommand, TransactWriteCommand].map((command) => command.name));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const dynamo = createLocalDynamoClient(process.env.DYNAMODB_ENDPOINT!);
const tableName = `test-${randomUUID()}`;
process.env[TABLE_NAME_ENV] = tableName;
process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';

const data = {
  dynamo: await import('../../lambdas/data/table/dynamo.js'),
  keys: await import('../../lambdas/data/table/keys.js'),
  offerList: await import('../../lambdas/data/offers/list.js'),
  maintenance: await import('../../lambdas/data/offers/maintenance.js'),
  offers: await import('../../lambdas/data/offers/write.js'),
  products: await import('../../lambdas/data/offers/products.js'),
  nodes: await import('../../lambdas/data/lists/ranked/node-store.js'),
  recount: await import('../../lambdas/data/lists/ranked/recount.js'),
  rankedList: await import('../../lambdas/data/lists/ranked/ranked-list.js'),
  maintainer: await import('../../lambdas/functions/maintain-lists/handler.js'),
};
const { OFFER_LIST } = data.offerList;

let sequence = 1_000;
const nextSeq = () => String(++sequence).padStart(20, '0');

const offerInput = (n: number, spec: { own: boolean; comp: string; tc: number; cents: number; product: number }) =>
  ({
    ...(offerRecord(`o${n}`, `P${spec.product}`, {
      seller_id: spec.own ? OWNER.sellerId : 'seller-other',
      competitiveness: spec.comp,
      total_competitors: spec.tc,
      offer_price: spec.cents / 100,
    }).data as object),
    product_code: `P${spec.product}`,
  }) as Parameters<typeof data.offers.upsertOffers>[1][number];

/** The canonical offers, by marketplace id, read from their products. */
const canonicalOffers = async (): Promise<Map<string, StoredOffer>> => {
  const offers = new Map<string, StoredOffer>();
  for (const product of [0, 1, 2]) {
    for (const offer of await data.maintenance.offersOfProduct(CLIENT, `P${product}`)) offers.set(offer.fields.offer_id, offer);
  }
  return offers;
};

/** Every node of the offer list, and the listing, read consistently. */
const listState = async () => {
  const nodes = new Map<string, OrderNodes>();
  for (const order of Object.keys(OFFER_LIST.orders)) {
    const at = (level: 'b' | 'c') => ({ clientId: CLIENT, tag: OFFER_LIST.tag, order, level });
    nodes.set(order, {
      buckets: await data.nodes.readNodes(at('b'), {}, { consistent: true }),
      chunks: await data.nodes.readNodes(at('c'), {}, { consistent: true }),
    });
  }
  const cells = COMPETITIVENESS.flatMap((comp) => (['own', 'other'] as const).map((scope) => data.offerList.offerCell(scope, comp)));
  const places = await data.recount.readAllPlaces(CLIENT, OFFER_LIST, cells);
  return { nodes, places };
};
const countsOf = (nodes: Map<string, OrderNodes>) =>
  JSON.stringify(
    [...nodes].map(([order, { buckets, chunks }]) => [
      order,
      [...buckets, ...chunks].map((node: RankNode) => [
        node.lo,
        node.hi,
        [...node.counts].sort(),
        node.hist ? [...node.hist].map(([c, v]) => [c, [...v].sort()]).sort() : null,
      ]),
    ]),
  );

/** The hints the change stream would carry for offers that changed from `before` to now. */
const hintsFor = (offerIds: Iterable<string>, before: Map<string, StoredOffer>, after: Map<string, StoredOffer>): ListChangesMessage['offers'] =>
  [...new Set(offerIds)].flatMap((offerId) => {
    const images = [before.get(offerId), after.get(offerId)].filter((offer): offer is StoredOffer => offer !== undefined);
    const [first] = images;
    if (!first) return [];
    return [{ offerId, productCode: first.product_code, id: first.id, cells: [...new Set(images.map((offer) => OFFER_LIST.cellOf(offer)))] }];
  });

const sqsRecord = (message: ListChangesMessage, seq: string, messageId = randomUUID()): SQSRecord => ({
  messageId,
  receiptHandle: messageId,
  body: JSON.stringify(message),
  attributes: {
    ApproximateReceiveCount: '1',
    SentTimestamp: String(Date.now()),
    SenderId: 'list-forwarder',
    ApproximateFirstReceiveTimestamp: String(Date.now()),
    SequenceNumber: seq,
    MessageGroupId: message.clientId,
    MessageDeduplicationId: messageId,
  },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:local:000000000000:list-changes.fifo',
  awsRegion: 'local',
});

/** Makes the `failAt`-th write command from now on fail, as a crash or a lost connection would. */
const failingWrite = (failAt: number) => {
  let writes = 0;
  const send = data.dynamo.documentClient.send.bind(data.dynamo.documentClient);
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- `send` is overloaded; the mock answers its promise form only
  return jest.spyOn(data.dynamo.documentClient, 'send').mockImplementation(((command: { constructor: { name: string } }, ...rest: unknown[]) => {
    if (WRITES.has(command.constructor.name) && ++writes === failAt)
      return Promise.reject(Object.assign(new Error('injected failure'), { name: 'InternalServerError' }));
    return (send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
  }) as typeof data.dynamo.documentClient.send);
};

beforeAll(async () => {
  await createTable(dynamo, tableName);
  await data.products.upsertProducts(
    CLIENT,
    [0, 1, 2].map((n) => productRecord(`P${n}`).data as Parameters<typeof data.products.upsertProducts>[1][number]),
  );
}, 60_000);

afterAll(async () => {
  await deleteTable(dynamo, tableName);
  dynamo.destroy();
});

const change = fc.record({
  offer: fc.integer({ min: 0, max: 89 }),
  kind: fc.constantFrom('upsert', 'upsert', 'upsert', 'delete'),
  own: fc.boolean(),
  comp: fc.constantFrom(...COMPETITIVENESS),
  tc: fc.integer({ min: 0, max: 9 }),
  cents: fc.integer({ min: 1, max: 999 }),
  product: fc.integer({ min: 0, max: 2 }),
});

it('counts a message once however often and wherever it failed before it was delivered again', async () => {
  // A base of 70 offers, listed by one clean message: enough for a few buckets per order.
  const base = Array.from({ length: 70 }, (_, n) =>
    offerInput(n, { own: n % 3 !== 0, comp: COMPETITIVENESS[n % 2]!, tc: n % 8, cents: (n * 37) % 1000, product: n % 3 }),
  );
  await data.offers.upsertOffers(OWNER, base);
  const listed = await canonicalOffers();
  await data.maintenance.reconcileBatch(CLIENT, { offers: hintsFor(listed.keys(), new Map(), listed), products: [] }, nextSeq());

  await fc.assert(
    fc.asyncProperty(fc.array(change, { minLength: 1, maxLength: 25 }), fc.integer({ min: 1, max: 40 }), fc.boolean(), async (changes, failAt, inOneBatch) => {
      // Prepare: the offers change; the message naming them has not been maintained yet
      const before = await canonicalOffers();
      const last = new Map(changes.map((c) => [c.offer, c]));
      const upserts = [...last.values()].filter((c) => c.kind === 'upsert').map((c) => offerInput(c.offer, c));
      const deletes = [...last.values()].filter((c) => c.kind === 'delete').map((c) => `o${c.offer}`);
      if (upserts.length > 0) await data.offers.upsertOffers(OWNER, upserts);
      if (deletes.length > 0) await data.offers.deleteOffers(CLIENT, deletes);
      const after = await canonicalOffers();
      const message: ListChangesMessage = {
        clientId: CLIENT,
        offers: hintsFor(
          [...last.keys()].map((n) => `o${n}`),
          before,
          after,
        ),
        products: [],
        priceChanges: [],
        rebuilds: [],
        offerStates: [],
        watches: [],
      };
      const seq = nextSeq();

      // Act: a first delivery fails at some write (or succeeds, when it makes fewer writes), then the
      // message is delivered again: alone, or twice in one batch
      const spy = failingWrite(failAt);
      const first = await data.maintainer.handler({ Records: [sqsRecord(message, seq)] }).catch((error: Error) => error);
      spy.mockRestore();
      // Work the failed delivery started in parallel ends before the message is visible again.
      if (first instanceof Error) await sleep(200);
      const redelivered = inOneBatch ? [sqsRecord(message, seq), sqsRecord(message, seq)] : [sqsRecord(message, seq)];
      expect(await data.maintainer.handler({ Records: redelivered })).toEqual({ batchItemFailures: [] });
      const state = await listState();
      expect(await data.maintainer.handler({ Records: [sqsRecord(message, seq)] })).toEqual({ batchItemFailures: [] });

      // Assess: the counts are exact, every offer is listed once where it belongs, and the last duplicate changed nothing
      expect(nodeDiscrepancies(OFFER_LIST, state.places, state.nodes)).toEqual([]);
      const byId = new Map([...after.values()].map((offer) => [offer.id, offer]));
      expect(state.places.map((place) => place.id).sort((a, b) => a - b)).toEqual([...byId.keys()].sort((a, b) => a - b));
      for (const place of state.places) expect(place).toEqual(data.rankedList.placeOf(OFFER_LIST, byId.get(place.id)!));
      expect(countsOf((await listState()).nodes)).toBe(countsOf(state.nodes));
    }),
    fcParameters({ numRuns: fcRuns(6, 30) }),
  );
}, 600_000);
