import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { PasswordRecord } from '../../domain/password-record.js';
import { directoryValues } from '../table/directory.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { CLIENTS_DIRECTORY, clientDirectoryEntry, clientKey } from '../table/keys.js';
import { isConditionFailure } from '../table/conditions.js';

/**
 * Client accounts: one item per username at `clientKey(username)`. It also counts the user
 * name's failed logins over every source (`failedLogins` since `failureWindowStart`, an ISO 8601
 * UTC string, which compares correctly as a string in condition expressions); the counters per
 * source address are items of their own in the same partition (data/clients/login-attempts.ts).
 */
const passwordRecordSchema = z.object({
  algorithm: z.literal('scrypt'),
  // Bounded so a damaged item cannot make one verification take seconds or gigabytes.
  N: z
    .number()
    .int()
    .min(1024)
    .max(1_048_576)
    .refine((n) => (n & (n - 1)) === 0, 'N must be a power of two'),
  r: z.number().int().min(1).max(32),
  p: z.number().int().min(1).max(16),
  keyLength: z.number().int().min(16).max(64),
  salt: z.base64(),
  hash: z.base64(),
});

const clientItemSchema = z.object({
  entity: z.literal('client'),
  username: z.string().min(1),
  clientId: z.string().min(1),
  sellerId: z.string().min(1),
  defaultConnector: z.string().min(1),
  enabled: z.boolean(),
  password: passwordRecordSchema,
  failedLogins: z.number().int().min(0).optional(),
  failureWindowStart: z.iso.datetime().optional(),
  /** The API key value of the client in the stage's usage plan, handed to API Gateway by the authorizer. */
  usageKey: z.string().min(20).max(128).optional(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

export type ClientRecord = z.output<typeof clientItemSchema>;

export interface NewClient {
  readonly username: string;
  readonly clientId: string;
  readonly sellerId: string;
  readonly defaultConnector: string;
  readonly password: PasswordRecord;
  readonly usageKey?: string;
}

export class ClientExistsError extends Error {
  constructor(username: string) {
    super(`A client with username "${username}" already exists`);
    this.name = 'ClientExistsError';
  }
}

/** Runs a conditional write; `false` when its condition did not hold. */
const conditionally = async (write: () => Promise<unknown>): Promise<boolean> => {
  try {
    await write();
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

export const getClient = async (username: string): Promise<ClientRecord | undefined> => {
  const { Item } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: clientKey(username) }));
  if (Item === undefined) return undefined;
  const parsed = clientItemSchema.safeParse(Item);
  if (!parsed.success) throw new Error('Stored client item is not valid', { cause: z.prettifyError(parsed.error) });
  return parsed.data;
};

/** Throws ClientExistsError when the username is taken. */
export const putNewClient = async (client: NewClient, now: Date): Promise<void> => {
  const timestamp = now.toISOString();
  const created = await conditionally(() =>
    documentClient.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...clientKey(client.username),
          ...clientDirectoryEntry(client.username),
          entity: 'client',
          ...client,
          enabled: true,
          createdAt: timestamp,
          updatedAt: timestamp,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
  if (!created) throw new ClientExistsError(client.username);
};

/** Names are always aliased: `password` is a DynamoDB reserved word. */
const ATTRIBUTE_NAMES = {
  '#enabled': 'enabled',
  '#password': 'password',
  '#failedLogins': 'failedLogins',
  '#failureWindowStart': 'failureWindowStart',
  '#lockedUntil': 'lockedUntil',
  '#updatedAt': 'updatedAt',
  '#usageKey': 'usageKey',
} as const;

/** Only the aliases an expression uses may be sent, or DynamoDB rejects the request. */
const namesUsedIn = (...expressions: string[]): Record<string, string> => {
  const text = expressions.join(' ');
  return Object.fromEntries(Object.entries(ATTRIBUTE_NAMES).filter(([alias]) => new RegExp(`${alias}\\b`).test(text)));
};

interface ClientUpdate {
  readonly update: string;
  readonly values?: Record<string, unknown>;
  /** Always combined with `attribute_exists(pk)`, so no update creates a client. */
  readonly condition?: string;
  readonly returnUpdated?: boolean;
}

const updateCommand = (username: string, { update, values, condition, returnUpdated }: ClientUpdate) => {
  const fullCondition = condition ? `attribute_exists(pk) AND (${condition})` : 'attribute_exists(pk)';
  return new UpdateCommand({
    TableName: tableName(),
    Key: clientKey(username),
    UpdateExpression: update,
    ConditionExpression: fullCondition,
    ExpressionAttributeNames: namesUsedIn(update, fullCondition),
    ...(values ? { ExpressionAttributeValues: values } : {}),
    ...(returnUpdated ? { ReturnValues: 'UPDATED_NEW' as const } : {}),
  });
};

/** `false` when there is no such client (or the extra condition did not hold). */
const updateExisting = (username: string, update: ClientUpdate): Promise<boolean> => conditionally(() => documentClient.send(updateCommand(username, update)));

export const setEnabled = (username: string, enabled: boolean, now: Date): Promise<boolean> =>
  updateExisting(username, {
    update: 'SET #enabled = :enabled, #updatedAt = :now',
    values: { ':enabled': enabled, ':now': now.toISOString() },
  });

/** Gives a client created before usage keys existed one (a no-op condition for the others). */
export const setUsageKey = (username: string, usageKey: string, now: Date): Promise<boolean> =>
  updateExisting(username, {
    update: 'SET #usageKey = :usageKey, #updatedAt = :now',
    values: { ':usageKey': usageKey, ':now': now.toISOString() },
    condition: 'attribute_not_exists(#usageKey)',
  });

/**
 * Removes the client item (and with it its `directory` entry); its login-attempt items are
 * cleared by data/clients/login-attempts.ts. `false` when there was no such client.
 */
export const deleteClient = (username: string): Promise<boolean> =>
  conditionally(() =>
    documentClient.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: clientKey(username),
        ConditionExpression: 'attribute_exists(pk)',
      }),
    ),
  );

