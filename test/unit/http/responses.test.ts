import { PROBLEM_CONTENT_TYPE, STANDARD_PROBLEMS } from '../../../lambdas/http/problem.js';
import { json, problemResponse, SECURITY_HEADERS } from '../../../lambdas/http/responses.js';

describe('responses', () => {
  it('json sends the body as JSON with the security headers', () => {
    expect(json(201, { id: 1 }, { Location: '/v1/repricers/1' })).toEqual({
      statusCode: 201,
      headers: { ...SECURITY_HEADERS, 'Content-Type': 'application/json; charset=utf-8', Location: '/v1/repricers/1' },
      body: '{"id":1}',
    });
  });

  it('problemResponse uses the problem status and media type', () => {
    const response = problemResponse(STANDARD_PROBLEMS.tooLarge, { 'Retry-After': '1' });
    expect(response.statusCode).toBe(413);
    expect(response.headers).toEqual({ ...SECURITY_HEADERS, 'Content-Type': PROBLEM_CONTENT_TYPE, 'Retry-After': '1' });
    expect(JSON.parse(response.body)).toEqual(STANDARD_PROBLEMS.tooLarge);
    expect(SECURITY_HEADERS).toMatchObject({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  });
});
