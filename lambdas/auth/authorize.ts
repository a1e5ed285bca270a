/**
 * Decides whether an Authorization header belongs to an enabled client.
 *
 * Failed-login policy (docs/security.md, "Failed logins"):
 * - Per user name and source address (auth/source-address.ts), in fixed windows of
 *   FAILURE_WINDOW_MS: every password check is counted BEFORE it runs, by one conditional
 *   UpdateItem that also refuses once MAX_FAILURES_PER_SOURCE checks are reserved
 *   (data/clients/login-attempts.ts). So a burst of any size from one source gets at most that many
 *   checks against the real hash. Once that many wrong passwords are counted, the source is
 *   refused for the rest of the window, even with the right password. A right password gives
 *   its reservation back and forgives the source's failures.
 * - Per user name over every source: never a lock, so a stranger cannot keep a client out.
 *   Once SLOWDOWN_AFTER_FAILURES wrong passwords are counted within FAILURE_WINDOW_MS of the
 *   first, each source gets only SLOWED_MAX_FAILURES_PER_SOURCE per window: guessing needs
 *   ever more addresses, while the client's own address, which does not fail, is unaffected.
 * - When the limit is taken by checks still running (a burst of the client's own requests),
 *   a request waits for a free slot for up to BUSY_WAIT_LIMIT_MS instead of being refused.
 * - A table error is never a failure: the request fails (500 from the gateway), and no check
 *   runs without its reservation.
 *
 * Timing: an unknown user name, a refused source and a wrong password all cost one GetItem,
 * one reservation UpdateItem, one scrypt derivation and then, side by side, the counting
 * UpdateItems (which, for an unknown user name, fail on `attribute_exists(pk)` of the client
 * item and write nothing), so response times do not tell which user names exist.
 */
import { createHash } from 'node:crypto';
import { addLoginFailure, getClient, startFailureWindow, type ClientRecord } from '../data/clients/clients.js';
import { recordLoginFailure, releaseLoginAttempt, reserveLoginAttempt, type LoginAttemptsSlot, type Reservation } from '../data/clients/login-attempts.js';
import { logger } from '../observability/logger.js';
import { parseBasicAuthorization } from './basic-credentials.js';
import { verifyAgainstDummy, verifyPassword } from './password.js';
import { sourceDigest } from './source-address.js';
import type { Tenant } from './tenant.js';
import { now as clockNow } from '../config/clock.js';

export const FAILURE_WINDOW_MS = 15 * 60 * 1000;
export const MAX_FAILURES_PER_SOURCE = 10;
export const SLOWDOWN_AFTER_FAILURES = 30;
export const SLOWED_MAX_FAILURES_PER_SOURCE = 3;
export const BUSY_WAIT_LIMIT_MS = 5_000;
/** Counters outlive their window by this much, so a check still running finds its item. */
const EXPIRY_MARGIN_MS = 60 * 60 * 1000;

/** Failed usernames may be mistyped passwords, so logs get a short digest instead. */
export const usernameDigest = (username: string): string => createHash('sha256').update(username, 'utf8').digest('hex').slice(0, 16);

/** Held in an object so that tests can replace the wait between reservation attempts. */
export const pauses = {
  beforeRetry: (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 60)),
};

/** Thrown when the limit stays taken by running checks for BUSY_WAIT_LIMIT_MS: a 500, not a 401. */
export class LoginBusyError extends Error {
  constructor() {
    super('Too many password checks for one user name and source are running');
    this.name = 'LoginBusyError';
  }
}

const windowFloor = (now: Date): Date => new Date(now.getTime() - FAILURE_WINDOW_MS);

/** Wrong passwords for the user name from every source in its open window. */
const recentFailures = (client: ClientRecord | undefined, now: Date): number =>
  client?.failureWindowStart !== undefined && client.failureWindowStart >= windowFloor(now).toISOString() ? (client.failedLogins ?? 0) : 0;

/** The per-source limit: lower while the user name as a whole keeps failing. */
export const perSourceLimit = (client: ClientRecord | undefined, now: Date): number =>
  recentFailures(client, now) >= SLOWDOWN_AFTER_FAILURES ? SLOWED_MAX_FAILURES_PER_SOURCE : MAX_FAILURES_PER_SOURCE;

