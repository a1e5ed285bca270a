/**
 * Client account administration, shared by the CLI and the local runner. Plaintext passwords
 * exist only in these calls' arguments and results; the table stores scrypt hashes.
 */
import { randomBytes } from 'node:crypto';
import { MAX_PASSWORD_LENGTH, MAX_USERNAME_LENGTH } from '../../lambdas/auth/basic-credentials.js';
import { hashPassword } from '../../lambdas/auth/password.js';
import {
  deleteClient,
  getClient,
  listUsernames,
  putNewClient,
  setEnabled,
  setPassword,
  setUsageKey,
  type ClientRecord,
} from '../../lambdas/data/clients/clients.js';
import { clearLoginAttempts } from '../../lambdas/data/clients/login-attempts.js';
import { TAKEALOT_CONNECTOR_UID } from '../../lambdas/marketplace/takealot/connector.js';

/** A client's connector unless `--connector` names another: the marketplace the service connects to. */
export const DEFAULT_CONNECTOR = TAKEALOT_CONNECTOR_UID;
/** A colon would end the username inside a Basic header; the rest keeps keys and logs tidy. */
export const USERNAME_PATTERN = /^[A-Za-z0-9._@-]+$/;
const MAX_ID_LENGTH = 64;
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

export interface NewClientAccount {
  readonly username: string;
  readonly password?: string;
  readonly sellerId?: string;
  readonly connector?: string;
}

export interface CreatedClientAccount {
  readonly username: string;
  /** Shown once: only its hash is stored. */
  readonly password: string;
  readonly clientId: string;
  readonly sellerId: string;
  readonly defaultConnector: string;
  /** The client's API key value: `clients create --stage` registers it in the stage's usage plan (docs/security.md). */
  readonly usageKey: string;
}

const BASE32_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** 80 random bits as 16 lower-case base32 characters: short, URL-safe, free of `#`. */
export const newClientId = (): string => [...randomBytes(16)].map((byte) => BASE32_ALPHABET[byte % 32]).join('');

/** 144 random bits. */
export const generatePassword = (): string => randomBytes(18).toString('base64url');

/** 160 random bits as 40 hex characters: API Gateway wants API key values of at least 20. */
export const generateUsageKey = (): string => randomBytes(20).toString('hex');

const newSellerId = (): string => `seller-${randomBytes(6).toString('hex')}`;

export const validateUsername = (username: string): void => {
  if (username.length < 1 || username.length > MAX_USERNAME_LENGTH || !USERNAME_PATTERN.test(username)) {
    throw new Error(`Invalid username: use 1-${MAX_USERNAME_LENGTH} characters from A-Z a-z 0-9 . _ @ -`);
  }
};

export const validatePassword = (password: string): void => {
  if (password.length < 1 || password.length > MAX_PASSWORD_LENGTH || CONTROL_CHARACTER.test(password)) {
    throw new Error(`Invalid password: use 1-${MAX_PASSWORD_LENGTH} characters and no control characters`);
  }
};

const validateId = (label: string, value: string): void => {
  if (value.trim() !== value || value.length < 1 || value.length > MAX_ID_LENGTH || CONTROL_CHARACTER.test(value)) {
    throw new Error(`Invalid ${label}: use 1-${MAX_ID_LENGTH} characters without surrounding spaces`);
  }
};

/** Throws when the input is invalid or the username is taken (ClientExistsError). */
export const createClientAccount = async (account: NewClientAccount): Promise<CreatedClientAccount> => {
  const { username } = account;
  const password = account.password ?? generatePassword();
  const sellerId = account.sellerId ?? newSellerId();
  const defaultConnector = account.connector ?? DEFAULT_CONNECTOR;
  validateUsername(username);
  validatePassword(password);
  validateId('seller id', sellerId);
  validateId('connector', defaultConnector);

  const clientId = newClientId();
  const usageKey = generateUsageKey();
  await putNewClient({ username, clientId, sellerId, defaultConnector, usageKey, password: await hashPassword(password) }, new Date());
  return { username, password, clientId, sellerId, defaultConnector, usageKey };
};

const unknownClient = (username: string) => new Error(`No client with username "${username}"`);

export const setClientEnabled = async (username: string, enabled: boolean): Promise<void> => {
  if (!(await setEnabled(username, enabled, new Date()))) throw unknownClient(username);
};

/** Also forgets the user name's failed logins, so a source refused after failures is let in again. */
export const changePassword = async (username: string, newPassword: string): Promise<void> => {
  validatePassword(newPassword);
  if (!(await setPassword(username, await hashPassword(newPassword), new Date()))) throw unknownClient(username);
  await clearLoginAttempts(username);
};

/** What an operator may see of a client: everything but the password hash. */
export interface ClientSummary {
  readonly username: string;
  readonly clientId: string;
  readonly sellerId: string;
  readonly defaultConnector: string;
  readonly enabled: boolean;
  readonly usageKey: string | undefined;
  /** Wrong passwords in the user name's current failure window (every source). */
  readonly failedLogins: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

const summaryOf = (client: ClientRecord): ClientSummary => ({
  username: client.username,
  clientId: client.clientId,
  sellerId: client.sellerId,
  defaultConnector: client.defaultConnector,
  enabled: client.enabled,
  usageKey: client.usageKey,
  failedLogins: client.failedLogins ?? 0,
  createdAt: client.createdAt,
  updatedAt: client.updatedAt,
});

export const findClient = async (username: string): Promise<ClientSummary | undefined> => {
  const client = await getClient(username);
  return client && summaryOf(client);
};

export const showClient = async (username: string): Promise<ClientSummary> => {
  const client = await findClient(username);
  if (!client) throw unknownClient(username);
  return client;
};

/** Every client, by user name, from the `directory` index. */
export const listClients = async (): Promise<ClientSummary[]> => {
  const usernames = (await listUsernames()).sort();
  const clients = await Promise.all(usernames.map((username) => getClient(username)));
  return clients.flatMap((client) => (client ? [summaryOf(client)] : []));
};

/** A new generated password (shown once); the old one stops working at once, the authorizer's 60 s cache aside. */
export const rotatePassword = async (username: string): Promise<string> => {
  const password = generatePassword();
  await changePassword(username, password);
  return password;
};

/** The client's usage key, created now for a client from before usage keys. */
export const ensureUsageKey = async (username: string): Promise<string> => {
  const client = await showClient(username);
  if (client.usageKey) return client.usageKey;
  await setUsageKey(username, generateUsageKey(), new Date());
  const updated = await showClient(username);
  if (!updated.usageKey) throw new Error(`Could not give ${username} a usage key`);
  return updated.usageKey;
};

/** Removes the account: the client item and its login-attempt counters. Its tenant's data stays. */
export const deleteClientAccount = async (username: string): Promise<void> => {
  if (!(await deleteClient(username))) throw unknownClient(username);
  await clearLoginAttempts(username);
};

export { ClientExistsError } from '../../lambdas/data/clients/clients.js';
