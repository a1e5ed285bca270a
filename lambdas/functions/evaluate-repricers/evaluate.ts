import { MARKET_TIMING } from '../../config/market-sync.js';
import { marketVerdict } from '../../domain/market-state.js';
import { decideExplained } from '../../domain/repricing.js';
import { guardRepricer } from '../../domain/price-war.js';
import { warStateId, writeWarStates, type WarStateWrite } from '../../data/price-changes/price-wars.js';
import type { PriceChange } from '../../domain/records.js';
import { connectionModeOf } from '../../data/connections/mode.js';
import { decisionId } from '../../data/repricing/decision-states.js';
import { engineContextOf, engineOffersOf, readProductForRepricing } from '../../data/repricing/inputs.js';
import { priceStepOf } from '../../data/connections/connectors.js';
import { recordDecisions, type RepricerDecision } from '../../data/repricing/record.js';
import { logger } from '../../observability/logger.js';

/**
 * One product's repricing: its enabled repricers decide from its offers as they are now, and
 * each decision is recorded as a price change. Runs again harmlessly: a decision already
 * recorded is the last decision, so the engine does not make it twice. A decision the sender
 * forgot (it ended without reaching the marketplace for a reason of the connection) is made again.
 *
 * Where the connector has a connection, the market is what the storefront reader saw: a
 * repricer decides only from a known market read recently enough (domain/market-state.ts): an
 * unknown or stale one decides nothing, down or up. Without a connection the offers are the client's own
 * statement of the market (imports), and decide as they always did.
 */
export const evaluateProduct = async (clientId: string, productCode: string, retentionDays: number, nowMs = Date.now()): Promise<PriceChange[]> => {
  const product = await readProductForRepricing(clientId, productCode);
  if (!product || product.slots.length === 0) return [];
  const offers = engineOffersOf(product);
  const decisions: RepricerDecision[] = [];
  const warStates: WarStateWrite[] = [];
  // A disabled repricer decides nothing: it costs no read of its connector's step either.
  for (const slot of product.slots.filter((s) => s.enabled)) {
    const mode = await connectionModeOf(clientId, slot.connector);
    const verdict = mode === undefined ? undefined : marketVerdict(product.markets.get(slot.connector), nowMs, MARKET_TIMING);
    if (verdict && !verdict.decide) {
      logger.debug('Not decided: the market is unknown or stale', { productCode, repricerId: slot.repricerId, why: verdict.why });
      continue;
    }
    const step = await priceStepOf(slot.connector);
    // Live: the sender takes it; suggest (or no connection): it waits for the client's apply.
    const status = mode === 'live' ? 'pending' : 'suggested';
    // The last decided price is not decided again, unless it was only a suggestion and the
    // connection now sends (a kill switch turned it back, or the client never applied it).
    const lastDecided = (offerId: string) => {
      const last = product.decisions.get(decisionId(slot.repricerId, offerId));
      return status === 'pending' && last?.lastStatus === 'suggested' ? undefined : last?.lastPrice;
    };
    // The decisions and their explanation come from one plan of the engine.
    const { decisions: decided, explanation } = decideExplained(slot, offers, step, lastDecided, engineContextOf(product, slot.connector, mode !== undefined));
    // The price-war guard, when set, holds an offer in a war: its decision is not made (domain/price-war.ts).
    const stateOf = (offerId: string) => product.wars.get(warStateId(slot.repricerId, offerId));
    const guarded = guardRepricer(slot, offers, decided, stateOf, nowMs);
    warStates.push(...guarded.changed.map(({ offerId, state }) => ({ repricerId: slot.repricerId, offerId, connector: slot.connector, state })));
    for (const { offerId, hold, detected } of guarded.holds) {
      logger.debug(detected ? 'Price war detected: holding' : 'Held: price war', { productCode, repricerId: slot.repricerId, offerId, until: hold.until });
    }
    for (const decision of guarded.decisions) {
      if (explanation) decisions.push({ ...decision, repricerId: slot.repricerId, connector: slot.connector, status, explanation });
    }
  }
  const recorded = await recordDecisions(clientId, product, decisions, retentionDays);
  // After the decisions: a run that fails in between may miss an undercut on its replay, never count one twice.
  await writeWarStates(clientId, productCode, warStates, nowMs);
  return recorded;
};
