/**
 * `/docs` on the local server: the API reference (lambdas/functions/get-openapi/docs-page.ts), its renderer's
 * files read from node_modules (swagger-ui-dist). A deployed stage serves the same page from its
 * GET /v1/openapi.json function (lambdas/functions/get-openapi/docs-page.ts).
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  DOCS_ASSETS,
  DOCS_PAGE_HEADERS,
  DOCS_PATH,
  docsInitScript,
  docsPageHtml,
  INIT_SCRIPT_NAME,
  OPENAPI_PATH,
} from '../../lambdas/functions/get-openapi/docs-page.js';

export { DOCS_PATH, OPENAPI_PATH };

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The local server answers at the root: no stage in front of its paths. */
const PAGE = docsPageHtml('');
const INIT_SCRIPT = docsInitScript('');
const PAGE_HEADERS = DOCS_PAGE_HEADERS;

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
  const assetType = Object.hasOwn(DOCS_ASSETS, name) ? DOCS_ASSETS[name] : undefined;
  if (name === '' || name === 'index.html') send(res, 200, 'text/html; charset=utf-8', PAGE);
  else if (name === INIT_SCRIPT_NAME) send(res, 200, 'text/javascript; charset=utf-8', INIT_SCRIPT);
  else if (assetType) send(res, 200, assetType, await readFile(join(swaggerUiDir, name)));
  else send(res, 404, 'text/plain; charset=utf-8', 'Not found\n');
};

/** Takes the request when it is for the page or one of its files, and says whether it did. */
export const serveDocsPage = (req: IncomingMessage, res: ServerResponse): boolean => {
  const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
  if (path !== DOCS_PATH && !path.startsWith(`${DOCS_PATH}/`)) return false;
  answer(req, res, path).catch(() => (res.headersSent ? res.destroy() : send(res, 500, 'text/plain; charset=utf-8', 'The page could not be served\n')));
  return true;
};
