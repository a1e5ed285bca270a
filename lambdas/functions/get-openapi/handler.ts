import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
// The generated file, not the generator: the bundle carries JSON instead of zod and the builders.
import openApiDocument from '../../../docs/openapi.json' with { type: 'json' };
import { httpHandler } from '../../http/handler.js';
import { json } from '../../http/responses.js';
import { DOCS_PATH, docsPageHandler } from './docs-page.js';

/** The same public document for everyone: shared caches may keep it for a few minutes. */
export const OPENAPI_CACHE_CONTROL = 'public, max-age=300';

/** GET /v1/openapi.json: the OpenAPI document (docs/openapi.json, from `npm run openapi`), no credentials needed. */
export const getOpenApiRoute = (_event: APIGatewayProxyEvent) => Promise.resolve(json(200, openApiDocument, { 'Cache-Control': OPENAPI_CACHE_CONTROL }));

const openApi = httpHandler(getOpenApiRoute);
/** The renderer's files are beside the bundle (lib/constructs/docs-page.ts copies them there). */
const docsPage = docsPageHandler(dirname(fileURLToPath(import.meta.url)));

/**
 * The stage's API reference page (GET /docs, GET /docs/{asset}) is served by this same function:
 * it renders this document, and a function of its own would cost the stack a dozen resources.
 */
export const handler = (event: APIGatewayProxyEvent, context: Context) =>
  event.resource === DOCS_PATH || event.resource.startsWith(`${DOCS_PATH}/`) ? docsPage(event) : openApi(event, context);
