import { decodeFeedCursor, encodeFeedCursor, isFeedQuery, planPriceChangeFeed, priceChangeFeedParameters } from '../../../lambdas/domain/price-change-feed.js';

const POSITION = { updatedAt: '2026-11-22T10:00:00.123Z', key: '2026-11-22T10:00:00.123Z#P-1#PC#7#o-1#1' };
const NOW = Date.parse('2026-11-22T12:00:00.000Z');

describe('the price change feed', () => {
  it('is asked for by updated_since or cursor; any other query is the _start pages', () => {
    expect(isFeedQuery({ updated_since: 'x' })).toBe(true);
    expect(isFeedQuery({ cursor: 'x', _limit: '5' })).toBe(true);
    expect(isFeedQuery({ _start: '0', status: 'suggested' })).toBe(false);
  });

  it('gives back the position a cursor names, for its own client only', () => {
    // Act
    const cursor = encodeFeedCursor('client-a', POSITION);

    // Assert
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor).not.toContain('client-a');
    expect(Buffer.from(cursor, 'base64url').toString('utf8')).not.toContain('client-a');
    expect(decodeFeedCursor('client-a', cursor)).toEqual(POSITION);
    expect(decodeFeedCursor('client-b', cursor)).toBeUndefined();
  });

  it.each([
    ['not base64url', 'a+b/c='],
    ['not JSON', Buffer.from('nope').toString('base64url')],
    ['another version', Buffer.from(JSON.stringify({ v: 2 })).toString('base64url')],
    ['a key that does not start with its time', 'key'],
  ])('refuses a cursor that is %s', (_case, cursor) => {
    const text =
      cursor === 'key'
        ? (() => {
            const body = JSON.parse(Buffer.from(encodeFeedCursor('client-a', POSITION), 'base64url').toString('utf8')) as Record<string, unknown>;
            return Buffer.from(JSON.stringify({ ...body, k: '2027-01-01T00:00:00.000Z#P-1' }), 'utf8').toString('base64url');
          })()
        : cursor;
    expect(decodeFeedCursor('client-a', text)).toBeUndefined();
  });

  it('plans the first page from updated_since, normalized to UTC milliseconds, and holds back what is newer than the settle delay', () => {
    // Act
    const params = priceChangeFeedParameters.parse({ updated_since: '2026-11-22T12:00:00+02:00', _limit: '10' });
    const planned = planPriceChangeFeed('client-a', params, NOW, 30_000);

    // Assert
    expect(planned).toEqual({ ok: true, query: { after: { since: '2026-11-22T10:00:00.000Z' }, limit: 10, until: '2026-11-22T11:59:30.000Z' } });
  });

  it("plans the next page from a cursor, and refuses another client's", () => {
    const cursor = encodeFeedCursor('client-a', POSITION);
    const params = priceChangeFeedParameters.parse({ cursor });
    expect(planPriceChangeFeed('client-a', params, NOW, 0)).toEqual({
      ok: true,
      query: { after: { position: POSITION }, limit: 100, until: new Date(NOW).toISOString() },
    });
    expect(planPriceChangeFeed('client-b', params, NOW, 0)).toEqual({ ok: false });
  });

  it.each([
    ['both', { updated_since: '2026-11-22T10:00:00.000Z', cursor: 'abc' }],
    ['neither', { _limit: '5' }],
    ['a paging parameter', { updated_since: '2026-11-22T10:00:00.000Z', _start: '0' }],
    ['microseconds', { updated_since: '2026-11-22T10:00:00.000001Z' }],
  ])('refuses %s', (_case, params) => {
    expect(priceChangeFeedParameters.safeParse(params).success).toBe(false);
  });
});
