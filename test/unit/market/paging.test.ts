import { HttpError } from '../../../tools/market/http.js';
import { decodeToken, pageOf, type Page } from '../../../tools/market/paging.js';

const offers = Array.from({ length: 250 }, (_, index) => index + 1);
const params = (query: Record<string, string>) => new URLSearchParams(query);

/** Follows continuation tokens the way a sync does, stopping when none comes back. */
const pageAll = (query: Record<string, string>, page2Bug: boolean) => {
  const seen: number[] = [];
  let token: string | null = null;
  for (let request = 0; request < 100; request++) {
    const page: Page<number> = pageOf(offers, params({ ...query, ...(token === null ? {} : { continuation_token: token }) }), page2Bug);
    seen.push(...page.items);
    token = page.continuation_token;
    if (token === null) break;
  }
  return seen;
};

describe('GET /offers paging', () => {
  it('pages through every offer exactly once with continuation tokens', () => {
    expect(pageAll({ limit: '100' }, false)).toEqual(offers);
    expect(pageAll({ limit: '7' }, false)).toEqual(offers);
  });

  it('defaults limit to 100, and the last page has no token', () => {
    const first = pageOf(offers, params({}), false);
    expect(first.items).toHaveLength(100);
    expect(first.limit).toBe(100);
    const last = pageOf(offers, params({ limit: '1000' }), false);
    expect(last.items).toHaveLength(250);
    expect(last.continuation_token).toBeNull();
  });

  it('adds count only with include_count=true', () => {
    expect(pageOf(offers, params({ include_count: 'true' }), false).count).toBe(250);
    expect(pageOf(offers, params({}), false)).not.toHaveProperty('count');
  });

  it.each(['0', '1001', 'abc', '10.5', '-1'])('refuses limit=%s with 400', (limit) => {
    expect(() => pageOf(offers, params({ limit }), false)).toThrow(HttpError);
  });

  it('refuses a token it did not issue', () => {
    expect(() => decodeToken('not-a-token')).toThrow('invalid continuation_token');
    expect(() => pageOf(offers, params({ continuation_token: Buffer.from('{"o":-5,"p":2}').toString('base64url') }), false)).toThrow(HttpError);
  });
});

describe('the page-2 bug', () => {
  it('answers page 2 without a continuation token although more offers exist, so a naive sync stops at 200 of 250', () => {
    const seen = pageAll({ limit: '100', include_count: 'true' }, true);
    expect(seen).toHaveLength(200);
    const page2 = pageOf(offers, params({ continuation_token: pageOf(offers, params({}), true).continuation_token!, include_count: 'true' }), true);
    expect(page2.continuation_token).toBeNull();
    expect(page2.count).toBe(250);
  });

  it('leaves page 1 and a catalogue that fits in two pages alone', () => {
    expect(pageOf(offers, params({}), true).continuation_token).not.toBeNull();
    expect(pageAll({ limit: '125' }, true)).toEqual(offers);
  });
});
