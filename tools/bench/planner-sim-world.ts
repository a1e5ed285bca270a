/**
 * The marketplace the read planner's simulation runs in (docs/performance.md), built from one
 * seed: tenants with long-tailed catalogues, products sold by 1 to 30 of them, a share of the
 * tenant-offers repriced, and a market where a few per cent of the products move every few
 * minutes (a set that drifts) while the rest move rarely. Typed arrays throughout: 500,000
 * tenant-offers in a few megabytes.
 */
import { createPrng, type Prng } from '../market/prng.js';

export interface WorldShape {
  readonly tenants: number;
  readonly tenantOffers: number;
  readonly products: number;
  readonly minOffers: number;
  readonly maxOffers: number;
  readonly maxSellers: number;
  readonly repricedShare: number;
  /** Share of the products whose market moves every few minutes, and their mean time between moves. */
  readonly hotShare: number;
  readonly hotMoveSeconds: number;
  /** The rest's mean time between moves. */
  readonly coldMoveSeconds: number;
  /** Every this many seconds a third of the fast movers calm down and as many others start. */
  readonly driftSeconds: number;
  /** Share of the products whose buy box is contested (an own offer near the winning price). */
  readonly contestedShare: number;
  /** Marketplace events (own offers named by a webhook), per second over every tenant-offer. */
  readonly eventsPerSecond: number;
  readonly spanSeconds: number;
  /** The large tenant of the noisy scenario: its offers, half on existing products, half on its own. */
  readonly noisyOffers: number;
}

export interface World {
  readonly shape: WorldShape;
  /** Tenants, the noisy one (when present) last. */
  readonly tenants: number;
  readonly products: number;
  /** Per tenant-offer (the noisy tenant's last): its tenant, product, and whether it is repriced. */
  readonly tenantOf: Int32Array;
  readonly productOf: Int32Array;
  readonly repriced: Uint8Array;
  /** Tenant-offers of the base tenants (the first ones); the rest are the noisy tenant's. */
  readonly baseOffers: number;
  /** Per product, its tenant-offers: `offersOf.subarray(offerStart[p], offerStart[p + 1])`. */
  readonly offerStart: Int32Array;
  readonly offersOf: Int32Array;
  /** Per tenant, its tenant-offers (same layout). */
  readonly tenantStart: Int32Array;
  readonly tenantOffersOf: Int32Array;
  /** Per product, the times (ms) its market moved, ascending. */
  readonly moves: readonly Float64Array[];
  readonly contested: Uint8Array;
  /** Marketplace events: time (ms) and tenant-offer, by time. */
  readonly eventAt: Float64Array;
  readonly eventOffer: Int32Array;
  /** Tenants that disconnect halfway (their looks lose their use). */
  readonly leaving: readonly number[];
  readonly noisyTenant: number | null;
}

/** Long-tailed values between `min` and `max` at the quantiles of `count` draws, scaled to sum to about `total`. */
const longTail = (count: number, min: number, max: number, total: number): number[] => {
  const at = (gamma: number) =>
    Array.from({ length: count }, (_, i) => Math.round(min * (max / min) ** (((i + 0.5) / count) ** gamma))).reduce((a, b) => a + b, 0);
  let low = 0.01;
  let high = 100;
  for (let i = 0; i < 60; i++) {
    const mid = Math.sqrt(low * high);
    if (at(mid) > total) low = mid;
    else high = mid;
  }
  const values = Array.from({ length: count }, (_, i) => Math.round(min * (max / min) ** (((i + 0.5) / count) ** high)));
  // The rounding's remainder spread over the middle of the tail, within the bounds.
  let rest = total - values.reduce((a, b) => a + b, 0);
  for (let i = Math.floor(count / 2); rest !== 0; i = (i + 1) % count) {
    const step = rest > 0 ? 1 : -1;
    if (values[i]! + step >= min && values[i]! + step <= max) {
      values[i] = values[i]! + step;
      rest -= step;
    }
  }
  return values;
};

