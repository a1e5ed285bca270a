import { THROTTLED_RETRY_AFTER_SECONDS } from '../../lambdas/config/retry-after.js';
import { etagOf } from '../../lambdas/http/preconditions.js';
import { PROBLEM_CONTENT_TYPE, WWW_AUTHENTICATE, type Problem } from '../../lambdas/http/problem.js';
import { problemExamples, repricerExample, type ProblemStatus } from './examples.js';
import { schemaRef, type JsonSchema } from './schemas.js';

/** The response headers the document names, as components.headers. */
export const HEADERS = {
  Location: {
    description: 'The path of the created resource.',
    required: true,
    schema: { type: 'string', format: 'uri-reference' },
    example: `/v1/repricers/${repricerExample.id}`,
  },
  ETag: {
    description: 'Strong entity tag of the stored version: send it in `If-Match` to update or delete only that version.',
    required: true,
    schema: { type: 'string', pattern: '^"v[0-9]+"$' },
    example: etagOf(1),
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: THROTTLED_RETRY_AFTER_SECONDS,
  },
  'WWW-Authenticate': {
    description: 'The Basic challenge.',
    required: true,
    schema: { type: 'string', const: WWW_AUTHENTICATE },
    example: WWW_AUTHENTICATE,
  },
  'Sync-Request': {
    description: '`accepted`: this request queued a full sync; `coalesced`: it joined the one already queued, nothing more was queued.',
    required: true,
    schema: { type: 'string', enum: ['accepted', 'coalesced'] },
    example: 'accepted',
  },
  Allow: {
    description: 'The methods the path supports.',
    required: true,
    schema: { type: 'string' },
    example: 'DELETE, GET, PATCH',
  },
} as const;

export type HeaderName = keyof typeof HEADERS;
export const headerRef = (name: HeaderName): JsonSchema => ({ $ref: `#/components/headers/${name}` });

interface ProblemDefault {
  readonly description: string;
  readonly headers?: readonly HeaderName[];
  /** The component the body follows, when not the plain Problem. */
  readonly schema?: string;
}

/** What each problem status means wherever an operation does not say more. */
export const PROBLEM_DEFAULTS: Readonly<Record<ProblemStatus, ProblemDefault>> = {
  400: { description: 'The request is not valid; `errors` names each invalid field.' },
  401: {
    description: 'Missing, malformed or wrong credentials, or a disabled or locked client (an unknown user and a wrong password get the same answer).',
    headers: ['WWW-Authenticate'],
  },
  404: { description: 'No such resource for this client.' },
  405: { description: 'The path exists, but not with this method.', headers: ['Allow'] },
  409: { description: 'The request conflicts with the current state.', schema: 'ConflictProblem' },
  412: { description: 'The `If-Match` precondition does not hold.' },
  413: { description: 'The request body exceeds 16 KiB.' },
  415: { description: 'The request body is not `application/json`.' },
  422: { description: 'The request is well-formed but cannot be carried out.' },
  429: {
    description:
      "Throttled by the stage's or the client's rate limit (`Retry-After: 1`), or the client's daily quota is used up (`Retry-After: 3600`; it renews at 00:00 UTC).",
    headers: ['Retry-After'],
  },
  500: { description: "A bug: the body is generic and the details are only in the service's logs." },
  503: { description: "DynamoDB is throttling or not answering after the SDK's retries.", headers: ['Retry-After'] },
  504: { description: "The request took longer than the gateway's 29 s." },
};

/** A problem response: the Problem schema with this status pinned, and its headers (the status's own unless given). */
export const problemResponse = (status: ProblemStatus, description?: string, example?: Problem, headers?: readonly HeaderName[]): JsonSchema => {
  const defaults = PROBLEM_DEFAULTS[status];
  const named = headers ?? defaults.headers ?? [];
  return {
    description: description ?? defaults.description,
    ...(named.length > 0 ? { headers: Object.fromEntries(named.map((name) => [name, headerRef(name)])) } : {}),
    content: {
      [PROBLEM_CONTENT_TYPE]: {
        schema: { allOf: [schemaRef(defaults.schema ?? 'Problem'), { type: 'object', properties: { status: { const: status } } }] },
        example: example ?? problemExamples[status](),
      },
    },
  };
};
