import type { ImportJob, ImportType } from '../domain/import-jobs.js';
import { invalidJobCounters } from '../domain/import-jobs.js';
import type { ImportProblem } from '../domain/import-records.js';
import { CHUNK_LINES, jobReferenceProblems, planChunk, type ImportOwner } from '../data/imports/writes.js';
import { commitPendingChunk, finishImportJob, markImportChecked, savePendingChunk, type StoredImportJob } from '../data/imports/imports.js';
import { nowIso } from '../config/clock.js';

/**
 * Runs an import job from where it stands, a chunk at a time: plan the chunk (reads), save what
 * it counts in the job, write it, then add the counts and move `processed` past it. A worker
 * that dies anywhere in between is resumed by the next delivery from the saved chunk: its
 * writes are repeated (they are idempotent) and its saved counts are added once, so the
 * counters come out as if nothing had happened.
 */
export interface RunDeps {
  /** Called after each chunk's counts are committed. */
  readonly onProgress?: (job: ImportJob) => void;
  /**
   * Adds a written chunk's counts to the job (data/imports/imports.ts commitPendingChunk). A test
   * that kills a worker between a chunk's write and its counts, the worst moment to die, gives
   * one that fails there.
   */
  readonly commitChunk?: typeof commitPendingChunk;
}

/** Checks the lines' references before the first write: a job whose lines name nothing is failed, with nothing written. */
export const checkJobReferences = async (
  owner: ImportOwner,
  job: StoredImportJob,
  lines: readonly unknown[],
  now: () => string,
): Promise<{ ok: true; job: StoredImportJob } | { ok: false; job: StoredImportJob }> => {
  if (job.checked) return { ok: true, job };
  const problems: ImportProblem[] = await jobReferenceProblems(owner, job.record.import_type, lines);
  if (problems.length > 0) {
    const { invalid, errors } = invalidJobCounters(lines.length, problems);
    return { ok: false, job: await finishImportJob(owner.clientId, job.record.id, { status: 'failed', invalid, errors }, now()) };
  }
  return { ok: true, job: await markImportChecked(owner.clientId, job.record.id) };
};

export const runImportJob = async (
  owner: ImportOwner,
  start: StoredImportJob,
  lines: readonly unknown[],
  deps: RunDeps = {},
  now: () => string = nowIso,
): Promise<StoredImportJob> => {
  const { clientId } = owner;
  const type: ImportType = start.record.import_type;
  const id = start.record.id;
  const commitChunk = deps.commitChunk ?? commitPendingChunk;
  let job = start;
  while (job.record.processed < lines.length) {
    const from = job.record.processed;
    const saved = job.pending;
    const to = saved?.to ?? Math.min(from + CHUNK_LINES[type], lines.length);
    const planned = await planChunk(owner, type, lines.slice(from, to), now());
    const pending = saved ?? { to, ...planned.counts };
    if (!saved) job = await savePendingChunk(clientId, id, from, pending, now());
    await planned.write();
    job = await commitChunk(clientId, id, from, pending, now());
    deps.onProgress?.(job.record);
  }
  return finishImportJob(clientId, id, { status: 'completed' }, now());
};