const shuffle = <T>(items: T[] | Int32Array, prng: Prng): void => {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(prng.next() * (i + 1));
    const swap = items[i]!;
    items[i] = items[j]!;
    items[j] = swap;
  }
};

/** Sellers per product, 1 to `max`, summing to `total`: a power law whose exponent gives the mean. */
const sellerCounts = (products: number, total: number, max: number, prng: Prng): Int32Array => {
  const counts = new Int32Array(longTail(products, 1, max, total));
  shuffle(counts, prng);
  return counts;
};

/** Deals the tenants' slots to products, no tenant twice on one product. */
const assign = (sizes: readonly number[], counts: Int32Array, prng: Prng): Int32Array => {
  const slots = new Int32Array(sizes.reduce((a, b) => a + b, 0));
  let k = 0;
  sizes.forEach((size, tenant) => {
    for (let i = 0; i < size; i++) slots[k++] = tenant;
  });
  shuffle(slots, prng);
  const start = new Int32Array(counts.length + 1);
  for (let p = 0; p < counts.length; p++) start[p + 1] = start[p]! + counts[p]!;
  const productAt = new Int32Array(slots.length);
  for (let p = 0; p < counts.length; p++) productAt.fill(p, start[p]!, start[p + 1]!);
  const holds = (p: number, tenant: number, except: number) => {
    for (let i = start[p]!; i < start[p + 1]!; i++) if (i !== except && slots[i] === tenant) return true;
    return false;
  };
  for (let i = 0; i < slots.length; i++) {
    const p = productAt[i]!;
    if (!holds(p, slots[i]!, i)) continue;
    for (let tries = 0; tries < 1_000; tries++) {
      const j = Math.floor(prng.next() * slots.length);
      const q = productAt[j]!;
      if (q === p || holds(q, slots[i]!, j) || holds(p, slots[j]!, i)) continue;
      const swap = slots[i]!;
      slots[i] = slots[j]!;
      slots[j] = swap;
      break;
    }
  }
  return slots;
};

/** Move times of one product over the span, hot or cold per drift period, as a Poisson process. */
const movesOf = (hotIn: readonly boolean[], shape: WorldShape, prng: Prng): Float64Array => {
  const times: number[] = [];
  const periodMs = shape.driftSeconds * 1000;
  hotIn.forEach((hot, period) => {
    const meanMs = (hot ? shape.hotMoveSeconds : shape.coldMoveSeconds) * 1000;
    const end = Math.min((period + 1) * periodMs, shape.spanSeconds * 1000);
    for (let t = period * periodMs - meanMs * Math.log(1 - prng.next()); t < end; t -= meanMs * Math.log(1 - prng.next())) times.push(t);
  });
  return Float64Array.from(times);
};

const byKey = (count: number, keys: Int32Array): { start: Int32Array; items: Int32Array } => {
  const start = new Int32Array(count + 1);
  for (const key of keys) start[key + 1]!++;
  for (let i = 0; i < count; i++) start[i + 1]! += start[i]!;
  const fill = start.slice(0, count);
  const items = new Int32Array(keys.length);
  keys.forEach((key, index) => (items[fill[key]!++] = index));
  return { start, items };
};

