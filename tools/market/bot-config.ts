/** What a competitor bot is and what it remembers between ticks: data of the catalogue, acted on by bots.ts. */
export type BotConfig =
  /** Never changes its price. */
  | { kind: 'fixed' }
  /** Prices `step` below the lowest other offer, never below `floor` nor above the RRP (so it also rises when the others do). */
  | { kind: 'undercutter'; floor: number; step: number }
  /** Moves by a random whole amount in [-maxStep, maxStep] each tick, kept within [min, max]. */
  | { kind: 'random_walk'; min: number; max: number; maxStep: number }
  /** A leadtime offer (no stock at Takealot) at a fixed price and lead time. */
  | { kind: 'leadtime' }
  /** In stock for `inStockTicks` ticks, then off the page for `outOfStockTicks`, and back. */
  | { kind: 'stock_cycle'; inStockTicks: number; outOfStockTicks: number };

export interface BotState {
  ticksLeftInPhase?: number;
}

export type BotKind = BotConfig['kind'];
