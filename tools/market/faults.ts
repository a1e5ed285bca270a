/**
 * Faults on request: what a flaky marketplace does to a caller. Settable at startup and at
 * runtime (`POST /_control/faults`); each request draws from the fault stream of the PRNG, so
 * a seed replays the same faults for the same sequence of requests.
 */
import type { Prng } from './prng.js';

export interface FaultSettings {
  /** Probability that a request is answered 500 (seller API and storefront). */
  errorRate: number;
  /** Probability that a price write (`POST /offers/batch`) is answered 500, the batch not taken: write faults alone. */
  batchErrorRate: number;
  /** Added before every answer, in ms. */
  latencyMs: number;
  /** Probability that a request hangs for `hangMs` (past a caller's timeout) before a 504. */
  timeoutRate: number;
  hangMs: number;
  /** Page 2 of `GET /offers` comes back without `continuation_token` although more exist. */
  page2Bug: boolean;
  /** Probability that a storefront request starts a burst of 403s (bot protection). */
  storefrontBlockRate: number;
  /** Storefront requests answered 403 in one burst, the first included. */
  storefrontBlockLength: number;
  /** Probability that a webhook event is never sent. */
  webhookDropRate: number;
  /** Probability that a webhook event is sent twice (same delivery id). */
  webhookDuplicateRate: number;
}

export type FaultOutcome = { kind: 'none' } | { kind: 'error' } | { kind: 'hang'; ms: number };

/** What happens to one request, latency aside. A hang is checked first: it is the rarer, costlier fault. */
export const drawFault = (faults: FaultSettings, prng: Prng): FaultOutcome => {
  if (prng.chance(faults.timeoutRate)) return { kind: 'hang', ms: faults.hangMs };
  if (prng.chance(faults.errorRate)) return { kind: 'error' };
  return { kind: 'none' };
};

/**
 * Bot protection: once a request trips it, the next `storefrontBlockLength - 1` are refused too.
 * Turned off (a block rate of 0), it refuses nothing, a burst under way included.
 */
export class StorefrontBlocker {
  private remaining = 0;

  blocks(faults: FaultSettings, prng: Prng): boolean {
    if (faults.storefrontBlockRate === 0) this.remaining = 0;
    if (this.remaining > 0) {
      this.remaining -= 1;
      return true;
    }
    if (prng.chance(faults.storefrontBlockRate)) {
      this.remaining = faults.storefrontBlockLength - 1;
      return true;
    }
    return false;
  }
}
