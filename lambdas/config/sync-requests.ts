import { READ_PLANNER } from './read-planner.js';

/**
 * The limit of `POST /v1/connections/{connector}/sync` per connection (docs/connections.md):
 * the read planner's, unless the stage names another number per window. The local test API
 * names a large one, because its tests ask for a full sync at every step they check.
 */
export const SYNC_REQUESTS_PER_WINDOW_ENV = 'SYNC_REQUESTS_PER_WINDOW';

export const syncRequestLimit = (): { readonly perWindow: number; readonly windowMs: number } => {
  const named = Number(process.env[SYNC_REQUESTS_PER_WINDOW_ENV]);
  return {
    perWindow: Number.isInteger(named) && named > 0 ? named : READ_PLANNER.syncsPerWindow,
    windowMs: READ_PLANNER.syncWindowSeconds * 1000,
  };
};
