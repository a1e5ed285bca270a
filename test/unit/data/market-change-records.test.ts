import { streamChangeOf } from '../../../lambdas/shared/data/change-records.js';
import { connection, connectionItem, image, marketplaceEvent, marketplaceEventItem } from '../events/market-event-fixtures.js';

const keysOf = (item: { pk: string; sk: string }) => image({ pk: item.pk, sk: item.sk });

describe('streamChangeOf: connections', () => {
  const before = connectionItem('c1', connection());
  const after = connectionItem(
    'c1',
    connection({ status: 'unauthorized', last_error: 'The marketplace refused the key.', updated_at: '2026-11-22T10:00:00.000Z' }),
  );

  it('names a status change with the record as it is now and the status it had', () => {
    expect(streamChangeOf(keysOf(after), image(before), image(after))).toEqual({
      kind: 'connectionStatus',
      clientId: 'c1',
      record: after.record,
      previous: 'connected',
    });
  });

  it('names nothing for a write that kept the status (a sync counting its offers)', () => {
    const counted = connectionItem('c1', connection({ offers_synced: 40, last_sync_at: '2026-11-22T10:00:00.000Z' }));
    expect(streamChangeOf(keysOf(counted), image(before), image(counted))).toBeUndefined();
  });

  it.each([
    ['a new connection', undefined, image(before)],
    ['a deleted connection', image(before), undefined],
  ])('names nothing for %s', (_case, oldImage, newImage) => {
    expect(streamChangeOf(keysOf(before), oldImage, newImage)).toBeUndefined();
  });

  it('names nothing for an image that is not a connection', () => {
    expect(streamChangeOf(keysOf(after), image({ ...before, record: { status: 'connected' } }), image(after))).toBeUndefined();
  });
});

describe('streamChangeOf: marketplace events', () => {
  const item = marketplaceEventItem('c1', marketplaceEvent());

  it('names an event recorded just now, with what it names', () => {
    expect(streamChangeOf(keysOf(item), undefined, image(item))).toEqual({ kind: 'marketplaceEvent', clientId: 'c1', event: marketplaceEvent() });
  });

  it.each([
    ['its expiry', image(item), undefined],
    ['a rewrite of it', image(item), image(item)],
    ['an item that is not an event', undefined, image({ pk: item.pk, sk: item.sk, entity: 'marketplaceEvent' })],
  ])('names nothing for %s', (_case, oldImage, newImage) => {
    expect(streamChangeOf(keysOf(item), oldImage, newImage)).toBeUndefined();
  });

  it('keeps it under its tenant: the key says whose it is', () => {
    expect(item.pk).toBe(`T#c1#MEVT#${marketplaceEvent().uid}`);
    expect(streamChangeOf(keysOf(item), undefined, image(item))?.clientId).toBe('c1');
  });
});
