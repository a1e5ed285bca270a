import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TABLE_NAME_ENV } from '../../../lib/table-schema.js';

/**
 * SDK timeouts sized to fit inside the Lambda timeout (10 s), itself inside API Gateway's 29 s:
 * at most 3 attempts of 2 s each plus backoff.
 */
export const SDK_REQUEST_TIMEOUT_MS = 2_000;
export const SDK_MAX_ATTEMPTS = 3;

/** Built once per container. `DYNAMODB_ENDPOINT` points it at DynamoDB Local. */
export const createDocumentClient = (endpoint = process.env.DYNAMODB_ENDPOINT): DynamoDBDocumentClient => {
  const client = new DynamoDBClient({
    maxAttempts: SDK_MAX_ATTEMPTS,
    requestHandler: { requestTimeout: SDK_REQUEST_TIMEOUT_MS, connectionTimeout: 1_000 },
    ...(endpoint
      ? { endpoint, region: process.env.AWS_REGION ?? 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
};

export const documentClient = createDocumentClient();

/** Read lazily so tests and the local runner can set it before the first call. */
export const tableName = (): string => {
  const name = process.env[TABLE_NAME_ENV];
  if (!name) throw new Error(`${TABLE_NAME_ENV} is not set`);
  return name;
};
