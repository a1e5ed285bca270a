import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { processFifoBatch } from '../../queue/fifo-batch.js';
import { mapLimit } from '../../data/table/concurrency.js';
import { DEFAULT_PRICE_CHANGE_RETENTION_DAYS } from '../../domain/repricing.js';
import { repricingMessage } from '../../events/list-changes.js';
import { logger } from '../../observability/logger.js';
import { traced } from '../../observability/traced.js';
import { PRICE_CHANGES_LOG } from './decided-log.js';
import { evaluateProduct } from './evaluate.js';
import { requireMessageBody } from '../../queue/message-body.js';

/**
 * The repricing evaluator: one message at a time per tenant (a FIFO message group), it lets the
 * repricers of the products named decide. A failed message stops its group (FIFO): it and the
 * ones after it are retried, then dead-lettered; the other tenants' messages of the batch go on.
 */
const retentionDays = Number(process.env.PRICE_CHANGE_RETENTION_DAYS ?? DEFAULT_PRICE_CHANGE_RETENTION_DAYS);
if (!Number.isInteger(retentionDays) || retentionDays < 1) throw new Error('PRICE_CHANGE_RETENTION_DAYS must be a positive integer');

const handleRecord = async (record: SQSRecord): Promise<void> => {
  const message = requireMessageBody(repricingMessage, record.body);
  const changes = (await mapLimit(message.products, (code) => evaluateProduct(message.clientId, code, retentionDays), 8)).flat();
  if (changes.length > 0)
    logger.info(PRICE_CHANGES_LOG.message, { clientId: message.clientId, products: message.products.length, [PRICE_CHANGES_LOG.countField]: changes.length });
};

export const handler = traced(async (event: SQSEvent) => processFifoBatch(event, handleRecord));
