import { readFileSync } from 'node:fs';
import { handler, OPENAPI_CACHE_CONTROL } from '../../../../lambdas/functions/get-openapi/handler.js';
import { OPENAPI_FILE } from '../../../../tools/openapi/file.js';
import { apiEvent, CONTEXT } from '../../fixtures/api-events.js';

describe('GET /v1/openapi.json', () => {
  it('serves docs/openapi.json as JSON to a caller without credentials', async () => {
    // Act
    const response = await handler(apiEvent({ path: '/v1/openapi.json', authorizer: null }), CONTEXT);

    // Assess
    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': OPENAPI_CACHE_CONTROL,
      'X-Content-Type-Options': 'nosniff',
    });
    expect(JSON.parse(response.body)).toEqual(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')));
  });
});
