import { planRepricerQuery, repricerQueryParameters } from '../../../lambdas/domain/repricer-query.js';

const plan = (params: Record<string, string>) => planRepricerQuery(repricerQueryParameters.parse(params));
const fieldsOf = (params: Record<string, unknown>) => {
  const result = repricerQueryParameters.safeParse(params);
  return result.success
    ? []
    : [...new Set(result.error.issues.map((issue) => (issue.code === 'unrecognized_keys' ? issue.keys.join(',') : issue.path.join('.'))))];
};

describe('repricerQueryParameters / planRepricerQuery', () => {
  it('defaults to every repricer, by id ascending, 100 from the start', () => {
    expect(plan({})).toEqual({ sort: { field: 'id', direction: 'ASC' }, limit: 100, start: 0 });
  });

  it.each<[Record<string, string>, Record<string, unknown>]>([
    [{ enabled: 'true' }, { enabled: true }],
    [{ enabled: 'false' }, { enabled: false }],
    [{ product_code: 'A B#1' }, { productCode: 'A B#1' }],
    [{ _sort: 'created_at:desc' }, { sort: { field: 'created_at', direction: 'DESC' } }],
    [{ _sort: 'updated_at' }, { sort: { field: 'updated_at', direction: 'ASC' } }],
    [{ _sort: 'id:Desc' }, { sort: { field: 'id', direction: 'DESC' } }],
    [
      { _limit: '1', _start: '1000000000' },
      { limit: 1, start: 1_000_000_000 },
    ],
  ])('plans %p', (params, expected) => {
    expect(plan(params)).toMatchObject(expected);
  });

  it.each<[Record<string, unknown>, string]>([
    [{ _limit: '0' }, '_limit'],
    [{ _limit: '101' }, '_limit'],
    [{ _limit: '1e2' }, '_limit'],
    [{ _start: '-1' }, '_start'],
    [{ _start: '1000000001' }, '_start'],
    [{ _sort: 'offer_price' }, '_sort'],
    [{ _sort: 'ID' }, '_sort'],
    [{ _sort: 'id:up' }, '_sort'],
    [{ enabled: 'TRUE' }, 'enabled'],
    [{ enabled: '1' }, 'enabled'],
    [{ product_code: '' }, 'product_code'],
    [{ product_code: 'x'.repeat(65) }, 'product_code'],
    [{ competitiveness: 'high' }, 'competitiveness'],
    [{ _include_other_offers: 'true' }, '_include_other_offers'],
  ])('refuses %p naming %s', (params, field) => {
    expect(fieldsOf(params)).toEqual([field]);
  });
});
