import { KMSClient } from '@aws-sdk/client-kms';
import { tracer } from '../observability/tracer.js';
import type { KeyProvider } from './envelope.js';
import { kmsKeyProvider } from './kms-key-provider.js';
import { localKeyProvider } from './local-key-provider.js';

/**
 * Which key provider this process uses: KMS when the stack set SECRETS_KEY_ID (the key's ARN,
 * given only to the functions granted its use), the local provider when the local runtime set
 * LOCAL_SECRETS_KEY (64 hex digits). Neither: no secret can be sealed or opened, and the
 * first attempt says why (the modules still load, for the functions that never need one).
 */
export const SECRETS_KEY_ENV = 'SECRETS_KEY_ID';
export const LOCAL_SECRETS_KEY_ENV = 'LOCAL_SECRETS_KEY';

let chosen: KeyProvider | undefined;

export const keyProvider = (env: Readonly<Record<string, string | undefined>> = process.env): KeyProvider => {
  if (chosen) return chosen;
  const keyId = env[SECRETS_KEY_ENV];
  const localKey = env[LOCAL_SECRETS_KEY_ENV];
  if (keyId) {
    chosen = kmsKeyProvider(keyId, tracer.captureAWSv3Client(new KMSClient({})));
  } else if (localKey && /^[0-9a-f]{64}$/i.test(localKey)) {
    chosen = localKeyProvider(Buffer.from(localKey, 'hex'));
  } else {
    throw new Error(`Neither ${SECRETS_KEY_ENV} nor ${LOCAL_SECRETS_KEY_ENV} (64 hex digits) is set: secrets can be neither sealed nor opened`);
  }
  return chosen;
};

/** Tests: forget the provider chosen, so the next call reads the environment again. */
export const resetKeyProvider = (): void => {
  chosen = undefined;
};
