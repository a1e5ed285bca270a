import type { APIGatewayProxyEvent } from 'aws-lambda';
import { bodyLimit, MAX_BODY_BYTES, MAX_JSON_DEPTH, nestsDeeperThan, TOO_DEEP } from '../../../lambdas/http/body-limit.js';
import { HttpProblem } from '../../../lambdas/http/errors.js';

const check =
  (body: string | null, isBase64Encoded = false, maxBytes?: number) =>
  () =>
    bodyLimit(maxBytes).before!({ event: { body, isBase64Encoded } as APIGatewayProxyEvent } as never);

const expect413 = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(HttpProblem);
    expect((error as HttpProblem).problem).toEqual({
      type: 'about:blank',
      title: 'Content Too Large',
      status: 413,
      detail: 'The request body exceeds 16 KiB.',
    });
    return;
  }
  throw new Error('expected a 413');
};

describe('bodyLimit', () => {
  it('allows 16 KiB', () => {
    expect(MAX_BODY_BYTES).toBe(16_384);
    expect(check('x'.repeat(16_384))).not.toThrow();
  });

  it('refuses one byte more', () => {
    expect413(check('x'.repeat(16_385)));
  });

  it('counts UTF-8 bytes, not characters', () => {
    // 8,193 two-byte characters = 16,386 bytes
    expect413(check('é'.repeat(8_193)));
    expect(check('é'.repeat(8_192))).not.toThrow();
  });

  it('counts the decoded size of a base64 body', () => {
    const encoded = Buffer.alloc(16_384, 1).toString('base64'); // 21,848 characters
    expect(check(encoded, true)).not.toThrow();
    expect413(check(Buffer.alloc(16_385, 1).toString('base64'), true));
  });

  it('lets a request without a body through', () => {
    expect(check(null)).not.toThrow();
  });

  it('takes another limit', () => {
    expect413(check('xyz', false, 2));
  });
});

describe('JSON nesting limit', () => {
  const json =
    (body: string, contentType = 'application/json') =>
    () =>
      bodyLimit().before!({ event: { body, isBase64Encoded: false, headers: { 'content-type': contentType } } as unknown as APIGatewayProxyEvent } as never);

  it(`allows ${MAX_JSON_DEPTH} levels and refuses one more, before parsing`, () => {
    expect(json(`${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`)).not.toThrow();
    expect(json(`${'{"a":'.repeat(MAX_JSON_DEPTH + 1)}1${'}'.repeat(MAX_JSON_DEPTH + 1)}`)).toThrow(expect.objectContaining({ problem: TOO_DEEP }));
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(`{"a":"${'['.repeat(100)}\\"${'{'.repeat(100)}"}`, 2)).toBe(false);
    expect(nestsDeeperThan('[[["x"]]]', 2)).toBe(true);
  });

  it('leaves a body that is not JSON to the parser (415)', () => {
    expect(json('['.repeat(1_000), 'text/plain')).not.toThrow();
  });
});
