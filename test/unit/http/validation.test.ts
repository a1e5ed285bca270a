import { z } from 'zod';
import { HttpProblem } from '../../../lambdas/http/errors.js';
import { parseOrThrow, toFieldErrors } from '../../../lambdas/http/validation.js';

const schema = z.strictObject({ name: z.string().min(2, 'Too short.'), nested: z.strictObject({ count: z.int('Whole numbers only.') }).optional() });

const problemOf = (input: unknown, detail?: string) => {
  try {
    parseOrThrow(schema, input, detail);
  } catch (error) {
    if (error instanceof HttpProblem) return error.problem;
    throw error;
  }
  throw new Error('expected a problem');
};

describe('parseOrThrow', () => {
  it('returns the parsed value', () => {
    expect(parseOrThrow(schema, { name: 'ok', nested: { count: 2 } })).toEqual({ name: 'ok', nested: { count: 2 } });
  });

  it('throws a 400 validation problem with one entry per field, nested paths dotted', () => {
    expect(problemOf({ name: 'x', nested: { count: 1.5 } })).toEqual({
      type: 'urn:repricer:problem:validation',
      title: 'Bad Request',
      status: 400,
      detail: 'The request is not valid.',
      errors: [
        { field: 'name', message: 'Too short.' },
        { field: 'nested.count', message: 'Whole numbers only.' },
      ],
    });
  });

  it('names unknown fields', () => {
    expect(problemOf({ name: 'ok', colour: 'red', size: 2 }).errors).toEqual([{ field: 'colour, size', message: 'Unknown field; it is not accepted here.' }]);
  });

  it('names the whole body when it is not an object', () => {
    expect(problemOf('text').errors).toEqual([{ field: '(body)', message: expect.any(String) }]);
  });

  it('uses the given detail', () => {
    expect(problemOf({}, 'The query parameters are not valid.').detail).toBe('The query parameters are not valid.');
  });
});

describe('toFieldErrors', () => {
  it('maps an empty issue list to no errors', () => {
    expect(toFieldErrors([])).toEqual([]);
  });
});
