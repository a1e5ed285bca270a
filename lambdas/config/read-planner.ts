import { MARKET_SYNC, STOREFRONT_RATE_ENV } from './market-sync.js';

/**
 * The read planner's settings (lambdas/domain/read-planner/, docs/market-loop.md): how a fixed
 * budget of storefront reads is spent across every tenant of a stage. Plain numbers, no CDK.
 * The market loop's planner (lambdas/read-planning/) and its simulation
 * (`npm run bench -- --planner-sim`) run on these.
 */
export interface ReadPlannerSettings {
  readonly readsPerSecond: number;
  readonly burstReads: number;
  readonly floorSeconds: number;
  readonly ceilingSeconds: number;
  readonly repricedCeilingSeconds: number;
  readonly watchedLooksPerMove: number;
  readonly repricedLooksPerMove: number;
  readonly contestedLooksPerMove: number;
  readonly moveHalfLifeSeconds: number;
  readonly priorMoveSeconds: number;
  readonly contestedWithin: number;
  readonly queueSeconds: number;
  readonly maxQueueSeconds: number;
  readonly planWeights: Readonly<Record<string, number>>;
  readonly syncsPerWindow: number;
  readonly syncWindowSeconds: number;
  readonly leaseSeconds: number;
  readonly syncForwardShare: number;
}

export const READ_PLANNER: ReadPlannerSettings = {
  /** Storefront reads per second per host, every reader together (a stage setting). */
  readsPerSecond: MARKET_SYNC.storefrontRequestsPerSecond,
  /** Reads the token bucket may hold: 1 keeps any second of reads within the rate. */
  burstReads: 1,
  /** Never two looks at one page closer than this, whatever asks for them. */
  floorSeconds: 30,
  /** A page nobody reprices is looked at at least this often. */
  ceilingSeconds: 6 * 3600,
  /** A page someone reprices is looked at at least this often (quiet for days: hours, not minutes). */
  repricedCeilingSeconds: 3 * 3600,
  /**
   * Looks per expected move of the market: the next look is the expected time between moves
   * divided by this, between the floor and the ceiling. Repriced pages are looked at more often,
   * contested ones (an own offer near the winning price) most.
   */
  watchedLooksPerMove: 0.5,
  repricedLooksPerMove: 4,
  contestedLooksPerMove: 8,
  /**
   * The moving estimate of how often a page's market moves: moves and observed time, each
   * halved every `moveHalfLifeSeconds`, plus a prior of one move per `priorMoveSeconds` (what a
   * page never read is assumed to do), weighing a quarter of a move.
   */
  moveHalfLifeSeconds: 2 * 3600,
  priorMoveSeconds: 3600,
  /** An own offer within this share of the winning price makes the buy box contested. */
  contestedWithin: 0.02,
  /**
   * The queue of admitted reads is filled to this many seconds of budget, and never beyond
   * `maxQueueSeconds`: the simulation plans every second; the live loop plans once a minute (the
   * schedule's finest period), so it admits `maxQueueSeconds` of budget a run, and the reader
   * drops a read that waited two such spans (its lease brings the page back to the planner).
   */
  queueSeconds: 10,
  maxQueueSeconds: 60,
  /** Deficit round robin across tenants: each tenant's weight by plan (reads per round). */
  planWeights: { standard: 1 },
  /**
   * `POST .../sync` per connection: at most `syncsPerWindow` accepted within `syncWindowSeconds`;
   * a request while an accepted sync has not run yet joins it; beyond that, 429 with Retry-After.
   */
  syncsPerWindow: 4,
  syncWindowSeconds: 3600,
  /**
   * A look admitted to the readers' queue is leased this long: no other plan admits it again
   * meanwhile, and a read lost on the way (or dropped for its age) is planned again after it.
   */
  leaseSeconds: 3 * 60,
  /**
   * The looks a requested sync brings forward are spaced to use at most this share of the
   * budget: a tenant's catalogue of any size, synced on request, leaves the rest to the others.
   */
  syncForwardShare: 0.5,
};

/** The planner's settings on a stage: the stage's storefront rate (the stack's env, MARKET_SYNC's by default) is its budget. */
export const stagePlannerSettings = (env: Readonly<Record<string, string | undefined>>): ReadPlannerSettings => {
  const rate = Number(env[STOREFRONT_RATE_ENV]);
  return { ...READ_PLANNER, readsPerSecond: Number.isFinite(rate) && rate > 0 ? rate : MARKET_SYNC.storefrontRequestsPerSecond };
};
