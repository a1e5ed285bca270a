import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TABLE_NAME_ENV } from '../../config/table-schema.js';
import { isLocalEndpoint, localEndpointSettings } from './local-endpoint.js';
import { withoutCallLogging } from '../../observability/sdk-call-logging.js';
import { tracer } from '../../observability/tracer.js';

/**
 * SDK timeouts sized so that one call, retries and throttling backoff included, ends inside the
 * Lambda timeout (10 s), itself inside API Gateway's 29 s: 3 attempts, each given at most 1 s to
 * connect and 1.2 s from its start to the response headers, plus up to 1 s and 2 s of backoff
 * (test/unit/data/timeouts.test.ts). An attempt past its request timeout fails with a
 * `TimeoutError` (`throwOnRequestTimeout`; without it the handler only logs a warning and keeps
 * waiting), which the SDK retries and the error handler answers with 503 and `Retry-After`
 * (test/integration/dynamodb-outage.test.ts freezes DynamoDB Local to show it).
 */
export const SDK_REQUEST_TIMEOUT_MS = 1_200;
export const SDK_CONNECTION_TIMEOUT_MS = 1_000;
export const SDK_MAX_ATTEMPTS = 3;

/**
 * Sockets per client. A Lambda container serves one request at a time, so the SDK's default
 * (50) is plenty there; the local server runs every request of a test burst in one process.
 */
const LOCAL_MAX_SOCKETS = 512;

/**
 * A DynamoDB Local is a JVM on the developer's machine: on a busy 2-core machine it pauses past
 * 1.2 s (a demo load under `npm start`, eight CLI imports at once, a test run), and a conditional
 * write answered that late is retried and then fails its own condition. So a client whose
 * endpoint is on this machine gives each attempt this long instead; the deployed functions,
 * which set no endpoint, keep the 1.2 s above.
 */
export const LOCAL_REQUEST_TIMEOUT_MS = 15_000;

/**
 * Likewise for connecting: when such a JVM is slow to accept, its accept queue fills, the kernel
 * drops the next SYN and the client sends it again only after a second, so a burst of new
 * connections (eight importers at once) failed the deployed 1 s on a loaded machine. A client of
 * a loopback endpoint waits through two such resends, whatever DYNAMODB_REQUEST_TIMEOUT_MS says
 * (the test run sets it for every worker; a frozen DynamoDB Local still accepts connections, so
 * the outage test's deployed 1.2 s per attempt is what it meets).
 */
export const LOCAL_CONNECTION_TIMEOUT_MS = 5_000;

/**
 * Overrides the per-attempt timeout (1-60000 ms) for any endpoint: how
 * test/integration/dynamodb-outage.test.ts runs a DynamoDB Local with the deployed 1.2 s. The
 * stack never sets it (test/cdk/functions.test.ts).
 */
export const REQUEST_TIMEOUT_ENV = 'DYNAMODB_REQUEST_TIMEOUT_MS';

type Env = Readonly<Record<string, string | undefined>>;

/** The per-attempt timeout for a client of `endpoint` (none: AWS). */
export const requestTimeoutMs = (env: Env = process.env, endpoint: string | undefined = env.DYNAMODB_ENDPOINT): number => {
  const raw = env[REQUEST_TIMEOUT_ENV];
  if (raw === undefined || raw === '') return isLocalEndpoint(endpoint) ? LOCAL_REQUEST_TIMEOUT_MS : SDK_REQUEST_TIMEOUT_MS;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 1 || ms > 60_000) throw new Error(`${REQUEST_TIMEOUT_ENV} must be a whole number of milliseconds (1-60000), got "${raw}"`);
  return ms;
};

/** The time an attempt is given to connect to `endpoint` (none: AWS). */
export const connectionTimeoutMs = (endpoint: string | undefined): number =>
  isLocalEndpoint(endpoint) ? LOCAL_CONNECTION_TIMEOUT_MS : SDK_CONNECTION_TIMEOUT_MS;

export interface DynamoClientSettings {
  /** DynamoDB Local's URL; none for AWS. */
  readonly endpoint?: string | undefined;
  readonly env?: Env;
}

/** Built once per container. `DYNAMODB_ENDPOINT` points it at DynamoDB Local. */
export const createDynamoClient = ({ endpoint, env = process.env }: DynamoClientSettings = { endpoint: process.env.DYNAMODB_ENDPOINT }): DynamoDBClient =>
  withoutCallLogging(
    new DynamoDBClient({
      maxAttempts: SDK_MAX_ATTEMPTS,
      requestHandler: {
        requestTimeout: requestTimeoutMs(env, endpoint),
        connectionTimeout: connectionTimeoutMs(endpoint),
        throwOnRequestTimeout: true,
        ...(endpoint ? { httpAgent: { keepAlive: true, maxSockets: LOCAL_MAX_SOCKETS } } : {}),
      },
      ...(endpoint ? localEndpointSettings(endpoint, env) : {}),
    }),
  );

/** The plain client, for libraries that marshal items themselves (the idempotency store). */
export const dynamoClient = tracer.captureAWSv3Client(createDynamoClient());
export const documentClient = DynamoDBDocumentClient.from(dynamoClient, { marshallOptions: { removeUndefinedValues: true } });

/** Read lazily so tests and the local runner can set it before the first call. */
export const tableName = (): string => {
  const name = process.env[TABLE_NAME_ENV];
  if (!name) throw new Error(`${TABLE_NAME_ENV} is not set`);
  return name;
};