export const loginSlot = (username: string, sourceIp: string | null | undefined, now: Date): LoginAttemptsSlot => {
  const window = Math.floor(now.getTime() / FAILURE_WINDOW_MS);
  return {
    username,
    source: sourceDigest(sourceIp),
    window,
    expiresAt: Math.ceil(((window + 1) * FAILURE_WINDOW_MS + EXPIRY_MARGIN_MS) / 1000),
  };
};

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

/** Reserves a check, waiting while running checks hold the limit; `limited` when the source is refused. */
const reserve = async (slot: LoginAttemptsSlot, limit: number): Promise<Reservation> => {
  const deadline = Date.now() + BUSY_WAIT_LIMIT_MS;
  for (;;) {
    const reservation = await reserveLoginAttempt(slot, limit);
    if (reservation.kind !== 'busy') return reservation;
    if (Date.now() >= deadline) throw new LoginBusyError();
    await pauses.beforeRetry();
  }
};

/**
 * Counts a failure for the user name over every source (on the client item). A window older
 * than FAILURE_WINDOW_MS restarts at 1; a concurrent restart makes this request add to the
 * fresh window instead. For an unknown user name both writes fail on their condition.
 */
const countUsernameFailure = async (username: string, client: ClientRecord | undefined, now: Date): Promise<void> => {
  const floor = windowFloor(now);
  const windowExpired = client?.failureWindowStart === undefined || client.failureWindowStart < floor.toISOString();
  if (windowExpired && (await startFailureWindow(username, now, floor))) return;
  if (client === undefined) return;
  const count = await addLoginFailure(username);
  if (count === SLOWDOWN_AFTER_FAILURES) {
    logger.warn('Repeated failed logins for one user name: fewer attempts per source', { user: usernameDigest(username), failedLogins: count });
  }
};

const countSourceFailure = async (slot: LoginAttemptsSlot, limit: number): Promise<void> => {
  const failures = await recordLoginFailure(slot);
  if (failures === limit) {
    logger.warn('Source refused after repeated failed logins', { user: usernameDigest(slot.username), source: slot.source, failures });
  }
};

/**
 * The answer to a wrong password is already decided (and its check was counted before it ran),
 * so a failed bookkeeping write is logged rather than turned into a 500.
 */
const safely = async (what: string, slot: LoginAttemptsSlot, work: () => Promise<void>): Promise<void> => {
  try {
    await work();
  } catch (error) {
    logger.warn(what, { user: usernameDigest(slot.username), errorName: (error as Error).name });
  }
};

const deny = (reason: string, slot?: LoginAttemptsSlot): undefined => {
  logger.info('Authentication failed', { reason, ...(slot === undefined ? {} : { user: usernameDigest(slot.username), source: slot.source }) });
  return undefined;
};

/**
 * The tenant the header authenticates, or undefined for 401. Throws only when the table
 * cannot be read or written (DynamoDB unavailable) or checks stay busy: a server error, not a
 * wrong password.
 */
export const authenticate = async (
  header: string | null | undefined,
  sourceIp: string | null | undefined,
  now: Date = new Date(clockNow()),
): Promise<AuthenticatedClient | undefined> => {
  const credentials = parseBasicAuthorization(header);
  if (credentials === undefined) return deny('malformed');
  const { username, password } = credentials;

  const client = await getClient(username);
  const slot = loginSlot(username, sourceIp, now);
  const limit = perSourceLimit(client, now);
  const reservation = await reserve(slot, limit);

  if (reservation.kind === 'limited') {
    await verifyAgainstDummy(password);
    await safely('Could not record a failed login', slot, () => countUsernameFailure(username, client, now));
    return deny('source-limited', slot);
  }
  const passwordMatches = client === undefined ? await verifyAgainstDummy(password) : await verifyPassword(password, client.password);
  if (client === undefined || !passwordMatches) {
    await Promise.all([
      safely('Could not record a failed login', slot, () => countSourceFailure(slot, limit)),
      safely('Could not record a failed login', slot, () => countUsernameFailure(username, client, now)),
    ]);
    return deny(client === undefined ? 'unknown-user' : 'wrong-password', slot);
  }

  await safely('Could not give back a login attempt', slot, () => releaseLoginAttempt(slot, reservation.failures));
  if (!client.enabled) return deny('disabled', slot);
  logger.info('Authenticated', { clientId: client.clientId });
  return toClient(client);
};
