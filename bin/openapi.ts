/**
 * `npm run openapi`: writes the OpenAPI document to docs/openapi.json, the file the GetOpenApi
 * Lambda serves. A test fails while the committed file differs from a fresh build.
 */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { buildOpenApiDocument, serializeOpenApiDocument } from '../tools/openapi/document.js';
import { OPENAPI_FILE } from '../tools/openapi/file.js';

const document = buildOpenApiDocument();
writeFileSync(OPENAPI_FILE, serializeOpenApiDocument(document));
const operations = Object.values(document.paths as Record<string, object>).reduce((count, item) => count + Object.keys(item).length, 0);
process.stdout.write(`Wrote ${relative(process.cwd(), OPENAPI_FILE)} (${operations} operations).\n`);
