import { streamChangeOf } from '../../../lambdas/data/stream/records.js';
import { marketStateKey } from '../../../lambdas/data/table/keys.js';
import { DEFAULT_SAFETY } from '../../../lambdas/domain/connections.js';
import { connection, connectionItem, image, marketplaceEvent, marketplaceEventItem } from '../fixtures/market-events.js';

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

  it('names nothing for a new connection (it has nothing pending to send yet)', () => {
    expect(streamChangeOf(keysOf(before), undefined, image(before))).toBeUndefined();
  });

  it("names a deleted connection's sending, by its connector, for the sender to look at", () => {
    expect(streamChangeOf(keysOf(before), image(before), undefined)).toEqual({ kind: 'connectionSending', clientId: 'c1', connector: 'takealot' });
  });

  it.each([
    ['live to suggest (the kill switch)', connection({ mode: 'live' }), connection({ mode: 'suggest', updated_at: '2026-11-22T10:00:00.000Z' })],
    ['suggest to live', connection({ mode: 'suggest' }), connection({ mode: 'live', updated_at: '2026-11-22T10:00:00.000Z' })],
  ])("names a mode move %s as the connection's sending, by its connector", (_case, was, now) => {
    const [old, current] = [connectionItem('c1', was), connectionItem('c1', now)];
    expect(streamChangeOf(keysOf(current), image(old), image(current))).toEqual({ kind: 'connectionSending', clientId: 'c1', connector: 'takealot' });
  });

  it('names only the status change when a write moves both the status and the mode', () => {
    const moved = connectionItem('c1', connection({ mode: 'suggest', status: 'paused', updated_at: '2026-11-22T10:00:00.000Z' }));
    expect(streamChangeOf(keysOf(moved), image(before), image(moved))).toEqual({
      kind: 'connectionStatus',
      clientId: 'c1',
      record: moved.record,
      previous: 'connected',
    });
  });

  it('names nothing for a write that kept both the mode and the status (new safety limits, a price counted)', () => {
    const kept = connectionItem(
      'c1',
      connection({ safety: { ...DEFAULT_SAFETY, max_step_percent: 5 }, prices_sent: 3, updated_at: '2026-11-22T10:00:00.000Z' }),
    );
    expect(streamChangeOf(keysOf(kept), image(before), image(kept))).toBeUndefined();
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

describe('streamChangeOf: market state items', () => {
  const market = { state: 'known', readAt: '2026-11-22T10:00:00.000Z' };
  const item = { ...marketStateKey('c1', 'SKU-1', 'takealot'), entity: 'productMarket', connector: 'takealot', market };

  it("names a premium narrowed alone as the product's market changing: its repricers decide again", () => {
    const narrowed = { ...item, premium: { low_percent: 4.76, high_percent: 10, observations: 1 } };
    expect(streamChangeOf(keysOf(narrowed), image(item), image(narrowed))).toEqual({ kind: 'market', clientId: 'c1', code: 'SKU-1' });
  });
});
