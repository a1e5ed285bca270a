import { jest } from '@jest/globals';
import { AGAIN, ContentionError, RETRY_ATTEMPTS, retrying } from '../../../../lambdas/data/table/retry.js';

beforeEach(() => {
  jest.useFakeTimers();
});

afterEach(() => {
  jest.useRealTimers();
});

describe('retrying', () => {
  it('returns the first answer that is not AGAIN, calling again after a wait', async () => {
    // Prepare
    const attempt = jest.fn(async (n: number) => (n < 3 ? AGAIN : `done at ${n}`));

    // Act
    const result = retrying('Writing', attempt);
    await jest.advanceTimersByTimeAsync(10_000);

    // Assess
    await expect(result).resolves.toBe('done at 3');
    expect(attempt.mock.calls.map(([n]) => n)).toEqual([0, 1, 2, 3]);
  });

  it('does not wait before the first attempt', async () => {
    const attempt = jest.fn(async () => 'first');
    await expect(retrying('Reading', attempt)).resolves.toBe('first');
    expect(attempt).toHaveBeenCalledTimes(1);
  });

  it('gives up with a ContentionError naming the work after RETRY_ATTEMPTS attempts', async () => {
    // Prepare
    const attempt = jest.fn(async () => AGAIN);

    // Act
    const result = retrying('Updating a repricer', attempt);
    const assessed = expect(result).rejects.toThrow(new ContentionError('Updating a repricer'));
    await jest.advanceTimersByTimeAsync(60_000);

    // Assess
    await assessed;
    expect(attempt).toHaveBeenCalledTimes(RETRY_ATTEMPTS);
    expect(new ContentionError('x').name).toBe('ContentionError');
  });

  it('waits at most 3.1 s in all (full jitter under 20 ms doubling, capped at 500 ms), well inside the function timeout', async () => {
    // Prepare
    const attempt = jest.fn(async () => AGAIN);
    let settled = false;

    // Act
    retrying('Writing', attempt).catch(() => {
      settled = true;
    });
    const bound = Array.from({ length: RETRY_ATTEMPTS - 1 }, (_, i) => Math.min(500, 20 * 2 ** (i + 1))).reduce((sum, ms) => sum + ms, 0);
    await jest.advanceTimersByTimeAsync(bound);

    // Assess
    expect(bound).toBe(3_100);
    expect(settled).toBe(true);
  });

  it('passes an error through at once, without retrying', async () => {
    const error = new Error('ValidationException');
    const attempt = jest.fn(async () => {
      throw error;
    });
    await expect(retrying('Writing', attempt)).rejects.toBe(error);
    expect(attempt).toHaveBeenCalledTimes(1);
  });
});
