import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { HttpProblem } from './errors.js';
import { problem, STANDARD_PROBLEMS, type Problem } from './problem.js';

export const MAX_BODY_BYTES = 16 * 1024;
/**
 * No request body of the API nests deeper than 3 levels. Deeper JSON is refused before it is
 * parsed: a few thousand levels fit in 16 KiB and overflow the stack of recursive code that
 * walks a parsed body (the idempotency payload hash did: a 500).
 */
export const MAX_JSON_DEPTH = 32;
export const TOO_DEEP = problem(400, `The request body is nested more than ${MAX_JSON_DEPTH} levels deep.`);

/** The media types Middy's JSON body parser reads; anything else it answers with 415 itself. */
const JSON_MEDIA_TYPE = /^application\/(.+\+)?json($|;.+)/i;

/** Whether JSON text opens more than `limit` arrays and objects at once (strings skipped; nothing parsed). */
export const nestsDeeperThan = (text: string, limit: number): boolean => {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === '{' || char === '[') {
      if (++depth > limit) return true;
    } else if (char === '}' || char === ']') {
      depth--;
    }
  }
  return false;
};

/**
 * Refuses bodies over the limit (16 KiB unless a route has its own, e.g. the NDJSON of
 * `POST /v1/imports`), and JSON nested too deeply, before they are parsed.
 */
export const bodyLimit = (maxBytes = MAX_BODY_BYTES, tooLarge: Problem = STANDARD_PROBLEMS.tooLarge): MiddlewareObj<APIGatewayProxyEvent> => ({
  before: ({ event }) => {
    if (event.body == null) return;
    const raw = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : undefined;
    const bytes = raw ? raw.byteLength : Buffer.byteLength(event.body, 'utf8');
    if (bytes > maxBytes) throw new HttpProblem(tooLarge);
    const contentType = event.headers?.['content-type'] ?? event.headers?.['Content-Type'];
    if (contentType && JSON_MEDIA_TYPE.test(contentType) && nestsDeeperThan(raw ? raw.toString('utf8') : event.body, MAX_JSON_DEPTH)) {
      throw new HttpProblem(TOO_DEEP);
    }
  },
});
