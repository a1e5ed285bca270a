import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { processFifoBatch } from '../../queue/fifo-batch.js';
import { repriceCostBasedBounds } from '../../repricers/cost-bounds.js';
import { reconcileBatch } from '../../data/offers/maintenance.js';
import { recordOfferStates } from '../../data/offers/states.js';
import { reconcilePriceChanges } from '../../data/price-changes/maintenance.js';
import { runRebuildStep } from '../../data/tenants/rebuild.js';
import { listChangesMessage } from '../../events/list-changes.js';
import { logger } from '../../observability/logger.js';
import { traced } from '../../observability/traced.js';
import { requireMessageBody } from '../../queue/message-body.js';
import { refreshProductWatches } from '../../read-planning/watch-products.js';

/**
 * The list maintainer: one message at a time per tenant (a FIFO message group), it brings the
 * tenant's offer and price-change listings and counts in line with what changed, records its own offers' states,
 * and keeps the watches of its products' pages in line. A message that fails stops its
 * group (FIFO): it and the ones after it are retried, then dead-lettered; the other tenants' messages of the batch go on.
 */
const handleRecord = async (record: SQSRecord): Promise<void> => {
  const message = requireMessageBody(listChangesMessage, record.body);
  const seq = record.attributes.SequenceNumber ?? '';
  for (const requestId of message.rebuilds) await runRebuildStep(message.clientId, requestId, seq);
  await recordOfferStates(message.clientId, message.offerStates);
  const moved =
    (await reconcileBatch(message.clientId, { offers: message.offers, products: message.products }, seq)) +
    (await reconcilePriceChanges(message.clientId, message.priceChanges, seq));
  // A product written anew may have moved the bounds of its cost_based repricers (its stock mode, its fees).
  await repriceCostBasedBounds(message.clientId, message.products);
  // A product's line or its repricers moved: the pages it watches follow.
  await refreshProductWatches(message.clientId, message.watches);
  logger.debug('Lists maintained', { clientId: message.clientId, offers: message.offers.length, products: message.products.length, moved });
};

export const handler = traced(async (event: SQSEvent) => processFifoBatch(event, handleRecord));
