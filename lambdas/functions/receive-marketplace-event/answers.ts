import { problem } from '../../http/problem.js';

/** The route's two answers; the OpenAPI document shows these very values. */

/** Every request that is not a verified, new event: one fixed body, so the answer tells nothing of why. */
export const EVENT_REFUSED = problem(401, 'The request is not a verified, new marketplace event.');
export const EVENT_RECEIVED = { received: true } as const;
