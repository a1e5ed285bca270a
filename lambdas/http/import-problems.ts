import { MAX_IMPORT_BODY_BYTES } from '../domain/import-jobs.js';
import { problem } from './problem.js';

/** The problems only `POST /v1/imports` answers: its body is NDJSON, with its own size limit. */
export const IMPORT_TOO_LARGE = problem(413, `The request body exceeds ${MAX_IMPORT_BODY_BYTES / 1024 / 1024} MiB.`);
export const NOT_NDJSON = problem(415, 'The request body must be application/x-ndjson.');
