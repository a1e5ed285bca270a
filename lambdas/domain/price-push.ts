import { ceilToStep, centsToNumber, floorToStep, toCents } from './money.js';

/**
 * What the sender may push (docs/price-sending.md), pure and exact in integer cents. The
 * repricer decided a price; the sender moves toward it by at most one step of the connection's
 * cap, and its guard checks the price against the repricer and the offer as they are then.
 */
export interface SendBounds {
  /** The repricer's floor and ceiling as they are now. */
  readonly min_price: number;
  readonly preferred_price: number;
  /** The offer's recommended retail price on the marketplace, when known: no price above it is accepted. */
  readonly rrp?: number | undefined;
  /** The connector's price increment (Takealot: 1 rand). */
  readonly step: number;
}

export type SendCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const grid = (bounds: SendBounds) => {
  const step = toCents(bounds.step);
  if (step <= 0n) throw new RangeError(`The price step must be positive, got ${bounds.step}`);
  const ceilings = [toCents(bounds.preferred_price), ...(bounds.rrp === undefined ? [] : [toCents(bounds.rrp)])];
  const highest = ceilings.reduce((a, b) => (a < b ? a : b));
  return { step, floor: ceilToStep(toCents(bounds.min_price), step), ceiling: floorToStep(highest, step) };
};

/** Whether a price may be sent now: on the step grid, not under the floor, not over the ceiling or the rrp. */
export const checkSendable = (price: number, bounds: SendBounds): SendCheck => {
  const cents = toCents(price);
  const { step } = grid(bounds);
  if (cents % step !== 0n) return { ok: false, reason: `${price} is not a whole number of the price step ${bounds.step}` };
  if (cents < toCents(bounds.min_price)) return { ok: false, reason: `${price} is under the repricer's min_price ${bounds.min_price}` };
  if (cents > toCents(bounds.preferred_price)) return { ok: false, reason: `${price} is over the repricer's preferred_price ${bounds.preferred_price}` };
  if (bounds.rrp !== undefined && cents > toCents(bounds.rrp)) return { ok: false, reason: `${price} is over the offer's rrp ${bounds.rrp}` };
  return { ok: true };
};

/**
 * The price to push now, from the offer's current price toward its target, on the step grid:
 * the target itself when it is within `maxStepPercent` of the current price, else the farthest
 * price on the grid within it (at least one step, so a move always progresses). The bounds are
 * not applied here: the guard brings the step inside them when it checks it (`intoBounds`).
 */
export const nextStep = (current: number, target: number, priceStep: number, maxStepPercent: number): number => {
  const step = toCents(priceStep);
  if (step <= 0n) throw new RangeError(`The price step must be positive, got ${priceStep}`);
  const now = toCents(current);
  const wanted = toCents(target);
  if (now <= 0n || wanted === now) return target;
  const limit = (now * BigInt(maxStepPercent)) / 100n;
  let push: bigint;
  if (wanted < now) {
    const lowest = ceilToStep(now - limit, step);
    push = wanted >= lowest ? wanted : lowest;
    if (push >= now) push = floorToStep(now - 1n, step);
    if (push < wanted) push = wanted;
  } else {
    const highest = floorToStep(now + limit, step);
    push = wanted <= highest ? wanted : highest;
    if (push <= now) push = ceilToStep(now + 1n, step);
    if (push > wanted) push = wanted;
  }
  return centsToNumber(push);
};

/**
 * A price brought inside the bounds, on their grid: the bounds win over the step cap, so a
 * current price outside them is brought straight back in one push.
 */
export const intoBounds = (price: number, bounds: SendBounds): number => {
  const { floor, ceiling } = grid(bounds);
  const cents = toCents(price);
  if (cents < floor) return centsToNumber(floor);
  if (cents > ceiling) return centsToNumber(ceiling);
  return price;
};

/** A push that takes more than `dropPercent` off the current price: what the circuit breaker counts. */
export const isSharpDrop = (current: number, push: number, dropPercent: number): boolean => toCents(push) * 100n < toCents(current) * BigInt(100 - dropPercent);

/**
 * Whether the sharp drops seen in one window trip the breaker: more than `sharePercent` of the
 * connection's repriced offers. At least two offers must drop, so one repriced offer's single
 * drop never pauses a connection.
 */
export const MIN_BREAKER_DROPS = 2;
export const breakerTrips = (drops: number, repricedOffers: number, sharePercent: number): boolean =>
  drops >= MIN_BREAKER_DROPS && drops * 100 > Math.max(repricedOffers, drops) * sharePercent;

/** The wait before the n-th try again after a fault: doubling from `baseMs`, at most `maxMs`. */
export const retryDelayMs = (attempts: number, baseMs: number, maxMs: number): number => Math.min(maxMs, baseMs * 2 ** Math.max(0, attempts - 1));

/** The day (UTC) a push counts toward, for the per-offer daily cap. */
export const utcDay = (nowMs: number): string => new Date(nowMs).toISOString().slice(0, 10);

/** The breaker's window a moment falls in: windows of `minutes`, aligned on the epoch. */
export const breakerWindow = (nowMs: number, minutes: number): string => String(Math.floor(nowMs / (minutes * 60_000)));

/**
 * The windows a sharp drop is noted in: the one it falls in (whose count trips the breaker) and
 * the next. So a window's count holds every drop since the previous window began: drops that
 * straddle a boundary are counted together, never split in halves that each stay under the share.
 */
export const breakerWindowsNoted = (nowMs: number, minutes: number): { counted: string; carried: string } => {
  const counted = Math.floor(nowMs / (minutes * 60_000));
  return { counted: String(counted), carried: String(counted + 1) };
};
