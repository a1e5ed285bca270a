import { planPriceChangeQuery, priceChangeQueryParameters, repricerPriceChangeQueryParameters } from '../../../lambdas/domain/price-change-query.js';
import { PRICE_CHANGE_STATUSES } from '../../../lambdas/domain/records.js';

const plan = (params: Record<string, string>) => planPriceChangeQuery(priceChangeQueryParameters.parse(params));
const refused = (params: Record<string, unknown>, schema: typeof priceChangeQueryParameters | typeof repricerPriceChangeQueryParameters) => {
  const result = schema.safeParse(params);
  return result.success ? [] : result.error.issues.map((issue) => ({ field: issue.path.join('.'), message: issue.message }));
};

describe('priceChangeQueryParameters / planPriceChangeQuery', () => {
  it('defaults to every price change, by id ascending, 100 from the start, whatever the status', () => {
    expect(plan({})).toEqual({ sort: { field: 'id', direction: 'ASC' }, limit: 100, start: 0 });
  });

  it.each(PRICE_CHANGE_STATUSES)('plans status=%s', (status) => {
    expect(plan({ status })).toEqual({ status, sort: { field: 'id', direction: 'ASC' }, limit: 100, start: 0 });
  });

  it('combines the status with the other filters', () => {
    expect(plan({ status: 'pending', reason: 'floor', repricer_id: '7', product_code: 'A B', _sort: 'created_at:desc' })).toEqual({
      status: 'pending',
      reason: 'floor',
      repricerId: 7,
      productCode: 'A B',
      sort: { field: 'created_at', direction: 'DESC' },
      limit: 100,
      start: 0,
    });
  });

  it("takes the status on a repricer's route, the repricer from the path", () => {
    expect(planPriceChangeQuery(repricerPriceChangeQueryParameters.parse({ status: 'failed' }), 9)).toMatchObject({ status: 'failed', repricerId: 9 });
  });

  it.each(['Suggested', 'done', '', 'suggested,pending', 'x'.repeat(1_000)])('refuses status=%p naming the statuses', (status) => {
    for (const schema of [priceChangeQueryParameters, repricerPriceChangeQueryParameters] as const) {
      expect(refused({ status }, schema)).toEqual([
        { field: 'status', message: 'status must be one of suggested, pending, sent, applied, failed, superseded.' },
      ]);
    }
  });
});
