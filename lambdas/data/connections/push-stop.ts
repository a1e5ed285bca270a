import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { documentClient, tableName } from '../table/dynamo.js';
import { pushStopKey } from '../table/keys.js';
import { nowIso } from '../../config/clock.js';

/**
 * The operator's stop of every price push of the stage (docs/administration.md, "Stopping every
 * push"): one item outside every tenant, set and lifted by the admin CLI, read by the price
 * sender (a consistent read) each time it reads a connection before a push. While it is set the
 * sender treats every connection as closed: its changes stay `pending` and go once it is lifted,
 * after the same checks as any other push. The item stays after a resume, as a record of the last
 * stop (`stopped: false`).
 */
const pushStop = z.object({
  entity: z.literal('pushStop'),
  stopped: z.boolean(),
  reason: z.string(),
  /** When it was last set or lifted. */
  changedAt: z.string(),
  /** When the stop in force (or the last one) began. */
  stoppedAt: z.string(),
});
export type PushStop = Omit<z.infer<typeof pushStop>, 'entity'>;

/** The stop as stored; undefined when no operator ever stopped pushes on this stage. */
export const readPushStop = async (): Promise<PushStop | undefined> => {
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: pushStopKey(), ConsistentRead: true }));
  // Only stopPushes writes this key: whatever else a read finds there is no stop.
  if (result.Item?.entity !== 'pushStop') return undefined;
  const { entity: _entity, ...stop } = pushStop.parse(result.Item);
  return stop;
};

/** Whether the operator has stopped every push of the stage now. */
export const pushesStopped = async (): Promise<boolean> => (await readPushStop())?.stopped === true;

/** Stops every push of the stage, with the operator's reason; a stop in force keeps when it began. */
export const stopPushes = async (reason: string, now = nowIso()): Promise<PushStop> => {
  const before = await readPushStop();
  const stop: PushStop = { stopped: true, reason, changedAt: now, stoppedAt: before?.stopped ? before.stoppedAt : now };
  await documentClient.send(new PutCommand({ TableName: tableName(), Item: { ...pushStopKey(), entity: 'pushStop', ...stop } }));
  return stop;
};

/** Lifts the stop: the pending changes go on the sender's next run. Undefined when pushes were not stopped. */
export const resumePushes = async (now = nowIso()): Promise<PushStop | undefined> => {
  const before = await readPushStop();
  if (!before?.stopped) return undefined;
  const stop: PushStop = { ...before, stopped: false, changedAt: now };
  await documentClient.send(new PutCommand({ TableName: tableName(), Item: { ...pushStopKey(), entity: 'pushStop', ...stop } }));
  return stop;
};
