/**
 * The read planner simulation's arithmetic, pure: a histogram of ages (fixed bins, so millions
 * of reads cost a few kilobytes), weighted max-min fair shares and Jain's index of how close
 * each tenant came to its share.
 */

/** Ages in seconds: 0.1 s bins to 10 minutes, 10 s bins to 48 hours, and one bin beyond. */
export class AgeHistogram {
  private readonly fine = new Float64Array(6_000);
  private readonly coarse = new Float64Array((48 * 3600 - 600) / 10);
  private over = 0;
  private total = 0;

  add(seconds: number, weight = 1): void {
    this.total += weight;
    if (seconds < 600) this.fine[Math.max(0, Math.floor(seconds * 10))]! += weight;
    else if (seconds < 48 * 3600) this.coarse[Math.floor((seconds - 600) / 10)]! += weight;
    else this.over += weight;
  }

  get count(): number {
    return this.total;
  }

  /** The share of the weight at most `seconds` old (to the bin). */
  within(seconds: number): number {
    if (this.total === 0) return NaN;
    let sum = 0;
    for (let i = 0; i < this.fine.length && (i + 1) / 10 <= seconds + 1e-9; i++) sum += this.fine[i]!;
    if (seconds >= 600) for (let i = 0; i < this.coarse.length && 600 + (i + 1) * 10 <= seconds + 1e-9; i++) sum += this.coarse[i]!;
    return sum / this.total;
  }

  /** The upper edge of the bin holding the `q` quantile, in seconds (Infinity beyond 48 hours). */
  quantile(q: number): number {
    if (this.total === 0) return NaN;
    const wanted = q * this.total;
    let sum = 0;
    for (let i = 0; i < this.fine.length; i++) if ((sum += this.fine[i]!) >= wanted - 1e-9) return (i + 1) / 10;
    for (let i = 0; i < this.coarse.length; i++) if ((sum += this.coarse[i]!) >= wanted - 1e-9) return 600 + (i + 1) * 10;
    return Infinity;
  }
}

/**
 * Weighted max-min fair shares of `capacity` between demands: each tenant gets at most its demand,
 * and what one does not need is split among the others by weight (water-filling).
 */
export const fairShares = (demands: readonly number[], weights: readonly number[], capacity: number): number[] => {
  const shares = demands.map(() => 0);
  const order = demands.map((_, i) => i).filter((i) => demands[i]! > 0);
  order.sort((a, b) => demands[a]! / weights[a]! - demands[b]! / weights[b]!);
  let left = capacity;
  let weightLeft = order.reduce((sum, i) => sum + weights[i]!, 0);
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    const level = left / weightLeft;
    if (demands[i]! <= level * weights[i]!) {
      shares[i] = demands[i]!;
      left -= demands[i]!;
      weightLeft -= weights[i]!;
      continue;
    }
    for (const j of order.slice(k)) shares[j] = level * weights[j]!;
    break;
  }
  return shares;
};

/** Jain's fairness index of the values: 1 when all are equal, 1/n when one holds everything. */
export const jainIndex = (values: readonly number[]): number => {
  if (values.length === 0) return NaN;
  const sum = values.reduce((a, b) => a + b, 0);
  const squares = values.reduce((a, b) => a + b * b, 0);
  return squares === 0 ? 1 : (sum * sum) / (values.length * squares);
};

/** Each tenant's reads against its fair share of the reads made, for the tenants that asked for any. */
export const shareIndex = (demands: readonly number[], served: readonly number[], weights: readonly number[]): number => {
  const capacity = served.reduce((a, b) => a + b, 0);
  const shares = fairShares(demands, weights, capacity);
  const ratios = shares.flatMap((share, i) => (share > 0 ? [served[i]! / share] : []));
  return jainIndex(ratios);
};
