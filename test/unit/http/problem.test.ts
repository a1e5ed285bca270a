import { problem, STANDARD_PROBLEMS, titleFor, WWW_AUTHENTICATE } from '../../../lambdas/http/problem.js';

describe('problem', () => {
  it('builds an RFC 9457 body with about:blank and the HTTP title by default', () => {
    expect(problem(404, 'Nothing here.')).toEqual({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'Nothing here.' });
  });

  it('adds a type, field errors and extension members', () => {
    expect(problem(409, 'Taken.', { type: 'urn:x', errors: [{ field: 'a', message: 'b' }], existing_id: 3 })).toEqual({
      type: 'urn:x',
      title: 'Conflict',
      status: 409,
      detail: 'Taken.',
      errors: [{ field: 'a', message: 'b' }],
      existing_id: 3,
    });
  });

  it.each([
    [400, 'Bad Request'],
    [413, 'Content Too Large'],
    [415, 'Unsupported Media Type'],
    [422, 'Unprocessable Content'],
    [503, 'Service Unavailable'],
    [418, 'Error'],
  ])('titleFor(%p) = %p', (status, title) => {
    expect(titleFor(status)).toBe(title);
  });

  it('has a standard problem for each fixed status', () => {
    expect(Object.fromEntries(Object.entries(STANDARD_PROBLEMS).map(([name, p]) => [name, p.status]))).toEqual({
      unauthorized: 401,
      forbidden: 403,
      notFound: 404,
      methodNotAllowed: 405,
      tooLarge: 413,
      unsupportedMediaType: 415,
      throttled: 429,
      quotaExceeded: 429,
      internal: 500,
      unavailable: 503,
      timeout: 504,
    });
    expect(WWW_AUTHENTICATE).toBe('Basic realm="repricer", charset="UTF-8"');
  });
});
