import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../../lambdas/functions/get-offer/handler.js';
import { OFFER_LIST, offerRecordOf } from '../../../../lambdas/data/offers/list.js';
import { logger } from '../../../../lambdas/observability/logger.js';
import { FakeTable, TABLE } from '../../data/fake-table.js';
import { product, storedOffer } from '../../data/fixtures.js';
import { seedList } from '../../data/lists/ranked/seed-list.js';
import { apiEvent, CONTEXT, expectProblem } from '../../fixtures/api-events.js';

const ddb = mockClient(DynamoDBDocumentClient);
const OTHER_SELLERS = storedOffer({ offer_id: 'OF-42', seller_id: 'seller-other' }, { id: 42, scope: 'other' });
const OWN = storedOffer({ offer_id: 'OF-7' }, { id: 7 });

const get = (id: string) => handler({ ...apiEvent({ path: `/v1/offers/${id}` }), pathParameters: { id } }, CONTEXT);

beforeAll(() => {
  process.env.TABLE_NAME = TABLE;
});

beforeEach(() => {
  ddb.reset();
  logger.setLogLevel('SILENT');
  const table = new FakeTable().serve(ddb);
  seedList(table, 'c1', OFFER_LIST, [OWN, OTHER_SELLERS], (offer) => offerRecordOf(offer, product()), { bucketSize: 2, chunkSize: 2 });
  ddb.resetHistory();
});

describe('GET /v1/offers/{id}', () => {
  it.each([
    ["another seller's offer on the client's product", '42', OTHER_SELLERS],
    ['an own offer', '7', OWN],
  ])('answers 200 with %s, product nested', async (_case, id, offer) => {
    // Act
    const response = await get(id);

    // Assess
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual(offerRecordOf(offer, product()));
  });

  it('answers a missing, malformed or unkeyable id with the same 404, reading nothing for the ones no offer can have', async () => {
    // Act
    const missing = await get('43');
    const reads = ddb.calls().length;
    const others = [await get('x'), await get('0'), await get('4e1'), await get(String(36 ** 8))];

    // Assess
    expectProblem(missing, 404);
    for (const response of others) expect(response.body).toBe(missing.body);
    expect(ddb.calls()).toHaveLength(reads);
  });
});
