import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';

/**
 * A DynamoDB endpoint on this machine (DynamoDB Local under `npm start`, the CLI and the tests):
 * how it is recognized and what its clients are built with. Nothing here runs on import, so the
 * local tools read it without loading the service's clients (dynamo.ts).
 */

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]']);

/** The one rule for "this endpoint is a DynamoDB Local": an http(s) URL on a loopback host. */
export const isLocalEndpoint = (endpoint: string | undefined): boolean => {
  if (!endpoint) return false;
  let host: string;
  try {
    host = new URL(endpoint).hostname.toLowerCase();
  } catch {
    return false;
  }
  return LOOPBACK_HOSTS.has(host) || /^127(\.\d{1,3}){3}$/.test(host);
};

/**
 * DynamoDB Local wants an `Authorization` header (it refuses a request without one) but checks
 * no signature, and computing SigV4's took about a third of a local client's CPU for a small
 * call (2,000 GetItems: 1.18 ms of node CPU each signed, 0.82 ms with this header). So a client
 * of a loopback endpoint sends the header's shape, with the scope a signature would name (the
 * key and region, which an instance without `-sharedDb` keeps its data under), and no signature.
 */
const loopbackSigner = (region: string): NonNullable<DynamoDBClientConfig['signer']> => {
  const authorization = `AWS4-HMAC-SHA256 Credential=local/20000101/${region}/dynamodb/aws4_request, SignedHeaders=host, Signature=0`;
  return {
    sign: (request) => {
      request.headers.authorization = authorization;
      return Promise.resolve(request);
    },
  };
};

/**
 * What a client of an endpoint other than AWS's is built with (the stack's functions set none):
 * fixed credentials and region, which any will do for, and on a loopback endpoint unsigned
 * requests (above). The service's client and the local tools' clients are built with these.
 */
export const localEndpointSettings = (endpoint: string, env: Readonly<Record<string, string | undefined>> = process.env) => {
  const region = env.AWS_REGION ?? 'local';
  return {
    endpoint,
    region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    ...(isLocalEndpoint(endpoint) ? { signer: loopbackSigner(region) } : {}),
  };
};
