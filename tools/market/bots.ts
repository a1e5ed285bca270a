/**
 * Competitor bots: each competitor offer has one, and on every tick of the simulated clock it
 * may move its price or its stock. Bots act one after another in a fixed order (product, then
 * offer), each seeing the prices as the bots before it left them, so a tick is deterministic.
 */
import type { CompetitorOffer } from './catalogue.js';
import type { Prng } from './prng.js';

export type { BotConfig, BotKind, BotState } from './bot-config.js';

export interface BotSurroundings {
  /** Prices of the other offers on the page now (the own offer included when buyable). */
  otherPrices: number[];
  rrp: number;
}

const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));

/** One bot's move; mutates the offer, returns whether anything changed. */
export const actBot = (offer: CompetitorOffer, surroundings: BotSurroundings, prng: Prng): boolean => {
  const before = `${offer.price}|${offer.available}`;
  const { bot } = offer;
  switch (bot.kind) {
    case 'fixed':
    case 'leadtime':
      break;
    case 'undercutter': {
      if (surroundings.otherPrices.length === 0) break;
      const lowestOther = Math.min(...surroundings.otherPrices);
      offer.price = clamp(lowestOther - bot.step, bot.floor, Math.max(bot.floor, surroundings.rrp));
      break;
    }
    case 'random_walk':
      offer.price = clamp(offer.price + prng.int(-bot.maxStep, bot.maxStep), bot.min, bot.max);
      break;
    case 'stock_cycle': {
      const left = (offer.botState.ticksLeftInPhase ?? bot.inStockTicks) - 1;
      if (left > 0) {
        offer.botState.ticksLeftInPhase = left;
        break;
      }
      offer.available = !offer.available;
      offer.botState.ticksLeftInPhase = offer.available ? bot.inStockTicks : bot.outOfStockTicks;
      break;
    }
  }
  return before !== `${offer.price}|${offer.available}`;
};
