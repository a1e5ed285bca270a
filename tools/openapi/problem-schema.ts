import * as z from 'zod';
import { PROBLEM_TYPES, type FieldError, type Problem } from '../../lambdas/http/problem.js';

/**
 * The problem+json body of lambdas/http/problem.ts as a zod schema, for the document
 * only: the Lambdas build problems with `problem()` and never parse one. The type checks at
 * the bottom keep the two from drifting apart.
 */
export const fieldErrorSchema = z.strictObject({
  field: z.string(),
  message: z.string(),
});

const problemTypes = Object.values(PROBLEM_TYPES) as [string, ...string[]];

/** Extension members (such as a 409's `existing_id`) are allowed, as RFC 9457 says. */
export const problemSchema = z.looseObject({
  type: z.enum(problemTypes),
  title: z.string(),
  status: z.int().min(400).max(599),
  detail: z.string(),
  errors: z.array(fieldErrorSchema).optional(),
});

/** A 409 for a taken (product, connector) slot names the repricer already in it. */
export const conflictProblemSchema = problemSchema.extend({
  existing_id: z.int().positive().optional(),
});

type Assignable<From, To> = From extends To ? true : false;
const schemaIsProblem: Assignable<z.output<typeof problemSchema>, Problem> = true;
const fieldErrorIsSchema: Assignable<FieldError, z.output<typeof fieldErrorSchema>> = true;
void [schemaIsProblem, fieldErrorIsSchema];
