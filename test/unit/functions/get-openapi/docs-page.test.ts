import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { docsPageHandler } from '../../../../lambdas/functions/get-openapi/docs-page.js';
import { handler as openApiFunction } from '../../../../lambdas/functions/get-openapi/handler.js';

/** The stage's function reads the renderer's files next to its bundle; here, from node_modules. */
const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const handler = docsPageHandler(swaggerUiDir);

/** A request as API Gateway hands it over: `requestContext.path` as asked, `path` the resource's. */
const request = (asked: string, asset?: string) =>
  ({
    resource: asset === undefined ? '/docs' : '/docs/{asset}',
    path: asset === undefined ? '/docs' : `/docs/${asset}`,
    pathParameters: asset === undefined ? null : { asset },
    requestContext: { path: asked },
  }) as unknown as APIGatewayProxyEvent;

describe('the API reference page on a deployed stage', () => {
  it('serves the page with its files and the document under the stage the browser asked through', async () => {
    // Act
    const page = await handler(request('/prod/docs'));
    const init = await handler(request('/prod/docs/init.js', 'init.js'));

    // Assess
    expect(page.statusCode).toBe(200);
    expect(page.headers).toMatchObject({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': expect.stringContaining("default-src 'self'"),
    });
    expect(page.body).toContain('<link rel="stylesheet" href="/prod/docs/swagger-ui.css">');
    expect(page.body).toContain('<script src="/prod/docs/swagger-ui-bundle.js"></script>');
    expect(page.body).toContain('<script src="/prod/docs/init.js"></script>');
    expect(init.body).toContain('url: "/prod/v1/openapi.json"');
  });

  it('serves the same page without a stage behind a custom domain', async () => {
    expect((await handler(request('/docs'))).body).toContain('href="/docs/swagger-ui.css"');
  });

  it("serves the renderer's files as they are, and nothing else", async () => {
    // Act
    const css = await handler(request('/prod/docs/swagger-ui.css', 'swagger-ui.css'));
    const unknown = await handler(request('/prod/docs/package.json', 'package.json'));
    const inherited = await handler(request('/prod/docs/constructor', 'constructor'));

    // Assess
    expect(css).toMatchObject({ statusCode: 200, headers: { 'Content-Type': 'text/css; charset=utf-8' } });
    expect(css.body).toBe(readFileSync(join(swaggerUiDir, 'swagger-ui.css'), 'utf8'));
    expect(unknown.statusCode).toBe(404);
    expect(inherited.statusCode).toBe(404);
  });

  it('is answered by the function of GET /v1/openapi.json, which still serves the document on its own route', async () => {
    // Act
    const page = await openApiFunction(request('/prod/docs'), {} as Context);
    const documentEvent = { ...request('/prod/v1/openapi.json'), resource: '/v1/openapi.json', path: '/v1/openapi.json', pathParameters: null, headers: {} };
    const document = await openApiFunction(documentEvent as unknown as APIGatewayProxyEvent, {} as Context);

    // Assess
    expect(page).toMatchObject({ statusCode: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' } });
    expect(document).toMatchObject({ statusCode: 200 });
    expect(JSON.parse((document as { body: string }).body)).toMatchObject({ openapi: expect.stringMatching(/^3\.1/) });
  });
});
