import { keyProvider } from '../crypto/key-provider.js';
import { open, seal, type KeyProvider, type SealedValue } from '../crypto/envelope.js';

/**
 * A connection's secrets at rest: the seller's marketplace API key and the marketplace's webhook
 * secret, sealed (crypto/envelope.ts) by the function that stores a connection and opened only
 * by those that talk to the marketplace. The context binds each to its purpose, tenant and
 * connector, so a sealed value copied to another connection or tenant does not open.
 */
export type ConnectionSecretPurpose = 'marketplace-key' | 'marketplace-webhook-secret';

const contextOf = (purpose: ConnectionSecretPurpose, clientId: string, connector: string) => ({ purpose, clientId, connector });

export const sealConnectionSecret = (
  purpose: ConnectionSecretPurpose,
  clientId: string,
  connector: string,
  secret: string,
  provider: KeyProvider = keyProvider(),
): Promise<SealedValue> => seal(provider, secret, contextOf(purpose, clientId, connector));

export const openConnectionSecret = (
  purpose: ConnectionSecretPurpose,
  clientId: string,
  connector: string,
  sealed: SealedValue,
  provider: KeyProvider = keyProvider(),
): Promise<string> => open(provider, sealed, contextOf(purpose, clientId, connector));
