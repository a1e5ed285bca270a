import { MARKET_TIMING } from '../../config/market-sync.js';
import { marketVerdict } from '../../domain/market-state.js';
import { planRepricerDecisions } from '../../domain/evaluation.js';
import { warStateId, writeWarStates, type WarStateWrite } from '../../data/price-changes/price-wars.js';
import type { PriceChange } from '../../domain/records.js';
import { connectionModeOf } from '../../data/connections/mode.js';
import { decisionId } from '../../data/repricing/decision-states.js';
import { engineContextOf, engineOffersOf, readProductForRepricing } from '../../data/repricing/inputs.js';
import { priceStepOf } from '../../data/connections/connectors.js';
import { recordDecisions, type RepricerDecision } from '../../data/repricing/record.js';
import { logger } from '../../observability/logger.js';
import { now } from '../../config/clock.js';

/**
 * One product's repricing: its enabled repricers decide from its offers as they are now (what
 * each records is planned by domain/evaluation.ts), and the data layer records each decision as
 * a price change. Runs again harmlessly: a decision already recorded is the last decision, so
 * the engine does not make it twice. A decision the sender forgot (it ended without reaching the
 * marketplace for a reason of the connection) is made again.
 *
 * Where the connector has a connection, the market is what the storefront reader saw: a
 * repricer decides only from a known market read recently enough (domain/market-state.ts): an
 * unknown or stale one decides nothing, down or up. Without a connection the offers are the client's own
 * statement of the market (imports), and decide as they always did.
 */
export const evaluateProduct = async (clientId: string, productCode: string, retentionDays: number, nowMs = now()): Promise<PriceChange[]> => {
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
    const planned = planRepricerDecisions({
      slot,
      offers,
      priceStep: await priceStepOf(slot.connector),
      mode,
      lastDecision: (offerId) => product.decisions.get(decisionId(slot.repricerId, offerId)),
      warState: (offerId) => product.wars.get(warStateId(slot.repricerId, offerId)),
      context: engineContextOf(product, slot.connector, mode !== undefined),
      nowMs,
    });
    for (const { offerId, hold, detected } of planned.holds) {
      logger.debug(detected ? 'Price war detected: holding' : 'Held: price war', { productCode, repricerId: slot.repricerId, offerId, until: hold.until });
    }
    decisions.push(...planned.decisions);
    warStates.push(...planned.warStates);
  }
  const recorded = await recordDecisions(clientId, product, decisions, retentionDays);
  // After the decisions: a run that fails in between may miss an undercut on its replay, never count one twice.
  await writeWarStates(clientId, productCode, warStates, nowMs);
  return recorded;
};
