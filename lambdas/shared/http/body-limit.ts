import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { HttpProblem } from './errors.js';
import { STANDARD_PROBLEMS } from './problem.js';

export const MAX_BODY_BYTES = 16 * 1024;

/** Refuses bodies over 16 KiB before they are parsed. */
export const bodyLimit = (maxBytes = MAX_BODY_BYTES): MiddlewareObj<APIGatewayProxyEvent> => ({
  before: ({ event }) => {
    if (event.body == null) return;
    const bytes = event.isBase64Encoded
      ? Buffer.from(event.body, 'base64').byteLength
      : Buffer.byteLength(event.body, 'utf8');
    if (bytes > maxBytes) throw new HttpProblem(STANDARD_PROBLEMS.tooLarge);
  },
});
