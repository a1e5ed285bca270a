/**
 * Runs `work` over `items` with at most `limit` calls in flight: enough to overlap round trips,
 * few enough that requests do not queue behind the SDK's sockets (a queued request counts
 * against its connection timeout).
 *
 * After the first failure no further item is started: the caller gets that failure, and the
 * calls already in flight finish on their own (each is a write the caller's retry repeats
 * harmlessly), rather than the rest of the list being worked through for a result nobody reads.
 */
export const DEFAULT_PARALLEL_CALLS = 16;

export const mapLimit = async <T, U>(items: readonly T[], work: (item: T) => Promise<U>, limit = DEFAULT_PARALLEL_CALLS): Promise<U[]> => {
  const results: U[] = new Array<U>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await work(items[index]!);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
};
