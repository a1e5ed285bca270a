import { GetCommand, UpdateCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import type { PriceChange, PriceChangeStatus } from '../../domain/records.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { priceChangeFeedKey, priceChangePartition } from '../table/keys.js';
import { PRICE_CHANGE_SCHEMA_VERSION, storedPriceChange, type StoredPriceChange } from './list.js';
import { isConditionFailure } from '../table/conditions.js';

/**
 * A price change's way to the marketplace, written on its canonical item (one write per step;
 * the lists follow from the stream). Every step is conditional on the status it leaves, so two
 * senders, a redelivered message or a client's apply racing the sender can never both move it.
 *
 * Beside the record, the item carries what only the sender needs: the batch it went out in,
 * the token of a push that may or may not have reached the marketplace (written before the
 * request, cleared with the outcome; kept while the outcome is in doubt), and when to try again
 * after a fault.
 */
export interface PriceChangeRef {
  readonly productCode: string;
  readonly sk: string;
}

export interface SenderState {
  /** The marketplace's batch id of the last push. */
  readonly batchId?: string;
  /** Set just before a push, cleared when its outcome is recorded: a crash in between leaves it. */
  readonly pushToken?: string;
  readonly pushStartedAt?: string;
  /** Faults met so far, and not before when the next push may be tried. */
  readonly attempts?: number;
  readonly retryAt?: string;
  /** The price of the push in flight (with `pushToken`): what to look for when its outcome was lost. */
  readonly pushPrice?: number;
  /** The UTC day the push was counted on toward the offer's daily cap: where it is given back if the marketplace did not take it. */
  readonly pushDay?: string;
  /** Asked for by the client's apply (suggest mode): sent whatever the connection's mode. */
  readonly requested?: boolean;
  /** A step of a capped move the marketplace confirmed: where the next step starts. */
  readonly confirmedPrice?: number;
}

export interface StoredSendable extends SenderState {
  readonly stored: StoredPriceChange;
  readonly ref: PriceChangeRef;
}

type Item = Record<string, NativeAttributeValue>;

const UPGRADED_FIELDS = ['status_reason', 'sent_price', 'sent_at', 'applied_at'] as const;
const SENDER_FIELDS = ['batchId', 'pushToken', 'pushStartedAt', 'pushPrice', 'pushDay', 'attempts', 'retryAt', 'requested', 'confirmedPrice'] as const;

export const senderStateOf = (item: Item): SenderState => {
  const state: Record<string, unknown> = {};
  for (const field of SENDER_FIELDS) if (item[field] !== undefined) state[field] = item[field];
  return state as SenderState;
};

export const priceChangeItemKey = (clientId: string, ref: PriceChangeRef) => ({ pk: priceChangePartition(clientId, ref.productCode), sk: ref.sk });

export const readSendable = async (clientId: string, ref: PriceChangeRef): Promise<StoredSendable | undefined> => {
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: priceChangeItemKey(clientId, ref), ConsistentRead: true }));
  if (!result.Item) return undefined;
  return { stored: storedPriceChange.parse(result.Item), ref, ...senderStateOf(result.Item) };
};

export type RecordFields = Partial<Pick<PriceChange, 'status_reason' | 'sent_price' | 'sent_at' | 'applied_at' | 'new_price'>>;

export interface Transition {
  /** The statuses it may leave; none moves it when it has another. */
  readonly from: readonly PriceChangeStatus[];
  /** Undefined: the status stays (only fields and sender state change). */
  readonly to?: PriceChangeStatus;
  readonly fields?: RecordFields;
  /** Sender state to set; `null` removes a field. */
  readonly sender?: { readonly [K in keyof SenderState]?: SenderState[K] | null };
  /** Only when the push token is still this one (a crashed push's outcome is recorded once). */
  readonly token?: string;
  readonly now: string;
}

/** Moves one price change; its record after, or undefined when its status (or token) was not what the move expects, or it is gone. */
export const transitionPriceChange = async (clientId: string, ref: PriceChangeRef, move: Transition): Promise<PriceChange | undefined> => {
  const names: Record<string, string> = { '#r': 'record', '#status': 'status', '#sv': 'sv' };
  const values: Record<string, NativeAttributeValue> = { ':sv': PRICE_CHANGE_SCHEMA_VERSION };
  const sets = ['#sv = :sv'];
  // Only a change of the record is news to the lists (a push's token is the sender's alone).
  if (move.to !== undefined || Object.keys(move.fields ?? {}).length > 0) {
    names['#updated'] = 'updated_at';
    values[':now'] = move.now;
    sets.push('#r.#updated = :now');
    // ... and to a poller of the update feed (PRICE_CHANGE_FEED_INDEX): the entry moves to the new time.
    const feed = priceChangeFeedKey(clientId, move.now, ref.productCode, ref.sk);
    names['#chgPk'] = 'chgPk';
    names['#chgSk'] = 'chgSk';
    values[':chgPk'] = feed.chgPk;
    values[':chgSk'] = feed.chgSk;
    sets.push('#chgPk = :chgPk', '#chgSk = :chgSk');
  } else {
    names['#updated'] = 'updated_at';
    sets.push('#r.#updated = if_not_exists(#r.#updated, #r.created_at)');
  }
  const removes: string[] = [];
  if (move.to !== undefined) {
    sets.push('#r.#status = :to');
    values[':to'] = move.to;
  } else {
    sets.push('#r.#status = if_not_exists(#r.#status, :suggested)');
    values[':suggested'] = 'suggested';
  }
  const fields: Record<string, unknown> = move.fields ?? {};
  // An item of the first version gains the fields it lacks (it reads as `suggested`, never sent).
  const upgraded = UPGRADED_FIELDS.filter((field) => !(field in fields));
  Object.entries(fields).forEach(([field, value], n) => {
    names[`#f${n}`] = field;
    values[`:f${n}`] = value;
    sets.push(`#r.#f${n} = :f${n}`);
  });
  if (upgraded.length > 0) values[':null'] = null;
  upgraded.forEach((field, n) => {
    names[`#u${n}`] = field;
    sets.push(`#r.#u${n} = if_not_exists(#r.#u${n}, :null)`);
  });
  Object.entries(move.sender ?? {}).forEach(([field, value], n) => {
    names[`#s${n}`] = field;
    if (value === null) removes.push(`#s${n}`);
    else {
      values[`:s${n}`] = value;
      sets.push(`#s${n} = :s${n}`);
    }
  });
  const from = move.from.map((_status, n) => `:from${n}`);
  move.from.forEach((status, n) => (values[`:from${n}`] = status));
  const unversioned = move.from.includes('suggested') ? ' OR attribute_not_exists(#r.#status)' : '';
  let condition = `attribute_exists(pk) AND (#r.#status IN (${from.join(', ')})${unversioned})`;
  if (move.token !== undefined) {
    names['#token'] = 'pushToken';
    values[':token'] = move.token;
    condition += ' AND #token = :token';
  }
  try {
    const result = await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: priceChangeItemKey(clientId, ref),
        UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return storedPriceChange.parse(result.Attributes).record;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
};
