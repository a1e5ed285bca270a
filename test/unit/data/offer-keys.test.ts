import fc from 'fast-check';
import { OFFER_SORT_FIELDS, type OfferSortField } from '../../../lambdas/shared/domain/offer-query.js';
import {
  competitorsPrefix,
  competitorsPrefixOf,
  ID_WIDTH,
  idKey,
  SORT_STORAGE,
  sortKeyOf,
  viewName,
  viewsOf,
  type SortableOffer,
} from '../../../lambdas/shared/data/offer-keys.js';
import { fcParameters } from '../../support/seed.js';

const MAX_ID = 36 ** ID_WIDTH - 1;
const MIN_MS = Date.parse('1970-01-01T00:00:00.000Z');
const MAX_MS = Date.parse('2999-12-31T23:59:59.999Z');

const sortableOffer = fc.record({
  id: fc.integer({ min: 1, max: MAX_ID }),
  total_competitors: fc.integer({ min: 0, max: 1_000_000 }),
  cents: fc.integer({ min: 0, max: 1_000_000_000 }),
  millis: fc.integer({ min: MIN_MS, max: MAX_MS }),
}).map(({ id, total_competitors, cents, millis }): SortableOffer => ({
  id,
  total_competitors,
  offer_price: cents / 100,
  updated_at: new Date(millis).toISOString(),
}));

const valueOf = (offer: SortableOffer, field: OfferSortField): number => {
  switch (field) {
    case 'id':
      return offer.id;
    case 'total_competitors':
      return offer.total_competitors;
    case 'offer_price':
      return Math.round(offer.offer_price * 100);
    case 'updated_at':
      return Date.parse(offer.updated_at);
  }
};
const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);
const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('idKey and competitorsPrefix', () => {
  it.each([
    [1, '00000001'],
    [35, '0000000z'],
    [36, '00000010'],
    [MAX_ID, 'zzzzzzzz'],
  ])('idKey(%p) = %p', (id, key) => {
    expect(idKey(id)).toBe(key);
  });

  it.each([-1, 36 ** ID_WIDTH])('idKey refuses %p', (id) => {
    expect(() => idKey(id)).toThrow(RangeError);
  });

  it.each([
    [0, '0000'],
    [5, '0005'],
    [1_000_000, 'lfls'],
  ])('competitorsPrefix(%p) = %p', (count, prefix) => {
    expect(competitorsPrefix(count)).toBe(prefix);
  });

  it('competitorsPrefix refuses a count that does not fit 4 digits', () => {
    expect(() => competitorsPrefix(36 ** 4)).toThrow(RangeError);
  });
});

describe('sortKeyOf', () => {
  const offer: SortableOffer = { id: 42, total_competitors: 7, offer_price: 19.99, updated_at: '2026-01-02T03:04:05.678Z' };

  it.each<[OfferSortField, string]>([
    ['id', '00000016'],
    ['total_competitors', '0007' + '00000016'],
    ['offer_price', '00001jj' + '00000016'], // 1999 cents = "1jj"
    ['updated_at', Date.parse('2026-01-02T03:04:05.678Z').toString(36).padStart(9, '0') + '00000016'],
  ])('%s', (field, key) => {
    expect(sortKeyOf(offer, field)).toBe(key);
  });

  it('refuses a price with more than two decimals', () => {
    expect(() => sortKeyOf({ ...offer, offer_price: 1.005 }, 'offer_price')).toThrow(RangeError);
  });

  it('fits the largest price', () => {
    expect(sortKeyOf({ ...offer, offer_price: 10_000_000 }, 'offer_price')).toBe('0gjdgxs00000016');
  });

  it.each(OFFER_SORT_FIELDS)('orders %s keys as (value, id) numbers, with one width per field', (field) => {
    fc.assert(
      fc.property(sortableOffer, sortableOffer, (a, b) => {
        const keyA = sortKeyOf(a, field);
        const keyB = sortKeyOf(b, field);
        const expected = sign(valueOf(a, field) - valueOf(b, field)) || sign(a.id - b.id);
        expect(compareStrings(keyA, keyB)).toBe(expected);
        expect(keyA).toHaveLength(keyB.length);
        expect(keyA.endsWith(idKey(a.id))).toBe(true);
      }),
      fcParameters({ numRuns: 500 }),
    );
  });

  it('orders equal values by id', () => {
    fc.assert(
      fc.property(sortableOffer, fc.integer({ min: 1, max: MAX_ID }), (a, otherId) => {
        const b = { ...a, id: otherId };
        for (const field of OFFER_SORT_FIELDS) {
          expect(compareStrings(sortKeyOf(a, field), sortKeyOf(b, field))).toBe(sign(a.id - b.id));
        }
      }),
      fcParameters(),
    );
  });

  it('competitorsPrefixOf reads the histogram prefix back', () => {
    fc.assert(
      fc.property(sortableOffer, (offer) => {
        expect(competitorsPrefixOf(sortKeyOf(offer, 'total_competitors'))).toBe(competitorsPrefix(offer.total_competitors));
      }),
      fcParameters(),
    );
  });
});

describe('SORT_STORAGE', () => {
  it('pages id from the table and each other order from its own GSI; ranks every order on its own LSI', () => {
    expect(SORT_STORAGE).toEqual({
      id: { pageAttribute: 'sk', rankIndex: 'rankById', rankAttribute: 'idKey' },
      total_competitors: { pageIndex: 'byCompetitors', pageAttribute: 'tcKey', rankIndex: 'rankByCompetitors', rankAttribute: 'tcKey' },
      offer_price: { pageIndex: 'byPrice', pageAttribute: 'priceKey', rankIndex: 'rankByPrice', rankAttribute: 'priceKey' },
      updated_at: { pageIndex: 'byUpdated', pageAttribute: 'updatedKey', rankIndex: 'rankByUpdated', rankAttribute: 'updatedKey' },
    });
  });
});

describe('views', () => {
  it.each<['own' | 'all', string | undefined, string]>([
    ['own', undefined, 'OWN#*'],
    ['all', undefined, 'ALL#*'],
    ['own', 'winning', 'OWN#=winning'],
    ['all', 'a#b c', 'ALL#=a%23b%20c'],
    ['all', '*', 'ALL#=*'],
  ])('viewName(%p, %p) = %p', (scope, competitiveness, name) => {
    expect(viewName(scope, competitiveness)).toBe(name);
  });

  it('lists an own offer in the ALL and OWN views', () => {
    expect(viewsOf({ seller_id: 'me', competitiveness: 'losing' }, 'me')).toEqual(['ALL#*', 'ALL#=losing', 'OWN#*', 'OWN#=losing']);
  });

  it('lists another seller\'s offer in the ALL views only', () => {
    expect(viewsOf({ seller_id: 'them', competitiveness: 'losing' }, 'me')).toEqual(['ALL#*', 'ALL#=losing']);
  });
});
