import { HttpProblem, conflict, notFound, unprocessable, validationFailed } from '../../../lambdas/http/errors.js';
import { problem } from '../../../lambdas/http/problem.js';

describe('errors', () => {
  it.each<[string, HttpProblem, number, string]>([
    ['validationFailed', validationFailed([{ field: 'x', message: 'y' }]), 400, 'urn:repricer:problem:validation'],
    ['notFound', notFound('No product.'), 404, 'about:blank'],
    ['conflict', conflict('Taken.', { existing_id: 1 }), 409, 'urn:repricer:problem:conflict'],
    ['unprocessable', unprocessable('Cannot price.'), 422, 'urn:repricer:problem:unprocessable'],
  ])('%s carries its status and type', (_case, error, status, type) => {
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('HttpProblem');
    expect(error.status).toBe(status);
    expect(error.problem.type).toBe(type);
    expect(error.message).toBe(error.problem.detail);
  });

  it('unprocessable lists field errors only when given', () => {
    expect(unprocessable('x').problem).not.toHaveProperty('errors');
    expect(unprocessable('x', [{ field: 'a', message: 'b' }]).problem.errors).toEqual([{ field: 'a', message: 'b' }]);
  });
});

describe('HttpProblem', () => {
  it('carries extra headers for the response', () => {
    const error = new HttpProblem(problem(503, 'Later.'), { 'Retry-After': '5' });
    expect(error.headers).toEqual({ 'Retry-After': '5' });
    expect(error.status).toBe(503);
  });
});
