/**
 * The read budget as a token bucket, pure: the state in, the state out, so it can live in one
 * stored item that every reader updates conditionally. Tokens accrue at the rate up to the
 * capacity; a read takes one. A clock that steps back adds nothing and takes nothing back.
 */
export interface TokenBucket {
  readonly tokens: number;
  readonly at: number;
}

export interface BucketSettings {
  readonly ratePerSecond: number;
  readonly capacity: number;
}

export const fullBucket = (at: number, settings: BucketSettings): TokenBucket => ({ tokens: settings.capacity, at });

export const refilled = (bucket: TokenBucket, now: number, settings: BucketSettings): TokenBucket => {
  if (now <= bucket.at) return bucket;
  return { tokens: Math.min(settings.capacity, bucket.tokens + ((now - bucket.at) * settings.ratePerSecond) / 1000), at: now };
};

/** Takes up to `wanted` whole tokens at `now`: how many were granted, and the bucket after. */
export const take = (
  bucket: TokenBucket,
  now: number,
  wanted: number,
  settings: BucketSettings,
): { readonly bucket: TokenBucket; readonly granted: number } => {
  const current = refilled(bucket, now, settings);
  const granted = Math.max(0, Math.min(Math.floor(wanted), Math.floor(current.tokens + 1e-9)));
  return { bucket: { ...current, tokens: current.tokens - granted }, granted };
};

/** When the next whole token is there (now, when one is). */
export const nextTokenAt = (bucket: TokenBucket, now: number, settings: BucketSettings): number => {
  const current = refilled(bucket, now, settings);
  if (current.tokens + 1e-9 >= 1) return current.at;
  return current.at + ((1 - current.tokens) * 1000) / settings.ratePerSecond;
};
