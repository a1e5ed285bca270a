import type * as z from 'zod';
import { validationFailed } from './errors.js';
import type { FieldError } from './problem.js';

/**
 * zod issues as the `errors` member of a 400 problem: one entry per offending field. Field
 * names come from the request (an unknown key may be any text), so they are made well-formed
 * before they reach the response and the logs.
 */
export const toFieldErrors = (issues: readonly z.core.$ZodIssue[]): FieldError[] =>
  issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return { field: issue.keys.join(', ').toWellFormed(), message: 'Unknown field; it is not accepted here.' };
    }
    return { field: (issue.path.map(String).join('.') || '(body)').toWellFormed(), message: issue.message };
  });

/** Parses `input` with `schema`, or throws a 400 problem listing every invalid field. */
export const parseOrThrow = <S extends z.ZodType>(schema: S, input: unknown, detail?: string): z.output<S> => {
  const result = schema.safeParse(input);
  if (!result.success) throw validationFailed(toFieldErrors(result.error.issues), detail);
  return result.data;
};
