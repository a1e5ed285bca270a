import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TABLE_NAME_ENV } from '../../../lib/table-schema.js';

/**
 * SDK timeouts sized so that one call, retries and throttling backoff included, ends inside the
 * Lambda timeout (10 s), itself inside API Gateway's 29 s: 3 attempts of at most 1 s to connect
 * and 1.2 s to answer, plus up to 1 s and 2 s of backoff (test/unit/data/timeouts.test.ts).
 */
export const SDK_REQUEST_TIMEOUT_MS = 1_200;
export const SDK_CONNECTION_TIMEOUT_MS = 1_000;
export const SDK_MAX_ATTEMPTS = 3;

/**
 * Sockets per client. A Lambda container serves one request at a time, so the SDK's default
 * (50) is plenty there; the local server runs every request of a test burst in one process.
 */
const LOCAL_MAX_SOCKETS = 512;

/** Built once per container. `DYNAMODB_ENDPOINT` points it at DynamoDB Local. */
export const createDynamoClient = (endpoint = process.env.DYNAMODB_ENDPOINT): DynamoDBClient =>
  new DynamoDBClient({
    maxAttempts: SDK_MAX_ATTEMPTS,
    requestHandler: {
      requestTimeout: SDK_REQUEST_TIMEOUT_MS,
      connectionTimeout: SDK_CONNECTION_TIMEOUT_MS,
      ...(endpoint ? { httpAgent: { keepAlive: true, maxSockets: LOCAL_MAX_SOCKETS } } : {}),
    },
    ...(endpoint
      ? { endpoint, region: process.env.AWS_REGION ?? 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });

export const createDocumentClient = (endpoint = process.env.DYNAMODB_ENDPOINT): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(createDynamoClient(endpoint), { marshallOptions: { removeUndefinedValues: true } });

/** The plain client, for libraries that marshal items themselves (the idempotency store). */
export const dynamoClient = createDynamoClient();
export const documentClient = DynamoDBDocumentClient.from(dynamoClient, { marshallOptions: { removeUndefinedValues: true } });

/** Read lazily so tests and the local runner can set it before the first call. */
export const tableName = (): string => {
  const name = process.env[TABLE_NAME_ENV];
  if (!name) throw new Error(`${TABLE_NAME_ENV} is not set`);
  return name;
};
