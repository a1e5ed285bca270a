import { DEFAULT_LIMIT, OFFER_SORT_FIELDS, offerQueryParameters, planOfferQuery } from '../../../lambdas/domain/offer-query.js';

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

    // Assess
    expect(planned).toEqual({ scope: 'own', sort: { field: 'id', direction: 'ASC' }, limit: DEFAULT_LIMIT, start: 0 });
    expect(DEFAULT_LIMIT).toBe(100);
  });

  it('carries every given parameter into the query', () => {
    expect(
      plan({ _limit: '7', _start: '14', _sort: 'offer_price:DESC', competitiveness: 'losing', total_competitors_gte: '2', _include_other_offers: 'true' }),
    ).toEqual({
      scope: 'all',
      competitiveness: 'losing',
      minCompetitors: 2,
      sort: { field: 'offer_price', direction: 'DESC' },
      limit: 7,
      start: 14,
    });
  });

  it.each<[string, 'own' | 'all']>([
    ['true', 'all'],
    ['false', 'own'],
  ])('_include_other_offers=%s reads the %s scope', (value, scope) => {
    expect(plan({ _include_other_offers: value }).scope).toBe(scope);
  });

  it.each([
    [{ total_competitors_gte: '3' }],
    [{ competitiveness: 'high' }],
    [{ competitiveness: 'high', total_competitors_gte: '0', _include_other_offers: 'true' }],
  ])('sorts by id ascending by default whatever the filters: %p', (params) => {
    expect(plan(params).sort).toEqual({ field: 'id', direction: 'ASC' });
  });

  it('keeps a minimum of 0 competitors as a filter', () => {
    expect(plan({ total_competitors_gte: '0' }).minCompetitors).toBe(0);
  });

  const FILTERS: Record<string, string>[] = [
    {},
    { competitiveness: 'high' },
    { total_competitors_gte: '3' },
    { _include_other_offers: 'true' },
    { competitiveness: 'high', total_competitors_gte: '3', _include_other_offers: 'true' },
  ];
  it.each(OFFER_SORT_FIELDS.flatMap((field) => ['ASC', 'DESC'].flatMap((direction) => FILTERS.map((filters) => [`${field}:${direction}`, filters] as const))))(
    'plans _sort=%s with the filters %p',
    (sort, filters) => {
      // Act
      const planned = plan({ ...filters, _sort: sort });

      // Assess
      const [field, direction] = sort.split(':');
      expect(planned.sort).toEqual({ field, direction });
      expect(planned.minCompetitors).toBe(filters.total_competitors_gte === undefined ? undefined : Number(filters.total_competitors_gte));
      expect(planned.competitiveness).toBe(filters.competitiveness);
      expect(planned.scope).toBe(filters._include_other_offers === 'true' ? 'all' : 'own');
    },
  );
});
