/**
 * `/docs` on the local server: the API reference, rendered by Swagger UI from the document
 * GET /v1/openapi.json serves. The renderer's files come from node_modules (swagger-ui-dist),
 * never from a CDN. The deployed API has no such page.
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export const DOCS_PATH = '/docs';
export const OPENAPI_PATH = '/v1/openapi.json';

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Each asset by the name the page asks for. */
const ASSETS: Readonly<Record<string, { file: string; type: string }>> = {
  'swagger-ui.css': { file: join(swaggerUiDir, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: join(swaggerUiDir, 'swagger-ui-bundle.js'), type: 'text/javascript; charset=utf-8' },
};

const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(OPENAPI_PATH)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  displayOperationId: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Repricer API reference</title>
  <link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
  <script src="${DOCS_PATH}/init.js"></script>
</body>
</html>
`;

/** Swagger UI sets inline styles and data: icons; scripts and fetches stay on this origin. */
const PAGE_HEADERS = {
  'Content-Security-Policy': "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src *",
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-cache',
};

const send = (res: ServerResponse, status: number, type: string, body: string | Buffer) => {
  res.writeHead(status, { ...PAGE_HEADERS, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
};

const answer = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD' }).end();
    return;
  }
  const name = path.slice(DOCS_PATH.length + 1);
  const asset = ASSETS[name];
  if (name === '' || name === 'index.html') send(res, 200, 'text/html; charset=utf-8', PAGE);
  else if (name === 'init.js') send(res, 200, 'text/javascript; charset=utf-8', INIT_SCRIPT);
  else if (asset) send(res, 200, asset.type, await readFile(asset.file));
  else send(res, 404, 'text/plain; charset=utf-8', 'Not found\n');
};

/** Takes the request when it is for the page or one of its files, and says whether it did. */
export const serveDocsPage = (req: IncomingMessage, res: ServerResponse): boolean => {
  const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
  if (path !== DOCS_PATH && !path.startsWith(`${DOCS_PATH}/`)) return false;
  answer(req, res, path).catch(() => (res.headersSent ? res.destroy() : send(res, 500, 'text/plain; charset=utf-8', 'The page could not be served\n')));
  return true;
};
