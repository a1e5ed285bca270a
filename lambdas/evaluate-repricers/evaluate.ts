import { decide, type EngineOffer } from '../shared/domain/repricing.js';
import type { PriceChange } from '../shared/domain/records.js';
import { connectionModeOf } from '../shared/data/connection-mode.js';
import { decisionId, priceStepOf, readProductForRepricing, recordDecisions, type RepricerDecision } from '../shared/data/repricing.js';

/**
 * One product's repricing: its enabled repricers decide from its offers as they are now, and
 * each decision is recorded as a price change. Runs again harmlessly: a decision already
 * recorded is the last decision, so the engine does not make it twice.
 */
export const evaluateProduct = async (clientId: string, productCode: string, retentionDays: number): Promise<PriceChange[]> => {
  const product = await readProductForRepricing(clientId, productCode);
  if (!product || product.slots.length === 0) return [];
  const offers: EngineOffer[] = product.offers.map((offer) => ({
    offer_id: offer.fields.offer_id,
    offer_price: offer.fields.offer_price,
    offer_status: offer.fields.offer_status,
    connector: offer.connector,
    own: offer.scope === 'own',
    seller_id: offer.fields.seller_id,
    rating_avg: offer.fields.rating_avg,
    stock_status: offer.fields.stock_status,
  }));
  const decisions: RepricerDecision[] = [];
  // A disabled repricer decides nothing: it costs no read of its connector's step either.
  for (const slot of product.slots.filter((s) => s.enabled)) {
    const step = await priceStepOf(slot.connector);
    // Live: the sender takes it; suggest (or no connection): it waits for the client's apply.
    const status = (await connectionModeOf(clientId, slot.connector)) === 'live' ? 'pending' : 'suggested';
    const lastDecided = (offerId: string) => product.decisions.get(decisionId(slot.repricerId, offerId))?.lastPrice;
    for (const decision of decide(slot, offers, step, lastDecided))
      decisions.push({ ...decision, repricerId: slot.repricerId, connector: slot.connector, status });
  }
  return recordDecisions(clientId, product, decisions, retentionDays);
};
