import { createHash } from 'node:crypto';
import type { KeyProvider, SealedValue } from '../../crypto/envelope.js';
import { openConnectionSecret } from '../../marketplace/secrets.js';

/**
 * A connection's marketplace webhook secret, opened once per container: a burst of events (a
 * price batch announces one per offer) costs one KMS Decrypt, not one each. Keyed by a digest
 * of the tenant, the connector and the sealed value, so a replaced secret (a new sealed value)
 * is opened afresh and the cache never holds the sealed text itself; bounded, oldest out first.
 */
const opened = new Map<string, string>();
export const MAX_OPENED_SECRETS = 200;

const cacheKeyOf = (clientId: string, connector: string, sealed: SealedValue): string =>
  createHash('sha256')
    .update(JSON.stringify([clientId, connector, sealed.v, sealed.key, sealed.iv, sealed.tag, sealed.data]))
    .digest('base64url');

export type WebhookSecretOpener = (clientId: string, connector: string, sealed: SealedValue) => Promise<string>;

export const openWebhookSecret =
  (provider?: KeyProvider): WebhookSecretOpener =>
  async (clientId, connector, sealed) => {
    const cacheKey = cacheKeyOf(clientId, connector, sealed);
    const cached = opened.get(cacheKey);
    if (cached !== undefined) return cached;
    const secret = await openConnectionSecret('marketplace-webhook-secret', clientId, connector, sealed, provider);
    if (opened.size >= MAX_OPENED_SECRETS) opened.delete(opened.keys().next().value as string);
    opened.set(cacheKey, secret);
    return secret;
  };

/** Tests: forget what was opened. */
export const forgetOpenedSecrets = (): void => opened.clear();