export const buildWorld = (shape: WorldShape, seed: number, noisy: boolean): World => {
  const root = createPrng(seed);
  // Independent streams, so the noisy tenant's additions leave the base world as it is.
  const [catalogue, market, events, noise] = [root.fork(), root.fork(), root.fork(), root.fork()];
  const sizes = longTail(shape.tenants, shape.minOffers, shape.maxOffers, shape.tenantOffers);
  shuffle(sizes, catalogue);
  const counts = sellerCounts(shape.products, shape.tenantOffers, shape.maxSellers, catalogue);
  const slots = assign(sizes, counts, catalogue);
  const baseProduct = new Int32Array(slots.length);
  let k = 0;
  counts.forEach((count, p) => baseProduct.fill(p, k, (k += count)));
  const repricedBase = Uint8Array.from(slots, () => (catalogue.chance(shape.repricedShare) ? 1 : 0));

  const extraProducts = noisy ? shape.noisyOffers - Math.floor(shape.noisyOffers / 2) : 0;
  const products = shape.products + extraProducts;
  const noisyTenant = noisy ? shape.tenants : null;
  const tenantOf = new Int32Array(slots.length + (noisy ? shape.noisyOffers : 0));
  const productOf = new Int32Array(tenantOf.length);
  const repriced = new Uint8Array(tenantOf.length);
  tenantOf.set(slots);
  productOf.set(baseProduct);
  repriced.set(repricedBase);
  if (noisy) {
    const shared = Int32Array.from({ length: shape.products }, (_, i) => i);
    shuffle(shared, noise);
    const half = Math.floor(shape.noisyOffers / 2);
    for (let i = 0; i < shape.noisyOffers; i++) {
      const at = slots.length + i;
      tenantOf[at] = shape.tenants;
      productOf[at] = i < half ? shared[i]! : shape.products + (i - half);
      repriced[at] = noise.chance(shape.repricedShare) ? 1 : 0;
    }
  }
  const perProduct = byKey(products, productOf);
  const perTenant = byKey(shape.tenants + (noisy ? 1 : 0), tenantOf);

  // The market: hot sets per drift period, then each product's moves.
  const periods = Math.ceil(shape.spanSeconds / shape.driftSeconds);
  const hot = Array.from({ length: periods }, () => new Uint8Array(products));
  const hotCount = Math.round(shape.products * shape.hotShare);
  const order = Int32Array.from({ length: shape.products }, (_, i) => i);
  shuffle(order, market);
  for (let i = 0; i < hotCount; i++) hot[0]![order[i]!] = 1;
  for (let period = 1; period < periods; period++) {
    hot[period]!.set(hot[period - 1]!);
    const current = [...hot[period]!.keys()].filter((p) => hot[period]![p] === 1);
    for (let i = 0; i < Math.floor(hotCount / 3); i++) {
      hot[period]![market.pick(current)] = 0;
      let p: number;
      do p = market.int(0, shape.products - 1);
      while (hot[period]![p] === 1);
      hot[period]![p] = 1;
    }
  }
  const noiseMarket = noise.fork();
  const moves = Array.from({ length: products }, (_, p) =>
    movesOf(
      hot.map((set) => set[p] === 1),
      shape,
      p < shape.products ? market : noiseMarket,
    ),
  );
  const contested = Uint8Array.from({ length: products }, (_, p) => ((p < shape.products ? market : noiseMarket).chance(shape.contestedShare) ? 1 : 0));

  const eventTimes: number[] = [];
  const eventOffers: number[] = [];
  for (let t = -Math.log(1 - events.next()) / shape.eventsPerSecond; t < shape.spanSeconds; t -= Math.log(1 - events.next()) / shape.eventsPerSecond) {
    eventTimes.push(t * 1000);
    eventOffers.push(events.int(0, slots.length - 1));
  }
  const small = sizes.map((size, tenant) => ({ size, tenant })).filter((t) => t.size < 200);
  const leaving = Array.from({ length: Math.min(5, small.length) }, (_, i) => small[Math.floor((i * small.length) / 5)]!.tenant);

  return {
    shape,
    tenants: shape.tenants + (noisy ? 1 : 0),
    products,
    tenantOf,
    productOf,
    repriced,
    baseOffers: slots.length,
    offerStart: perProduct.start,
    offersOf: perProduct.items,
    tenantStart: perTenant.start,
    tenantOffersOf: perTenant.items,
    moves,
    contested,
    eventAt: Float64Array.from(eventTimes),
    eventOffer: Int32Array.from(eventOffers),
    leaving,
    noisyTenant,
  };
};

/** Moves of a product in (from, to]: how many and their times' index range. */
export const movesBetween = (moves: Float64Array, from: number, to: number): { readonly first: number; readonly end: number } => {
  const upper = (x: number) => {
    let lo = 0;
    let hi = moves.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (moves[mid]! <= x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return { first: upper(from), end: upper(to) };
};
