import { previewRepricer, type RepricerPreview } from '../../domain/repricer-preview.js';
import type { Repricer } from '../../domain/records.js';
import { marketVerdictFor } from '../../data/repricing/market-views.js';
import { warStateId } from '../../data/price-changes/price-wars.js';
import { decisionId } from '../../data/repricing/decision-states.js';
import { engineContextOf, engineOffersOf, readProductForRepricing, type ProductForRepricing } from '../../data/repricing/inputs.js';
import { priceStepOf } from '../../data/connections/connectors.js';
import { now } from '../../config/clock.js';

/** A repricer to preview: a stored one (its id), or one only described (a what-if body: no id, no decisions). */
export type PreviewedRepricer = Omit<Repricer, 'id' | 'uid' | 'created_at' | 'updated_at'> & { readonly id: number | null };

/**
 * What the repricer would decide now, from the product partition and price step the evaluator
 * reads (`partition`: read already; undefined: read here), and why. It writes nothing.
 */
export const previewOf = async (clientId: string, record: PreviewedRepricer, partition?: ProductForRepricing | null): Promise<RepricerPreview> => {
  const connector = record.connector_type.uid;
  const [product, step] = await Promise.all([
    partition === undefined ? readProductForRepricing(clientId, record.product.code) : Promise.resolve(partition ?? undefined),
    priceStepOf(connector),
  ]);
  // No product item (it was removed): no offers to reprice and no competitor to meet.
  const offers = product ? engineOffersOf(product) : [];
  // A repricer only described has decided nothing yet: everything it would decide counts.
  const lastDecided = (offerId: string) => (record.id === null ? undefined : product?.decisions.get(decisionId(record.id, offerId))?.lastPrice);
  // The evaluator's own rule: with a connection, only a known market decides (domain/market-state.ts).
  const verdict = await marketVerdictFor(clientId, connector, product?.markets.get(connector));
  // The price-war guard's state, read with the partition: an offer it holds would get no decision (a repricer only described holds nothing yet).
  const wars = {
    stateOf: (offerId: string) => (record.id === null ? undefined : product?.wars.get(warStateId(record.id, offerId))),
    nowMs: now(),
  };
  return previewRepricer({ ...record, connector }, offers, step, lastDecided, verdict, engineContextOf(product, connector, verdict !== undefined), wars);
};
