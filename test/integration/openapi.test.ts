import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { OPENAPI_FILE } from '../../tools/openapi/file.js';
import { startTestApi, type TestApi } from '../support/local-api.js';

/** GET /v1/openapi.json, the /docs page's files, and the response check every test relies on. */
let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
}, 60_000);

afterAll(async () => api?.close());

describe('GET /v1/openapi.json', () => {
  it('serves docs/openapi.json to a caller without credentials', async () => {
    // Act
    const response = await api.request<Record<string, unknown>>('GET', '/v1/openapi.json');

    // Assess
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.body).toEqual(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')));
  });

  it('answers another method with 405 and Allow: GET', async () => {
    const response = await api.request('POST', '/v1/openapi.json', { body: {} });
    expect([response.status, response.headers.allow]).toEqual([405, 'GET']);
  });
});

describe('/docs on the local server', () => {
  // Not API paths, so plain fetch: the document does not (and should not) describe them.
  it('serves the page and the renderer from node_modules', async () => {
    // Act
    const get = (path: string) => fetch(`${api.baseUrl}${path}`);
    const [page, bundle, missing] = await Promise.all([get('/docs'), get('/docs/swagger-ui-bundle.js'), get('/docs/nothing.js')]);

    // Assess
    expect([page.status, bundle.status, missing.status]).toEqual([200, 200, 404]);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<script src="/docs/swagger-ui-bundle.js"></script>');
    const file = createRequire(import.meta.url).resolve('swagger-ui-dist/swagger-ui-bundle.js');
    expect(await bundle.text()).toBe(readFileSync(file, 'utf8'));
  });
});

describe('the response check of test/support/local-api.ts', () => {
  // Last in the file: a second API takes over TABLE_NAME (see local-api.ts).
  it('fails a request whose response the document does not describe', async () => {
    // Prepare: GetOpenApi answering a body without `openapi`, `info` and `paths`
    const broken = await startTestApi({
      handlers: {
        'lambdas/functions/get-openapi/handler.ts': async () => ({ statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '{"title":"x"}' }),
      },
    });

    try {
      // Act
      const request = broken.request('GET', '/v1/openapi.json');

      // Assess
      await expect(request).rejects.toThrow(/getOpenApi 200: body \(body\) must have required property 'openapi'/);
    } finally {
      await broken.close();
    }
  });
});
