import { problem } from './problem.js';

/** The problems only `POST /v1/imports` answers: its body is NDJSON, with its own size limit. */
export const IMPORT_TOO_LARGE = problem(413, 'The request body exceeds 5 MB.');
export const NOT_NDJSON = problem(415, 'The request body must be application/x-ndjson.');
