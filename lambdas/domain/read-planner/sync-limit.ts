/**
 * `POST /v1/connections/{connector}/sync`, per connection: a request while an accepted sync has
 * not run yet joins it (coalesced: one sync, however many asked); at most `perWindow` accepted
 * in any `windowMs`; beyond that a 429 whose Retry-After says when the oldest leaves the window.
 * Pure: the connection's recent accepted times and whether one is pending, in and out.
 */
export interface SyncRequests {
  /** When the syncs accepted within the window were accepted, oldest first. */
  readonly acceptedAt: readonly number[];
  /** An accepted sync that has not run yet. */
  readonly pending: boolean;
}

export interface SyncLimit {
  readonly perWindow: number;
  readonly windowMs: number;
}

export type SyncDecision =
  { readonly decision: 'accept' } | { readonly decision: 'coalesce' } | { readonly decision: 'reject'; readonly retryAfterSeconds: number };

export const noSyncRequests: SyncRequests = { acceptedAt: [], pending: false };

export const decideSync = (state: SyncRequests, now: number, limit: SyncLimit): { readonly decision: SyncDecision; readonly state: SyncRequests } => {
  const recent = state.acceptedAt.filter((at) => at > now - limit.windowMs && at <= now);
  if (state.pending) return { decision: { decision: 'coalesce' }, state: { ...state, acceptedAt: recent } };
  if (recent.length < limit.perWindow) return { decision: { decision: 'accept' }, state: { acceptedAt: [...recent, now], pending: true } };
  const retryAfterSeconds = Math.max(1, Math.ceil((recent[0]! + limit.windowMs - now) / 1000));
  return { decision: { decision: 'reject', retryAfterSeconds }, state: { ...state, acceptedAt: recent } };
};

/** The accepted sync has run (its looks were brought forward): the next request may start another. */
export const syncRan = (state: SyncRequests): SyncRequests => ({ ...state, pending: false });
