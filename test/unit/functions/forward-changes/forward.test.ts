import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { jest } from '@jest/globals';
import { forwardChanges, logRefusal } from '../../../../lambdas/functions/forward-changes/forward.js';
import { chunk, defineRoute } from '../../../../lambdas/functions/forward-changes/routes.js';
import { nodePartition, rebuildKey } from '../../../../lambdas/data/table/keys.js';
import { listChangesMessage, repricingMessage, type ListChangesMessage } from '../../../../lambdas/events/list-changes.js';
import { logger } from '../../../../lambdas/observability/logger.js';
import type { QueueMessage, QueueSender } from '../../../../lambdas/queue/sender.js';
import { offerItem, product, productItem, storedOffer } from '../../data/fixtures.js';

type Image = Record<string, AttributeValue>;
const image = (item: Record<string, unknown>) => marshall(item, { removeUndefinedValues: true }) as Image;

let sequence = 1000;
/** A stream record as Lambda delivers it: an INSERT of `item` unless an old image is given. */
const record = (item: Record<string, unknown>, old?: Record<string, unknown>): DynamoDBRecord => {
  const n = String(++sequence);
  return {
    eventID: `event-${n}`,
    eventName: old ? 'MODIFY' : 'INSERT',
    eventSource: 'aws:dynamodb',
    dynamodb: {
      Keys: image({ pk: item.pk, sk: item.sk }),
      NewImage: image(item),
      ...(old ? { OldImage: image(old) } : {}),
      SequenceNumber: n,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
};
const event = (...records: DynamoDBRecord[]): DynamoDBStreamEvent => ({ Records: records });

/** Another seller's offer: its changes are listed, never recorded as an own offer's state (a test of its own below). */
const offerOf = (clientId: string, offerId: string, id: number) => offerItem(storedOffer({ offer_id: offerId }, { id, scope: 'other' }), clientId);

/** A sender that keeps what it was given, and fails for the groups in `failing`. */
const recordingSender = (failing: ReadonlySet<string> = new Set()) => {
  const sends: QueueMessage[][] = [];
  const sender: QueueSender = {
    async send(messages) {
      sends.push([...messages]);
      if (messages.some((message) => failing.has(message.groupId))) throw new Error('SQS is unavailable');
    },
  };
  return { sender, sends, bodies: () => sends.flat().map((message) => listChangesMessage.parse(JSON.parse(message.body))) };
};

beforeEach(() => {
  logger.setLogLevel('SILENT');
});

describe('forwardChanges', () => {
  it("sends each tenant's messages in the tenant's message group, its offers in one and its products in another", async () => {
    // Prepare
    const { sender, sends, bodies } = recordingSender();
    const changes = event(record(offerOf('c1', 'A', 1)), record(offerOf('c2', 'X', 5)), record(productItem(product(), 'c1')), record(offerOf('c1', 'B', 2)));

    // Act
    const response = await forwardChanges({ lists: sender, repricing: recordingSender().sender })(changes);

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    expect(
      sends
        .flat()
        .map((message) => message.groupId)
        .sort(),
    ).toEqual(['c1', 'c1', 'c1', 'c2']);
    const empty = { clientId: 'c1', offers: [], products: [], priceChanges: [], rebuilds: [], offerStates: [], watches: [] };
    expect(bodies().filter((body) => body.clientId === 'c1')).toEqual<ListChangesMessage[]>([
      {
        ...empty,
        offers: [
          { offerId: 'A', productCode: 'SKU-1', id: 1, cells: ['other|winning'] },
          { offerId: 'B', productCode: 'SKU-1', id: 2, cells: ['other|winning'] },
        ],
      },
      { ...empty, products: ['SKU-1'] },
      // The product's page watches follow it (lambdas/read-planning/watch-products.ts).
      { ...empty, watches: ['SKU-1'] },
    ]);
    expect(
      bodies()
        .filter((body) => body.clientId === 'c2')
        .map((body) => body.offers.map((offer) => offer.offerId)),
    ).toEqual([['X']]);
  });

  it('sends nothing for changes that concern no list (listings and nodes the maintainer writes itself)', async () => {
    const { sender, sends } = recordingSender();
    await forwardChanges({ lists: sender, repricing: recordingSender().sender })(
      event(
        record({ pk: nodePartition('c1', 'OL', 'id', 'b'), sk: '-', entity: 'rankNode', v: 1 }),
        record({ pk: 'T#c1#OL#own|high', sk: '00000001', entity: 'offerListing' }),
      ),
    );
    expect(sends).toEqual([]);
  });

  it("splits a tenant's changes into messages of at most 500 offers, then its products and their watches, each rebuild step alone", async () => {
    // Prepare
    const { sender, sends, bodies } = recordingSender();
    const offers = Array.from({ length: 1_100 }, (_, i) => record(offerOf('c1', `O${i}`, i + 1)));
    const rebuild = rebuildKey('c1', 'request-1');

    // Act
    await forwardChanges({ lists: sender, repricing: recordingSender().sender })(
      event(...offers, record(productItem(product(), 'c1')), record({ ...rebuild, status: 'running' })),
    );

    // Assess
    expect(sends).toHaveLength(1);
    expect(bodies().map((body) => [body.rebuilds.length, body.offers.length, body.products.length, body.watches.length])).toEqual([
      [1, 0, 0, 0],
      [0, 500, 0, 0],
      [0, 500, 0, 0],
      [0, 100, 0, 0],
      [0, 0, 1, 0],
      [0, 0, 0, 1],
    ]);
    const ids = sends[0]!.map((message) => message.deduplicationId);
    expect(new Set(ids).size).toBe(6);
    for (const id of ids) expect(id.length).toBeLessThanOrEqual(128);
  });

  it("sends the states of the tenant's own offers to record, stamped when the service saw them or, removed, when the stream did", async () => {
    // Prepare: an own offer appears, then loses Best Price; another seller's offer changes; the own offer is removed.
    const { sender, bodies } = recordingSender();
    const own = offerItem(storedOffer({ offer_id: 'MINE', winning: true }, { id: 1, updated_at: '2026-01-01T00:00:00.000Z' }), 'c1');
    const lost = { ...own, fields: { ...own.fields, winning: false }, updated_at: '2026-01-01T00:01:00.000Z' };
    const removed: DynamoDBRecord = {
      eventID: 'event-removed',
      eventName: 'REMOVE',
      dynamodb: {
        Keys: image({ pk: own.pk, sk: own.sk }),
        OldImage: image(lost),
        SequenceNumber: String(++sequence),
        ApproximateCreationDateTime: 1_767_225_720,
      },
    };

    // Act
    await forwardChanges({ lists: sender, repricing: recordingSender().sender })(
      event(record(own), record(lost, own), record(offerOf('c1', 'THEIRS', 2), offerOf('c1', 'THEIRS', 2)), removed),
    );

    // Assess
    const states = bodies().flatMap((body) => body.offerStates);
    expect(states.map(({ offerId, at, present, winning }) => [offerId, at, present, winning])).toEqual([
      ['MINE', '2026-01-01T00:00:00.000Z', true, true],
      ['MINE', '2026-01-01T00:01:00.000Z', true, false],
      ['MINE', '2026-01-01T00:02:00.000Z', false, false],
    ]);
  });

  it('gives the same records the same deduplication ids, so a retried batch sends nothing twice', async () => {
    // Prepare
    const first = recordingSender();
    const second = recordingSender();
    const records = [record(offerOf('c1', 'A', 1)), record(offerOf('c1', 'B', 2))];

    // Act
    await forwardChanges({ lists: first.sender, repricing: recordingSender().sender })(event(...records));
    await forwardChanges({ lists: second.sender, repricing: recordingSender().sender })(event(...records));
    const other = recordingSender();
    await forwardChanges({ lists: other.sender, repricing: recordingSender().sender })(event(records[0]!));

    // Assess
    expect(second.sends[0]!.map((m) => m.deduplicationId)).toEqual(first.sends[0]!.map((m) => m.deduplicationId));
    expect(other.sends[0]![0]!.deduplicationId).not.toBe(first.sends[0]![0]!.deduplicationId);
  });

  it('reports a tenant whose message could not be sent from its first record, and still sends the others', async () => {
    // Prepare
    const { sender, bodies } = recordingSender(new Set(['c2']));
    const records = [record(offerOf('c1', 'A', 1)), record(offerOf('c2', 'X', 5)), record(offerOf('c2', 'Y', 6)), record(offerOf('c1', 'B', 2))];

    // Act
    const response = await forwardChanges({ lists: sender, repricing: recordingSender().sender })(event(...records));

    // Assess
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: records[1]!.dynamodb!.SequenceNumber }] });
    expect(bodies().filter((body) => body.clientId === 'c1')).toHaveLength(1);
  });

  it('tells the repricing queue, per tenant, each product whose offers or repricer slots changed, and nothing of the rest', async () => {
    // Prepare
    const lists = recordingSender();
    const repricing = recordingSender();
    const slot = { pk: 'T#c1#P#SKU-9', sk: 'SLOT#takealot', entity: 'repricerSlot' };

    // Act
    await forwardChanges({ lists: lists.sender, repricing: repricing.sender })(
      event(record(offerOf('c1', 'A', 1)), record(offerOf('c1', 'B', 2)), record(slot), record(offerOf('c2', 'X', 5)), record(productItem(product(), 'c3'))),
    );

    // Assess
    const bodies = repricing.sends.flat().map((message) => [message.groupId, repricingMessage.parse(JSON.parse(message.body))] as const);
    expect(Object.fromEntries(bodies.map(([group, body]) => [group, [body.clientId, [...body.products].sort()]]))).toEqual({
      c1: ['c1', ['SKU-1', 'SKU-9']],
      c2: ['c2', ['SKU-1']],
    });
  });

  it('queues an import job for the worker when it is created pending, and never for its progress or a job created failed', async () => {
    // Prepare
    const imports = recordingSender();
    const job = (id: number, status: string) => ({ pk: 'T#c1#IMP', sk: String(id).padStart(8, '0'), entity: 'import', record: { id, status } });

    // Act
    const response = await forwardChanges({ lists: recordingSender().sender, repricing: recordingSender().sender, imports: imports.sender })(
      event(record(job(7, 'pending')), record(job(7, 'running'), job(7, 'pending')), record(job(8, 'failed')), record(job(7, 'completed'), job(7, 'running'))),
    );

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    expect(imports.sends.flat().map((message) => ({ groupId: message.groupId, body: JSON.parse(message.body) as unknown }))).toEqual([
      { groupId: 'c1', body: { clientId: 'c1', importId: 7 } },
    ]);
  });

  it('reports the tenant when a route has no queue to send to', async () => {
    const records = [record(offerOf('c1', 'A', 1))];
    const response = await forwardChanges({ lists: recordingSender().sender })(event(...records));
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: records[0]!.dynamodb!.SequenceNumber }] });
  });
});

