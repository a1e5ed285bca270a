import type { APIGatewayProxyEvent } from 'aws-lambda';
// The generated file, not the generator: the bundle carries JSON instead of zod and the builders.
import openApiDocument from '../../docs/openapi.json' with { type: 'json' };
import { httpHandler } from '../http/handler.js';
import { json } from '../http/responses.js';

/** The same public document for everyone: shared caches may keep it for a few minutes. */
export const OPENAPI_CACHE_CONTROL = 'public, max-age=300';

/** GET /v1/openapi.json: the OpenAPI document (docs/openapi.json, from `npm run openapi`), no credentials needed. */
export const getOpenApiRoute = (_event: APIGatewayProxyEvent) => Promise.resolve(json(200, openApiDocument, { 'Cache-Control': OPENAPI_CACHE_CONTROL }));

export const handler = httpHandler(getOpenApiRoute);
