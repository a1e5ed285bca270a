import { keyProvider } from '../crypto/key-provider.js';
import { open, seal, type KeyProvider, type SealedValue } from '../crypto/envelope.js';
import { logger } from '../observability/logger.js';

/**
 * Webhook signing secrets at rest: sealed (crypto/envelope.ts) when the webhook is created, and
 * opened by the webhook worker to sign. The context binds a sealed secret to its purpose and
 * tenant. Only those two functions may use the key (the stack's grants).
 */
const contextOf = (clientId: string) => ({ purpose: 'webhook-signing-secret', clientId });

export const sealWebhookSecret = (clientId: string, secret: string, provider: KeyProvider = keyProvider()): Promise<SealedValue> =>
  seal(provider, secret, contextOf(clientId));

/** What the worker knows of a webhook's secret as stored. */
export interface StoredSecret {
  readonly clientId: string;
  readonly webhookId: number;
  /** Sealed: every webhook created since secrets are encrypted. */
  readonly sealedSecret?: SealedValue | undefined;
  /** In the clear: a webhook created before; still used to sign, so its receiver keeps working. */
  readonly secret?: string | undefined;
}

export type OpenedSecret = { readonly ok: true; readonly secret: string } | { readonly ok: false };

/** Opened secrets by tenant, webhook and sealed data key: a sealed value never changes, so one unwrap serves every later delivery. */
const opened = new Map<string, string>();
const MAX_OPENED = 500;

/**
 * The secret to sign with, or `ok: false` when it cannot be read (a sealed value that does not
 * open, an item with none): the attempt then fails as any other and is retried, and the
 * worker goes on with the other webhooks. Never throws.
 */
export const openWebhookSecret = async (stored: StoredSecret, provider?: KeyProvider): Promise<OpenedSecret> => {
  const { clientId, webhookId, sealedSecret } = stored;
  if (sealedSecret) {
    const cacheKey = `${clientId}#${webhookId}#${sealedSecret.key}`;
    const cached = opened.get(cacheKey);
    if (cached !== undefined) return { ok: true, secret: cached };
    try {
      const secret = await open(provider ?? keyProvider(), sealedSecret, contextOf(clientId));
      if (opened.size >= MAX_OPENED) opened.delete(opened.keys().next().value as string);
      opened.set(cacheKey, secret);
      return { ok: true, secret };
    } catch (error) {
      logger.error('A webhook signing secret could not be opened', { clientId, webhookId, errorName: (error as Error).name });
      return { ok: false };
    }
  }
  if (stored.secret !== undefined) {
    logger.warn('A webhook signing secret is stored in the clear (created before secrets were encrypted)', { clientId, webhookId });
    return { ok: true, secret: stored.secret };
  }
  logger.error('A webhook has no signing secret', { clientId, webhookId });
  return { ok: false };
};