describe('forwardChanges and messages SQS refuses', () => {
  it('reports a message SQS would refuse with its tenant and key, and sends the rest of the batch', async () => {
    // Prepare: a route whose second tenant's message is over SQS's 256 KiB, through the local queue that stands in for SQS
    const { createLocalFifoQueue } = await import('../../../../tools/local/fifo-queue.js');
    const { localSender } = await import('../../../../tools/local/event-runtime.js');
    const delivered: string[] = [];
    const fifo = createLocalFifoQueue({
      name: 'oversize-test.fifo',
      handler: async (sqsEvent) => void delivered.push(...sqsEvent.Records.map((r) => (JSON.parse(r.body) as { clientId: string }).clientId)),
    });
    const route = defineRoute<{ clientId: string }, { clientId: string; padding: string }>({
      queue: 'lists',
      start: (clientId) => ({ clientId }),
      add: () => undefined,
      messages: (work) => [{ clientId: work.clientId, padding: work.clientId === 'c-big' ? 'x'.repeat(300 * 1024) : '' }],
    });
    const refusals: { clientId: string; queue: string; reason: string; deduplicationId: string }[] = [];

    // Act
    const response = await forwardChanges({ lists: localSender(fifo) }, [route], ({ clientId, queue, refused }) =>
      refusals.push({ clientId, queue, reason: refused.reason, deduplicationId: refused.message.deduplicationId }),
    )(event(record(offerOf('c-big', 'A', 1)), record(offerOf('c-small', 'B', 2))));
    await fifo.settle();
    await fifo.stop();

    // Assess: nothing retried, the other tenant's message delivered, the refused one named
    expect(response).toEqual({ batchItemFailures: [] });
    expect(delivered).toEqual(['c-small']);
    expect(refusals).toEqual([{ clientId: 'c-big', queue: 'lists', reason: 'MessageTooLong', deduplicationId: expect.stringMatching(/-0$/) }]);
  });

  it('logs a refused message with its tenant, queue and key, counted', () => {
    // Prepare
    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);

    // Act
    logRefusal({ clientId: 'c1', queue: 'webhooks', refused: { message: { groupId: 'c1#R1', deduplicationId: 'd-0', body: 'x' }, reason: 'MessageTooLong' } });

    // Assess
    expect(error).toHaveBeenCalledWith(
      expect.any(String),
      expect.objectContaining({ clientId: 'c1', queue: 'webhooks', deduplicationId: 'd-0', refusedMessages: 1 }),
    );
    error.mockRestore();
  });
});

describe('chunk', () => {
  it('splits by 500 items and by 192 KiB of JSON, in order, so no message outgrows what SQS takes', () => {
    const small = Array.from({ length: 1_001 }, (_, i) => i);
    expect(chunk(small).map((c) => c.length)).toEqual([500, 500, 1]);
    // Offer ids of 128 three-byte characters: 500 of them would be over 190 KiB of JSON.
    const long = Array.from({ length: 500 }, (_, i) => ({ offerId: `${'€'.repeat(124)}${String(i).padStart(4, '0')}`, productCode: '€'.repeat(64) }));
    const chunks = chunk(long);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.flat()).toEqual(long);
    for (const c of chunks) expect(Buffer.byteLength(JSON.stringify(c))).toBeLessThanOrEqual(192 * 1024 + 500);
  });
});
