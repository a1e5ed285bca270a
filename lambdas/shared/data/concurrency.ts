/**
 * Runs `work` over `items` with at most `limit` calls in flight: enough to overlap round trips,
 * few enough that requests do not queue behind the SDK's sockets (a queued request counts
 * against its connection timeout).
 */
export const DEFAULT_PARALLEL_CALLS = 16;

export const mapLimit = async <T, U>(items: readonly T[], work: (item: T) => Promise<U>, limit = DEFAULT_PARALLEL_CALLS): Promise<U[]> => {
  const results: U[] = new Array<U>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
};
