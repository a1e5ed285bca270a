import { problem, PROBLEM_TYPES, type FieldError, type Problem } from './problem.js';

/**
 * The one error type business code throws. The error middleware turns it into a problem+json
 * response; anything else becomes a generic 500 (or a 503 when DynamoDB throttles).
 */
export class HttpProblem extends Error {
  readonly problem: Problem;
  readonly headers: Readonly<Record<string, string>>;

  constructor(body: Problem, headers: Record<string, string> = {}) {
    super(body.detail);
    this.name = 'HttpProblem';
    this.problem = body;
    this.headers = headers;
  }

  get status(): number {
    return this.problem.status;
  }
}

export const validationFailed = (errors: readonly FieldError[], detail = 'The request is not valid.') =>
  new HttpProblem(problem(400, detail, { type: PROBLEM_TYPES.validation, errors }));

export const notFound = (detail: string) => new HttpProblem(problem(404, detail));

export const conflict = (detail: string, extensions: Record<string, unknown> = {}) =>
  new HttpProblem(problem(409, detail, { type: PROBLEM_TYPES.conflict, ...extensions }));

export const unprocessable = (detail: string, errors?: readonly FieldError[]) =>
  new HttpProblem(problem(422, detail, { type: PROBLEM_TYPES.unprocessable, ...(errors ? { errors } : {}) }));
