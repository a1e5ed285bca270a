import { idParameter, pathParameter } from '../../../lambdas/http/path.js';
import { apiEvent } from '../fixtures/api-events.js';

const withParams = (pathParameters: Record<string, string> | null) => ({ ...apiEvent(), pathParameters });

describe('pathParameter', () => {
  it.each([
    ['SKU-1', 'SKU-1'],
    ['A%20B%2F1', 'A B/1'],
    ['%E2%82%AC', '€'],
  ])('decodes %s to %s', (raw, decoded) => {
    expect(pathParameter(withParams({ code: raw }), 'code')).toBe(decoded);
  });

  it('is undefined when it does not decode or is absent', () => {
    expect(pathParameter(withParams({ code: '%E0%A4%A' }), 'code')).toBeUndefined();
    expect(pathParameter(withParams(null), 'code')).toBeUndefined();
  });
});

describe('idParameter', () => {
  it.each([
    ['1', 1],
    ['42', 42],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
  ])('reads %s as %p', (raw, id) => {
    expect(idParameter(withParams({ id: raw }))).toBe(id);
  });

  it.each(['0', '007', '-1', '+1', '1.0', '1e3', ' 1', '0x1', 'abc', '', '9007199254740993', '99999999999999999'])('names no resource with %p', (raw) => {
    expect(idParameter(withParams({ id: raw }))).toBeUndefined();
  });
});
