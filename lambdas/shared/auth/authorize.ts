/**
 * Decides whether an Authorization header belongs to an enabled client.
 *
 * Lockout policy: after MAX_FAILED_LOGINS consecutive wrong passwords for one username within
 * FAILURE_WINDOW_MS of the first of them, the account is locked for LOCKOUT_DURATION_MS.
 * While locked, every attempt, even with the right password, is unauthorized and is not
 * counted. A successful login clears the count. Only failed password checks count: an error
 * reading the table (throttling included) is not a failure and never locks anyone out.
 *
 * Timing: an unknown username, a locked account and a wrong password all cost one GetItem, one
 * scrypt derivation and, except when locked, one conditional UpdateItem (which, for an unknown
 * username, fails on `attribute_exists(pk)` and writes nothing), so response times do not
 * tell which usernames exist.
 */
import { createHash } from 'node:crypto';
import {
  addLoginFailure,
  clearLoginFailures,
  getClient,
  lockClient,
  startFailureWindow,
  type ClientRecord,
} from '../data/clients.js';
import { logger } from '../logger.js';
import { parseBasicAuthorization } from './basic-credentials.js';
import { verifyAgainstDummy, verifyPassword } from './password.js';
import type { Tenant } from './tenant.js';

export const MAX_FAILED_LOGINS = 10;
export const FAILURE_WINDOW_MS = 15 * 60 * 1000;
export const LOCKOUT_DURATION_MS = 15 * 60 * 1000;

/** Failed usernames may be mistyped passwords, so logs get a short digest instead. */
export const usernameDigest = (username: string): string =>
  createHash('sha256').update(username, 'utf8').digest('hex').slice(0, 16);

export const isLocked = (client: ClientRecord, now: Date): boolean =>
  client.lockedUntil !== undefined && client.lockedUntil > now.toISOString();

const windowFloor = (now: Date): Date => new Date(now.getTime() - FAILURE_WINDOW_MS);

const hasFailureState = (client: ClientRecord): boolean =>
  (client.failedLogins ?? 0) > 0 || client.failureWindowStart !== undefined || client.lockedUntil !== undefined;

/** The tenant, and the API key that meters it in the usage plan (clients created before keys have none). */
export interface AuthenticatedClient extends Tenant {
  readonly usageKey?: string;
}

const toClient = (client: ClientRecord): AuthenticatedClient => ({
  clientId: client.clientId,
  username: client.username,
  sellerId: client.sellerId,
  defaultConnector: client.defaultConnector,
  ...(client.usageKey === undefined ? {} : { usageKey: client.usageKey }),
});

/**
 * Counts a wrong password. A window older than FAILURE_WINDOW_MS restarts at 1; a
 * concurrent restart makes this request add to the fresh window instead.
 */
const countFailure = async (username: string, client: ClientRecord | undefined, now: Date): Promise<void> => {
  const floor = windowFloor(now);
  const windowExpired = client?.failureWindowStart === undefined || client.failureWindowStart < floor.toISOString();
  if (windowExpired && (await startFailureWindow(username, now, floor))) return;
  if (client === undefined) return;
  const count = await addLoginFailure(username);
  if (count !== undefined && count >= MAX_FAILED_LOGINS) {
    await lockClient(username, new Date(now.getTime() + LOCKOUT_DURATION_MS));
    logger.warn('Client locked after repeated failed logins', { user: usernameDigest(username), failedLogins: count });
  }
};

/**
 * The answer to a wrong password is already decided, so a failed bookkeeping write is logged
 * rather than turned into a 500.
 */
const countFailureSafely = async (username: string, client: ClientRecord | undefined, now: Date): Promise<void> => {
  try {
    await countFailure(username, client, now);
  } catch (error) {
    logger.warn('Could not record a failed login', { user: usernameDigest(username), errorName: (error as Error).name });
  }
};

const deny = (reason: string, username?: string): undefined => {
  logger.info('Authentication failed', { reason, ...(username === undefined ? {} : { user: usernameDigest(username) }) });
  return undefined;
};

/**
 * The tenant the header authenticates, or undefined for 401. Throws only when the client
 * cannot be read (DynamoDB unavailable): that is a server error, not a wrong password.
 */
export const authenticate = async (header: string | null | undefined, now: Date = new Date()): Promise<AuthenticatedClient | undefined> => {
  const credentials = parseBasicAuthorization(header);
  if (credentials === undefined) return deny('malformed');
  const { username, password } = credentials;

  const client = await getClient(username);
  if (client === undefined) {
    await verifyAgainstDummy(password);
    await countFailureSafely(username, undefined, now);
    return deny('unknown-user', username);
  }
  if (isLocked(client, now)) {
    await verifyAgainstDummy(password);
    return deny('locked', username);
  }
  if (!(await verifyPassword(password, client.password))) {
    await countFailureSafely(username, client, now);
    return deny('wrong-password', username);
  }
  if (!client.enabled) return deny('disabled', username);

  if (hasFailureState(client)) {
    await clearLoginFailures(username).catch((error: unknown) => {
      logger.warn('Could not clear failed logins', { user: usernameDigest(username), errorName: (error as Error).name });
    });
  }
  logger.info('Authenticated', { clientId: client.clientId });
  return toClient(client);
};
