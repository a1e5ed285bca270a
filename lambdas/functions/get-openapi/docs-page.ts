import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';

/**
 * The API reference page: Swagger UI rendering the document GET /v1/openapi.json serves. The same
 * page on the local server (tools/local/docs-page.ts) and on a deployed stage (below); the
 * renderer's two files come from swagger-ui-dist, served by the same origin, never from a CDN.
 * `base` is what precedes the API's paths in the browser's address: empty locally, the stage
 * (`/prod`) on an execute-api URL, so the page finds its files and the document on either.
 */
export const DOCS_PATH = '/docs';
export const OPENAPI_PATH = '/v1/openapi.json';

/** The renderer's files by the name the page asks for, with their content type. */
export const DOCS_ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};
export const INIT_SCRIPT_NAME = 'init.js';

export const docsInitScript = (base: string): string => `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(`${base}${OPENAPI_PATH}`)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  displayOperationId: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
});
`;

export const docsPageHtml = (base: string): string => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Repricer API reference</title>
  <link rel="stylesheet" href="${base}${DOCS_PATH}/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${base}${DOCS_PATH}/swagger-ui-bundle.js"></script>
  <script src="${base}${DOCS_PATH}/${INIT_SCRIPT_NAME}"></script>
</body>
</html>
`;

/** Swagger UI sets inline styles and data: icons; scripts and fetches stay on this origin. */
export const DOCS_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src *",
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-cache',
};

const answer = (statusCode: number, contentType: string, body: string): APIGatewayProxyResult => ({
  statusCode,
  headers: { ...DOCS_PAGE_HEADERS, 'Content-Type': contentType },
  body,
});

/**
 * What precedes the API's paths in the browser's address: `requestContext.path` is the path as
 * asked (`/prod/docs` on an execute-api URL, no stage behind a custom domain), `path` the resource's.
 */
const baseOf = (event: APIGatewayProxyEvent): string => {
  const asked = event.requestContext.path;
  return asked.endsWith(event.path) ? asked.slice(0, asked.length - event.path.length) : '';
};

/**
 * GET /docs and GET /docs/{asset} on a deployed stage, answered by the function of
 * GET /v1/openapi.json (handler.ts): the page and its files, the renderer's read from `assetsDir`
 * (next to the bundle, where the stack copies them: lib/constructs/docs-page.ts) once per container.
 */
export const docsPageHandler = (assetsDir: string) => {
  const assets = new Map<string, Promise<string>>();
  return async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    const name = event.pathParameters?.asset ?? '';
    const base = baseOf(event);
    if (name === '' || name === 'index.html') return answer(200, 'text/html; charset=utf-8', docsPageHtml(base));
    if (name === INIT_SCRIPT_NAME) return answer(200, 'text/javascript; charset=utf-8', docsInitScript(base));
    const type = Object.hasOwn(DOCS_ASSETS, name) ? DOCS_ASSETS[name] : undefined;
    if (type === undefined) return answer(404, 'text/plain; charset=utf-8', 'Not found\n');
    let content = assets.get(name);
    if (content === undefined) {
      content = readFile(join(assetsDir, name), 'utf8');
      assets.set(name, content);
      // A failed read is not kept: the next request tries again.
      content.catch(() => assets.delete(name));
    }
    return answer(200, type, await content);
  };
};
