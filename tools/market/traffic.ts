/**
 * What callers did to the simulator, for benchmarks and tests to judge the service's manners:
 * per surface (the seller API, counted per presented key; the storefront, per caller address)
 * the requests refused above the rate limit and those that came back inside a Retry-After
 * window the simulator had given that same caller; the storefront's bot-protection 403s; the
 * seller API's requests by route; and, per product line, the latest times its page was read.
 * Callers are counted, never named: a key is a secret and never leaves the simulator.
 */
export type Surface = 'seller' | 'storefront';

export interface SurfacePoliteness {
  /** Every request that reached the surface's gate. */
  requests: number;
  /** Answered 429 (above the rate limit). */
  refused: number;
  /** Answered 403 by bot protection (storefront only). */
  blocked: number;
  /** Arrived after a refusal with Retry-After and before that many seconds had passed, from the same caller. */
  inside_retry_after: number;
}

export interface TrafficSummary {
  politeness: Record<Surface, SurfacePoliteness>;
  /** Seller API requests by route, e.g. `GET /offers`, `PATCH /offers/{id}`, `POST /offers/batch`. */
  requests: Record<string, number>;
  /** Storefront pages answered 200 with the product (an empty page is not a read), all products together. */
  storefront_reads: number;
}

export interface ReadLog {
  /** At most this many read times are kept per product line (the latest). */
  limit_per_product: number;
  /** Product line id -> the times (ms since the epoch) its page was answered 200 with the product, oldest first. */
  products: Record<string, number[]>;
}

export const MAX_READS_PER_PRODUCT = 1_000;
/** Callers with an open Retry-After window kept at once; beyond it the oldest-ending window is forgotten. */
const MAX_WINDOWS = 10_000;

const emptySurface = (): SurfacePoliteness => ({ requests: 0, refused: 0, blocked: 0, inside_retry_after: 0 });

/** A seller API path (base path removed) as a route name, ids replaced, so counts group by route. */
export const sellerRouteName = (method: string, path: string): string => {
  const route = path
    .replace(/^\/offers\/batch\/\d+$/, '/offers/batch/{batch_id}')
    .replace(/^\/offers\/by_(sku|barcode)\/[^/]+$/, '/offers/by_$1/{$1}')
    .replace(/^\/offers\/\d+$/, '/offers/{offer_id}');
  const known = ['/offers', '/offers/batch', '/offers/batch/{batch_id}', '/offers/by_sku/{sku}', '/offers/by_barcode/{barcode}', '/offers/{offer_id}'];
  return `${method} ${known.includes(route) ? route : '(other)'}`;
};

export class TrafficLog {
  private readonly surfaces: Record<Surface, SurfacePoliteness> = { seller: emptySurface(), storefront: emptySurface() };
  /** `surface|caller` -> the end (ms) of the Retry-After window last given to that caller, and when it began. */
  private readonly windows = new Map<string, { from: number; until: number }>();
  private readonly byRoute = new Map<string, number>();
  private readonly reads = new Map<number, number[]>();
  private readCount = 0;

  /**
   * A request reached the surface at `now`: counted, and counted as impolite when it falls
   * inside a window given to the same caller earlier (strictly after the refusal, before its end).
   */
  arrived(surface: Surface, caller: string, now: number, route?: string): void {
    const counts = this.surfaces[surface];
    counts.requests += 1;
    if (route !== undefined) this.byRoute.set(route, (this.byRoute.get(route) ?? 0) + 1);
    const window = this.windows.get(`${surface}|${caller}`);
    if (window !== undefined && now > window.from && now < window.until) counts.inside_retry_after += 1;
  }

  /** The request was answered 429 (or 403 by bot protection); a Retry-After opens a window for its caller. */
  refused(surface: Surface, caller: string, now: number, reason: 'rate-limit' | 'blocked', retryAfterSeconds: number | undefined): void {
    const counts = this.surfaces[surface];
    if (reason === 'rate-limit') counts.refused += 1;
    else counts.blocked += 1;
    if (retryAfterSeconds === undefined || retryAfterSeconds <= 0) return;
    const key = `${surface}|${caller}`;
    const until = now + retryAfterSeconds * 1000;
    const previous = this.windows.get(key);
    // A later refusal inside a window never shortens it: the caller was told the later end.
    this.windows.delete(key);
    this.windows.set(key, { from: previous !== undefined && previous.until > now ? previous.from : now, until: Math.max(until, previous?.until ?? 0) });
    if (this.windows.size > MAX_WINDOWS) this.windows.delete(this.windows.keys().next().value as string);
  }

  /** A storefront page was answered 200 at `now`. */
  read(plid: number, now: number): void {
    this.readCount += 1;
    let times = this.reads.get(plid);
    if (times === undefined) {
      times = [];
      this.reads.set(plid, times);
    }
    times.push(now);
    if (times.length > MAX_READS_PER_PRODUCT) times.splice(0, times.length - MAX_READS_PER_PRODUCT);
  }

  summary(): TrafficSummary {
    return {
      politeness: { seller: { ...this.surfaces.seller }, storefront: { ...this.surfaces.storefront } },
      requests: Object.fromEntries([...this.byRoute].sort(([a], [b]) => a.localeCompare(b))),
      storefront_reads: this.readCount,
    };
  }

  readLog(): ReadLog {
    return {
      limit_per_product: MAX_READS_PER_PRODUCT,
      products: Object.fromEntries([...this.reads].sort(([a], [b]) => a - b).map(([plid, times]) => [String(plid), [...times]])),
    };
  }
}