/**
 * A new password also forgets the user name's failed logins (and the `lockedUntil` of items
 * written before lockouts were replaced by per-source limits): an administrator vouched for
 * the owner. The per-source counters are cleared by data/clients/login-attempts.ts.
 */
export const setPassword = (username: string, password: PasswordRecord, now: Date): Promise<boolean> =>
  updateExisting(username, {
    update: 'SET #password = :password, #updatedAt = :now REMOVE #failedLogins, #failureWindowStart, #lockedUntil',
    values: { ':password': password, ':now': now.toISOString() },
  });

/**
 * Opens a new failure window with a count of 1, unless another request opened one since
 * `windowFloor`. `false` when the client is missing or a window is already open.
 */
export const startFailureWindow = (username: string, now: Date, windowFloor: Date): Promise<boolean> =>
  updateExisting(username, {
    update: 'SET #failedLogins = :one, #failureWindowStart = :now',
    values: { ':one': 1, ':now': now.toISOString(), ':floor': windowFloor.toISOString() },
    condition: 'attribute_not_exists(#failureWindowStart) OR #failureWindowStart < :floor',
  });

/** Counts one more failure in the open window: the new count, or undefined when the client is missing. */
export const addLoginFailure = async (username: string): Promise<number | undefined> => {
  try {
    const { Attributes } = await documentClient.send(
      updateCommand(username, {
        update: 'ADD #failedLogins :one',
        values: { ':one': 1 },
        returnUpdated: true,
      }),
    );
    const count: unknown = Attributes?.failedLogins;
    return typeof count === 'number' ? count : undefined;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
};

/** Every client's username, from the keys-only `directory` index (administration, not requests). */
export const listUsernames = (): Promise<string[]> => directoryValues(CLIENTS_DIRECTORY);
