import {
  DEFAULT_LIMIT,
  offerQueryParameters,
  planOfferQuery,
  SUPPORTED_COMBINATIONS,
} from '../../../lambdas/shared/domain/offer-query.js';

const plan = (params: Record<string, string>) => planOfferQuery(offerQueryParameters.parse(params));
const issuesOf = (params: Record<string, unknown>) => {
  const result = offerQueryParameters.safeParse(params);
  return result.success ? [] : result.error.issues;
};

describe('offerQueryParameters', () => {
  it.each<[Record<string, string>, Record<string, unknown>]>([
    [{ _limit: '1' }, { _limit: 1 }],
    [{ _limit: '100' }, { _limit: 100 }],
    [{ _start: '0' }, { _start: 0 }],
    [{ _start: '1000000000' }, { _start: 1_000_000_000 }],
    [{ _sort: 'offer_price' }, { _sort: { field: 'offer_price', direction: 'ASC' } }],
    [{ _sort: 'offer_price:desc' }, { _sort: { field: 'offer_price', direction: 'DESC' } }],
    [{ _sort: 'updated_at:ASC' }, { _sort: { field: 'updated_at', direction: 'ASC' } }],
    [{ _sort: 'total_competitors:Desc' }, { _sort: { field: 'total_competitors', direction: 'DESC' } }],
    [{ _sort: 'id' }, { _sort: { field: 'id', direction: 'ASC' } }],
    [{ competitiveness: 'x' }, { competitiveness: 'x' }],
    [{ competitiveness: 'c'.repeat(32) }, { competitiveness: 'c'.repeat(32) }],
    [{ total_competitors_gte: '0' }, { total_competitors_gte: 0 }],
    [{ total_competitors_gte: '1000000' }, { total_competitors_gte: 1_000_000 }],
    [{ _include_other_offers: 'true' }, { _include_other_offers: 'true' }],
    [{ _include_other_offers: 'false' }, { _include_other_offers: 'false' }],
  ])('accepts %p', (params, parsed) => {
    expect(offerQueryParameters.parse(params)).toEqual(parsed);
  });

  it.each<[string, string]>([
    ['_limit', '0'],
    ['_limit', '101'],
    ['_limit', 'abc'],
    ['_limit', '1.5'],
    ['_limit', '-1'],
    ['_limit', ''],
    ['_limit', ' 5'],
    ['_start', '-1'],
    ['_start', '1000000001'],
    ['_start', '1e3'],
    ['_sort', 'Offer_price'],
    ['_sort', 'ID'],
    ['_sort', 'price'],
    ['_sort', 'offer_price:up'],
    ['_sort', 'offer_price:'],
    ['_sort', 'offer_price:asc:desc'],
    ['_sort', ''],
    ['competitiveness', ''],
    ['competitiveness', 'c'.repeat(33)],
    ['total_competitors_gte', '-1'],
    ['total_competitors_gte', '1000001'],
    ['total_competitors_gte', 'many'],
    ['_include_other_offers', 'yes'],
    ['_include_other_offers', 'TRUE'],
    ['_include_other_offers', '1'],
  ])('refuses %s=%p and names the parameter', (name, value) => {
    // Act
    const issues = issuesOf({ [name]: value });

    // Assert
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.map((issue) => issue.path.join('.'))).toContain(name);
  });

  it('explains the allowed values of _sort', () => {
    expect(issuesOf({ _sort: 'price' })[0]?.message).toBe(
      '_sort must be one of id, total_competitors, offer_price, updated_at, optionally followed by :ASC or :DESC.',
    );
    expect(issuesOf({ _sort: 'Offer_price' }).map((issue) => issue.message)).toContain(
      '_sort field must be one of id, total_competitors, offer_price, updated_at (lower case).',
    );
  });

  it('explains the bounds of _limit', () => {
    expect(issuesOf({ _limit: '101' })[0]?.message).toBe('_limit must be an integer between 1 and 100.');
  });

  it.each(['_page', 'sort', 'limit', 'Competitiveness'])('refuses the unknown parameter %s', (name) => {
    expect(issuesOf({ [name]: '1' })).toEqual([expect.objectContaining({ code: 'unrecognized_keys', keys: [name] })]);
  });
});

describe('planOfferQuery', () => {
  it('defaults to own offers by id ascending, 100 from the start', () => {
    // Act
    const planned = plan({});

    // Assert
    expect(planned).toEqual({
      ok: true,
      query: { scope: 'own', sort: { field: 'id', direction: 'ASC' }, limit: DEFAULT_LIMIT, start: 0 },
    });
    expect(DEFAULT_LIMIT).toBe(100);
  });

  it('carries every given parameter into the query', () => {
    expect(plan({ _limit: '7', _start: '14', _sort: 'offer_price:DESC', competitiveness: 'losing', _include_other_offers: 'true' })).toEqual({
      ok: true,
      query: { scope: 'all', competitiveness: 'losing', sort: { field: 'offer_price', direction: 'DESC' }, limit: 7, start: 14 },
    });
  });

  it.each<[string, 'own' | 'all']>([
    ['true', 'all'],
    ['false', 'own'],
  ])('_include_other_offers=%s reads the %s scope', (value, scope) => {
    const planned = plan({ _include_other_offers: value });
    expect(planned.ok && planned.query.scope).toBe(scope);
  });

  it('sorts by total_competitors ascending by default when filtering on it', () => {
    expect(plan({ total_competitors_gte: '3' })).toEqual({
      ok: true,
      query: { scope: 'own', minCompetitors: 3, sort: { field: 'total_competitors', direction: 'ASC' }, limit: 100, start: 0 },
    });
  });

  it('keeps a minimum of 0 competitors as a filter', () => {
    const planned = plan({ total_competitors_gte: '0' });
    expect(planned.ok && planned.query.minCompetitors).toBe(0);
  });

  it.each(['total_competitors', 'total_competitors:ASC', 'total_competitors:desc'])('accepts total_competitors_gte with _sort=%s', (sort) => {
    expect(plan({ total_competitors_gte: '3', _sort: sort }).ok).toBe(true);
  });

  it.each(['id', 'id:DESC', 'offer_price', 'updated_at:desc'])('refuses total_competitors_gte with _sort=%s', (sort) => {
    expect(plan({ total_competitors_gte: '3', _sort: sort })).toEqual({
      ok: false,
      problem: { field: '_sort', message: SUPPORTED_COMBINATIONS },
    });
  });
});
