import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { processFifoBatch } from '../../queue/fifo-batch.js';
import { importJobMessage } from '../../events/import-jobs.js';
import { logger } from '../../observability/logger.js';
import { processImportJob } from './process.js';
import { traced } from '../../observability/traced.js';
import { requireMessageBody } from '../../queue/message-body.js';
import type { RunDeps } from '../../imports/run-job.js';

/**
 * The import worker: one job per message, one job at a time per tenant (a FIFO message group).
 * A job that throws is redelivered and resumes from its last committed chunk (process.ts); the
 * batch's other tenants' jobs go on.
 */
const handleRecord = async (record: SQSRecord, deps: RunDeps): Promise<void> => {
  const message = requireMessageBody(importJobMessage, record.body);
  try {
    await processImportJob(message, deps);
  } catch (error) {
    logger.error('Import job attempt failed; its message will be delivered again', { ...message, error: error as Error });
    throw error;
  }
};

/** The worker over the run's dependencies (tests give some of their own, tools/local/event-runtime.ts passes them on). */
export const importWorker = (deps: RunDeps = {}) => traced(async (event: SQSEvent) => processFifoBatch(event, (record) => handleRecord(record, deps)));

export const handler = importWorker();
