/**
 * Points each integration file at its worker's DynamoDB Local (global-setup.ts starts one per
 * worker slot). Jest numbers its workers 1..maxWorkers and a replaced worker keeps its number,
 * so two files running at once never share an instance. Run in band, a file takes the first.
 */
import { DYNAMODB_ENDPOINTS_ENV } from './global-setup.js';

const endpoints = (process.env[DYNAMODB_ENDPOINTS_ENV] ?? '').split(',').filter(Boolean);
if (endpoints.length > 0) {
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  process.env.DYNAMODB_ENDPOINT = endpoints[(Math.max(1, worker) - 1) % endpoints.length];
}
