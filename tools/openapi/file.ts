import { fileURLToPath } from 'node:url';

/** Where `npm run openapi` writes the document and the GetOpenApi Lambda imports it from. */
export const OPENAPI_FILE = fileURLToPath(new URL('../../docs/openapi.json', import.meta.url));
