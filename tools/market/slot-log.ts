/**
 * Who held each buy-box slot, and from when: the simulator's own record, per product line, of
 * every change of its Best Price and Fastest Delivery holders, so tests and benchmarks can check
 * what the service measured (`GET /v1/repricers/{id}/stats`) against what the market did. The
 * holders are looked at after everything that can move them (bot ticks, changes to the own
 * offer, shapes that add or take away offers), so an entry's time is when the market changed.
 */
import type { Market } from './market.js';
import type { Product } from './catalogue.js';

export interface SlotHolders {
  /** Milliseconds since the epoch (the simulator's clock). */
  at: number;
  /** The offer ids (ListedOffer.id: the own offer's `offer_id`, or a competitor offer's key); null: nobody. */
  best_price: string | null;
  fastest_delivery: string | null;
}

export interface ProductSlotLog {
  /** Changes before the first entry that were forgotten (the log keeps the latest MAX_ENTRIES_PER_PRODUCT). */
  dropped: number;
  entries: SlotHolders[];
}

export interface SlotLogSummary {
  /** By product line id (`<plid>~<tsin>` for each variant of a line of several: Market.variantKey). */
  products: Record<string, ProductSlotLog>;
}

export const MAX_ENTRIES_PER_PRODUCT = 1_000;

/** Keys in numeric order: by plid, then by tsin. */
const byNumbers = (a: string, b: string): number => {
  const [plidA = 0, tsinA = 0] = a.split('~').map(Number);
  const [plidB = 0, tsinB = 0] = b.split('~').map(Number);
  return plidA - plidB || tsinA - tsinB;
};

export class SlotLog {
  private readonly byVariant = new Map<string, ProductSlotLog>();

  /** Notes the holders of the products (every product unless named) as they are `now`, where they changed. */
  observe(market: Market, now: number, products: readonly Product[] = market.products): void {
    for (const product of products) {
      const box = market.buyBox(product);
      const holders: SlotHolders = { at: now, best_price: box.bestPrice?.id ?? null, fastest_delivery: box.fastestDelivery?.id ?? null };
      const key = market.variantKey(product);
      const log = this.byVariant.get(key) ?? { dropped: 0, entries: [] };
      const last = log.entries.at(-1);
      if (last !== undefined && last.best_price === holders.best_price && last.fastest_delivery === holders.fastest_delivery) continue;
      log.entries.push(holders);
      if (log.entries.length > MAX_ENTRIES_PER_PRODUCT) {
        log.entries.shift();
        log.dropped += 1;
      }
      this.byVariant.set(key, log);
    }
  }

  summary(): SlotLogSummary {
    return {
      products: Object.fromEntries([...this.byVariant].sort(([a], [b]) => byNumbers(a, b)).map(([key, log]) => [key, structuredClone(log)])),
    };
  }
}
