import type { ImportRecord } from '../../lambdas/domain/import-records.js';
import type { StoredOffer } from '../../lambdas/data/offers/list.js';
import { prng } from './offer-generator.js';

/**
 * Offer changes as a marketplace feed brings them: the offer's line imported again with a few
 * fields moved. Built from the offer as stored, so a benchmark run on a table an earlier run
 * changed still changes something.
 */
export type ChangeKind = 'realistic' | 'worst' | 'flags';

export const CHANGE_LABELS: Record<ChangeKind, string> = {
  realistic: 'price +-1-5 %, competitors +-1',
  worst: 'price and competitors moved far',
  flags: 'winning flags only',
};

const MAX_PRICE = 1_000;
const cents = (n: number) => Math.round(n * 100) / 100;

export const changedLine = (offer: StoredOffer, kind: ChangeKind, random: () => number): ImportRecord => {
  const fields = { ...offer.fields };
  const price = fields.offer_price;
  const competitors = fields.total_competitors;
  switch (kind) {
    case 'realistic': {
      const factor = 1 + (random() < 0.5 ? -1 : 1) * (0.01 + random() * 0.04);
      const next = cents(price * factor);
      fields.offer_price = Math.min(MAX_PRICE, Math.max(0.01, next === price ? cents(price + 0.01) : next));
      fields.total_competitors = competitors === 0 || random() < 0.5 ? competitors + 1 : competitors - 1;
      break;
    }
    case 'worst':
      // Half the price range and half the competitor range away: a key far from where it was in every order.
      fields.offer_price = cents(price > MAX_PRICE / 2 ? price - MAX_PRICE / 2 + random() : price + MAX_PRICE / 2 - random());
      fields.total_competitors = competitors >= 20 ? competitors - 20 : competitors + 20;
      break;
    case 'flags':
      fields.winning = !fields.winning;
      fields.winning_delivery = !fields.winning_delivery;
      break;
  }
  return { type: 'offer', data: { ...fields, product_code: offer.product_code, connector: offer.connector } };
};

/** `count` distinct offer numbers below `size` (all of them when `count` >= `size`), drawn from `seed`. */
export const pickOffers = (size: number, count: number, seed: number): number[] => {
  const random = prng(seed);
  const picked = new Set<number>();
  while (picked.size < Math.min(count, size)) picked.add(Math.floor(random() * size));
  return [...picked];
};

export const benchOfferId = (n: number) => `bench-offer-${n}`;
