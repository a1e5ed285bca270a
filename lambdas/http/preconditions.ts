import type { APIGatewayProxyEvent } from 'aws-lambda';
import { HttpProblem, validationFailed } from './errors.js';
import { problem } from './problem.js';

/**
 * Optimistic concurrency over HTTP (RFC 9110): a resource's strong ETag names its stored
 * version, and `If-Match` makes a write conditional on it.
 */
export const etagOf = (version: number): string => `"v${version}"`;

export type IfMatch = { readonly any: true } | { readonly any: false; readonly tags: readonly string[] };

const ENTITY_TAG_LIST = /^\s*(?:W\/)?"[\x21\x23-\x7e]*"\s*(?:,\s*(?:W\/)?"[\x21\x23-\x7e]*"\s*)*$/;

/** The `If-Match` header: `*`, a list of entity tags, or undefined when absent (unconditional). */
export const ifMatchOf = (event: APIGatewayProxyEvent): IfMatch | undefined => {
  const values = event.multiValueHeaders?.['if-match'] ?? (event.headers?.['if-match'] === undefined ? [] : [event.headers['if-match']]);
  if (values.length === 0) return undefined;
  const text = values.join(', ');
  if (text.trim() === '*') return { any: true };
  if (!ENTITY_TAG_LIST.test(text)) {
    throw validationFailed([{ field: 'If-Match', message: 'Must be * or a list of entity tags such as "v3".' }], 'The request headers are not valid.');
  }
  // Strong comparison: a weak tag never matches.
  const tags = [...text.matchAll(/(W\/)?("[^"]*")/g)].flatMap((m) => (m[1] ? [] : [m[2]!]));
  return { any: false, tags };
};

/** True when there is no precondition or it names the current version. */
export const matchesVersion = (ifMatch: IfMatch | undefined, version: number): boolean =>
  ifMatch === undefined || ifMatch.any || ifMatch.tags.includes(etagOf(version));

export const preconditionFailed = () => new HttpProblem(problem(412, 'The resource has changed since the version If-Match names; read it again and retry.'));

/** Throws 412 unless the precondition holds for `version`. */
export const requireMatch = (ifMatch: IfMatch | undefined, version: number): void => {
  if (!matchesVersion(ifMatch, version)) throw preconditionFailed();
};
