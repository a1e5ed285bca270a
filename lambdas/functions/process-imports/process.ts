import { validateJobLines, parseNdjson, invalidJobCounters } from '../../domain/import-jobs.js';
import { checkJobReferences, runImportJob, type RunDeps } from '../../imports/run-job.js';
import { beginImportAttempt, finishImportJob, getImportJob, loadImportBody, type StoredImportJob } from '../../data/imports/imports.js';
import { MAX_IMPORT_ATTEMPTS } from '../../config/event-sources.js';
import type { ImportJobMessage } from '../../events/import-jobs.js';
import { logger } from '../../observability/logger.js';
import { nowIso } from '../../config/clock.js';

const now = nowIso;

/**
 * Processes one import job, or resumes it where an earlier delivery stopped. A job that has
 * ended is left alone (a duplicate message changes nothing); a job that has already been
 * attempted MAX_IMPORT_ATTEMPTS times is failed, naming the line it could not get past.
 */
export const processImportJob = async ({ clientId, importId }: ImportJobMessage, deps: RunDeps = {}): Promise<StoredImportJob | undefined> => {
  const found = await getImportJob(clientId, importId);
  if (!found || found.record.status === 'completed' || found.record.status === 'failed') return found;
  if (found.attempts >= MAX_IMPORT_ATTEMPTS) {
    const line = found.record.processed + 1;
    logger.error('Import job given up', { clientId, importId, attempts: found.attempts, processed: found.record.processed });
    return finishImportJob(
      clientId,
      importId,
      { status: 'failed', errors: [{ line, message: `Processing stopped at or after this line ${found.attempts} times; lines 1-${line - 1} were imported.` }] },
      now(),
    );
  }
  let job = await beginImportAttempt(clientId, found, now());
  const owner = { clientId, ...job.owner };
  const inputs = parseNdjson(await loadImportBody(clientId, importId, job.bodyChunks));
  const { records, problems, invalidLines } = validateJobLines(job.record.import_type, inputs);
  if (problems.length > 0) {
    // The body was validated when it was accepted; this is a corrupt body, not a client error.
    return finishImportJob(clientId, importId, { status: 'failed', ...invalidJobCounters(inputs.length, problems, invalidLines) }, now());
  }
  const checked = await checkJobReferences(owner, job, records, now);
  if (!checked.ok) return checked.job;
  job = await runImportJob(owner, checked.job, records, deps);
  logger.info('Import job completed', { clientId, importId, ...job.record, errors: undefined });
  return job;
};
