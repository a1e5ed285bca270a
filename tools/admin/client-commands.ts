import {
  createClientAccount,
  deleteClientAccount,
  ensureUsageKey,
  findClient,
  setClientEnabled,
  showClient,
  type ClientSummary,
  type CreatedClientAccount,
  type NewClientAccount,
} from './clients.js';
import { AUTHORIZER } from '../../lambdas/config/routes.js';
import { purgeTenant, type PurgeOptions, type PurgeResult } from './purge.js';
import type { UsageKeys, UsageKeyState } from './usage-keys.js';

/**
 * The `clients` commands: the table side (./clients.ts) and, with `--stage`, the client's API
 * key in the stage's usage plan (./usage-keys.ts). Without a stage (`keys` undefined) there is
 * no API Gateway: the local server meters nobody.
 */
export type KeyOutcome =
  | { readonly kind: 'none' }
  | { readonly kind: 'registered' | 'enabled' | 'disabled' | 'deleted'; readonly id?: string }
  /** The client has no usage key, or API Gateway has no key with its value. */
  | { readonly kind: 'missing' };

const NO_STAGE: KeyOutcome = { kind: 'none' };

export class KeyRegistrationError extends Error {
  constructor(
    readonly account: CreatedClientAccount,
    cause: unknown,
  ) {
    super(
      `Client ${account.username} was created, but its API key could not be registered in the usage plan ` +
        `(${cause instanceof Error ? cause.message : String(cause)}); run \`clients enable ${account.username}\` with the same --stage to retry`,
      { cause },
    );
    this.name = 'KeyRegistrationError';
  }
}

export const createClientCommand = async (
  input: NewClientAccount,
  keys: UsageKeys | undefined,
): Promise<{ account: CreatedClientAccount; key: KeyOutcome }> => {
  const account = await createClientAccount(input);
  if (!keys) return { account, key: NO_STAGE };
  try {
    const { id } = await keys.register(account.username, account.usageKey);
    return { account, key: { kind: 'registered', id } };
  } catch (error) {
    throw new KeyRegistrationError(account, error);
  }
};

export interface ShownClient {
  readonly client: ClientSummary;
  /** With a stage: the API key's state in API Gateway, or null when it has none. */
  readonly key: UsageKeyState | null | undefined;
}

export const showClientCommand = async (username: string, keys: UsageKeys | undefined): Promise<ShownClient> => {
  const client = await showClient(username);
  if (!keys) return { client, key: undefined };
  const key = client.usageKey ? await keys.find(username, client.usageKey) : undefined;
  return { client, key: key ?? null };
};

/** Refuses requests from the next authorizer call on (its cache aside), and stops metering the key. */
export const disableClientCommand = async (username: string, keys: UsageKeys | undefined): Promise<KeyOutcome> => {
  await setClientEnabled(username, false);
  if (!keys) return NO_STAGE;
  const client = await showClient(username);
  const key = client.usageKey ? await keys.find(username, client.usageKey) : undefined;
  if (!key) return { kind: 'missing' };
  await keys.setEnabled(key.id, false);
  return { kind: 'disabled', id: key.id };
};

/**
 * Re-enables the client and, with a stage, makes sure its key exists, is enabled and is in the
 * usage plan: also how a failed registration is retried, and how a client from before usage
 * keys gets one.
 */
export const enableClientCommand = async (username: string, keys: UsageKeys | undefined): Promise<KeyOutcome> => {
  let outcome: KeyOutcome = NO_STAGE;
  if (keys) {
    const { id } = await keys.register(username, await ensureUsageKey(username));
    outcome = { kind: 'enabled', id };
  }
  await setClientEnabled(username, true);
  return outcome;
};

export interface DeleteOptions extends PurgeOptions {
  readonly purge: boolean;
}

export interface DeletedClient {
  readonly clientId: string;
  readonly key: KeyOutcome;
  /** Set when the tenant's data was purged. */
  readonly purged?: PurgeResult;
}

/**
 * Removes the account and, with a stage, its API key. With `purge`, the client is disabled
 * first (the authorizer refuses it, so it writes nothing meanwhile; on a stage the purge goes
 * on until API Gateway's cached authorizations of it have expired), then its tenant's items are deleted, then the
 * account: a purge that fails leaves a disabled client, and running the command again finishes it.
 */
export const deleteClientCommand = async (username: string, keys: UsageKeys | undefined, options: DeleteOptions): Promise<DeletedClient> => {
  const client = await findClient(username);
  if (!client) throw new Error(`No client with username "${username}"`);
  if (options.purge) await setClientEnabled(username, false);
  // From here the authorizer refuses the client; a stage's API Gateway may still serve a
  // cached authorization of it until the cache entry expires.
  const disabledAt = Date.now();
  let key: KeyOutcome = NO_STAGE;
  if (keys) key = client.usageKey && (await keys.remove(username, client.usageKey)) ? { kind: 'deleted' } : { kind: 'missing' };
  const quietFrom = keys ? disabledAt + AUTHORIZER.resultsCacheTtlSeconds * 1000 : 0;
  const purged = options.purge ? await purgeTenant(client.clientId, { quietFrom, ...options }) : undefined;
  await deleteClientAccount(username);
  return { clientId: client.clientId, key, ...(purged ? { purged } : {}) };
};
