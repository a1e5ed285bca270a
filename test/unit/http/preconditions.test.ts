import { HttpProblem } from '../../../lambdas/http/errors.js';
import { etagOf, ifMatchOf, matchesVersion, requireMatch } from '../../../lambdas/http/preconditions.js';
import { apiEvent } from '../fixtures/api-events.js';

/** Headers as they reach the handler: names lower-cased by the header normalizer. */
const withIfMatch = (...values: string[]) => ({
  ...apiEvent(),
  headers: values.length ? { 'if-match': values.at(-1)! } : {},
  multiValueHeaders: values.length ? { 'if-match': values } : {},
});

describe('etagOf', () => {
  it('is a strong, quoted tag of the version', () => {
    expect(etagOf(3)).toBe('"v3"');
  });
});

describe('ifMatchOf', () => {
  it.each<[string[], ReturnType<typeof ifMatchOf>]>([
    [[], undefined],
    [['*'], { any: true }],
    [['"v1"'], { any: false, tags: ['"v1"'] }],
    [['"v1", "v2"'], { any: false, tags: ['"v1"', '"v2"'] }],
    [['"v1"', '"v2"'], { any: false, tags: ['"v1"', '"v2"'] }],
    [['W/"v1", "v2"'], { any: false, tags: ['"v2"'] }],
    [['W/"v1"'], { any: false, tags: [] }],
  ])('reads %p', (values, expected) => {
    expect(ifMatchOf(withIfMatch(...values))).toEqual(expected);
  });

  it('reads the single-value header when there is no multi-value one', () => {
    expect(ifMatchOf({ ...apiEvent(), headers: { 'if-match': '"v2"' }, multiValueHeaders: {} })).toEqual({ any: false, tags: ['"v2"'] });
  });

  it.each(['v1', '"v1', '"v1" "v2"', '', '**'])('refuses the malformed %p with a 400 naming If-Match', (value) => {
    const attempt = () => ifMatchOf(withIfMatch(value));
    expect(attempt).toThrow(HttpProblem);
    try {
      attempt();
    } catch (error) {
      expect((error as HttpProblem).problem).toMatchObject({ status: 400, errors: [{ field: 'If-Match' }] });
    }
  });
});

describe('matchesVersion / requireMatch', () => {
  it.each<[ReturnType<typeof ifMatchOf>, number, boolean]>([
    [undefined, 4, true],
    [{ any: true }, 4, true],
    [{ any: false, tags: ['"v3"', '"v4"'] }, 4, true],
    [{ any: false, tags: ['"v3"'] }, 4, false],
    [{ any: false, tags: [] }, 4, false],
  ])('%p against version %p: %p', (ifMatch, version, matches) => {
    expect(matchesVersion(ifMatch, version)).toBe(matches);
    if (matches) expect(() => requireMatch(ifMatch, version)).not.toThrow();
    else expect(() => requireMatch(ifMatch, version)).toThrow(expect.objectContaining({ status: 412 }));
  });
});
