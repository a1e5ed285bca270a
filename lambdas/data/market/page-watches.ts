import { createHash } from 'node:crypto';
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { DUE_INDEX } from '../../config/table-schema.js';
import type { ReadPlannerSettings } from '../../config/read-planner.js';
import { afterLook, broughtForward, nextLookAt, withWatcher, type VariantWatch, type Watcher } from '../../domain/read-planner/watch-state.js';
import { isConditionFailure } from '../table/conditions.js';
import { documentClient, tableName } from '../table/dynamo.js';
import { dueShardPartition, pageWatchKey } from '../table/keys.js';

/**
 * Storefront pages watched (docs/market-loop.md): one item per connector and product line,
 * shared by every tenant that sells a product of it, so the page is read once per look for all of
 * them. It holds who watches (`<clientId>|<code>` entries, and which of them a repricer prices),
 * what the planner knows (last look, how often the market moved, whether the buy box is
 * contested, a look brought forward and by whom) and the next look's time in the sparse `due`
 * index. Watchers are string sets, added and removed atomically by each tenant's own writes, so
 * tenants never overwrite each other; the planner's fields are written by the look that learnt
 * them, guarded by the due key it read.
 */
export const DUE_SHARDS = 16;

const moves = z.object({ moves: z.number().nonnegative(), observedMs: z.number().nonnegative() });
const stringSet = z
  .custom<Set<string>>((value) => value instanceof Set)
  .optional()
  .transform((value) => value ?? new Set<string>());

const storedPageWatch = z.object({
  connector: z.string(),
  productLineId: z.string(),
  watchers: stringSet,
  repricedBy: stringSet,
  lastLookAt: z.number().nullable().default(null),
  scheduledAt: z.number(),
  scheduledReasons: z.int().default(0),
  forwardAt: z.number().nullable().default(null),
  forwardReasons: z.int().default(0),
  forwardBy: stringSet,
  moves: moves.default({ moves: 0, observedMs: 0 }),
  contested: z.boolean().default(false),
  /** A digest of what the last look saw of the market: a different one next time is a move. */
  marketPrint: z.string().optional(),
  dueSk: z.string(),
});

/** One tenant's product on a page. */
export interface PageWatcher {
  readonly clientId: string;
  readonly code: string;
}

export interface PageWatch {
  readonly connector: string;
  readonly productLineId: string;
  readonly watchers: readonly PageWatcher[];
  /** What the planner's rule reads: the page's tenants (each once) and its timing. */
  readonly watch: VariantWatch;
  readonly marketPrint?: string;
  /** The due key as read: a write that plans from this state is made only while it still holds. */
  readonly dueSk: string;
}

const watcherEntry = (watcher: PageWatcher): string => `${watcher.clientId}|${encodeURIComponent(watcher.code)}`;
const watcherOf = (entry: string): PageWatcher => {
  const at = entry.indexOf('|');
  return { clientId: entry.slice(0, at), code: decodeURIComponent(entry.slice(at + 1)) };
};

/** The page's name in the planner and in the read messages. */
export const pageName = (connector: string, productLineId: string): string => `${connector}#${productLineId}`;

const shardOf = (connector: string, productLineId: string): number =>
  createHash('sha256').update(pageName(connector, productLineId)).digest().readUInt32BE(0) % DUE_SHARDS;

/** The due index's sort key: the next look's time (fixed width, so text order is time order), then the page. */
const dueSortKey = (atMs: number, connector: string, productLineId: string): string =>
  `${String(Math.max(0, Math.floor(atMs))).padStart(15, '0')}#${pageName(connector, productLineId)}`;

export const dueTimeOf = (dueSk: string): number => Number(dueSk.slice(0, 15));

/** A look admitted to the readers' queue and not yet recorded: its due key holds the lease's end, later than the look it stands for. */
export const leased = (page: PageWatch): boolean => dueTimeOf(page.dueSk) > nextLookAt(page.watch);

const pageWatchOf = (item: Record<string, unknown>): PageWatch => {
  const stored = storedPageWatch.parse(item);
  const watchers = [...stored.watchers].map(watcherOf);
  const repriced = new Set([...stored.repricedBy].map((entry) => watcherOf(entry).clientId));
  const tenants = new Map<string, Watcher>();
  for (const { clientId } of watchers) tenants.set(clientId, { tenant: clientId, repriced: repriced.has(clientId) });
  return {
    connector: stored.connector,
    productLineId: stored.productLineId,
    watchers,
    dueSk: stored.dueSk,
    ...(stored.marketPrint === undefined ? {} : { marketPrint: stored.marketPrint }),
    watch: {
      variant: pageName(stored.connector, stored.productLineId),
      watchers: [...tenants.values()],
      lastLookAt: stored.lastLookAt,
      scheduledAt: stored.scheduledAt,
      scheduledReasons: stored.scheduledReasons,
      forwardAt: stored.forwardAt,
      forwardReasons: stored.forwardReasons,
      forwardBy: [...stored.forwardBy],
      moves: stored.moves,
      contested: stored.contested,
    },
  };
};

export const getPageWatch = async (connector: string, productLineId: string): Promise<PageWatch | undefined> => {
  const result = await documentClient.send(new GetCommand({ TableName: tableName(), Key: pageWatchKey(connector, productLineId), ConsistentRead: true }));
  return result.Item ? pageWatchOf(result.Item) : undefined;
};

/** The planner's fields of a watch, and its due key, as one SET clause. */
const plannedFields = (connector: string, productLineId: string, watch: VariantWatch, dueAt: number = nextLookAt(watch)) => {
  const values: Record<string, unknown> = {
    ':lastLookAt': watch.lastLookAt,
    ':scheduledAt': watch.scheduledAt,
    ':scheduledReasons': watch.scheduledReasons,
    ':forwardAt': watch.forwardAt,
    ':forwardReasons': watch.forwardReasons,
    ':moves': watch.moves,
    ':contested': watch.contested,
    ':dueSk': dueSortKey(dueAt, connector, productLineId),
  };
  const set = [
    'lastLookAt = :lastLookAt',
    'scheduledAt = :scheduledAt',
    'scheduledReasons = :scheduledReasons',
    'forwardAt = :forwardAt',
    'forwardReasons = :forwardReasons',
    'moves = :moves',
    'contested = :contested',
    'dueSk = :dueSk',
  ];
  if (watch.forwardBy.length > 0) {
    values[':forwardBy'] = new Set(watch.forwardBy);
    set.push('forwardBy = :forwardBy');
  }
  return { set, values, remove: watch.forwardBy.length > 0 ? [] : ['forwardBy'] };
};

/** A watch's planner state rewritten from `page` as read, while its due key is still the one read; false when another writer came first. */
const replan = async (
  page: PageWatch,
  watch: VariantWatch,
  extra: { readonly set?: string[]; readonly values?: Record<string, unknown>; readonly dueAt?: number } = {},
) => {
  const fields = plannedFields(page.connector, page.productLineId, watch, extra.dueAt);
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: pageWatchKey(page.connector, page.productLineId),
        UpdateExpression: `SET ${[...fields.set, ...(extra.set ?? [])].join(', ')}${fields.remove.length > 0 ? ` REMOVE ${fields.remove.join(', ')}` : ''}`,
        ConditionExpression: 'dueSk = :seen',
        ExpressionAttributeValues: { ...fields.values, ...extra.values, ':seen': page.dueSk },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

const WRITE_ROUNDS = 4;

/** Reads the watch, plans from it and writes, again while another writer keeps coming first (a few rounds). */
const replanned = async (connector: string, productLineId: string, plan: (page: PageWatch) => Promise<boolean> | boolean): Promise<void> => {
  for (let round = 0; round < WRITE_ROUNDS; round++) {
    const page = await getPageWatch(connector, productLineId);
    if (!page || (await plan(page))) return;
  }
};

/**
 * A tenant's product watches its page (created at its first watcher, due now). Whether a repricer
 * of the tenant prices it is set with it; a page that becomes repriced may be looked at sooner
 * than planned, never later.
 */
export const watchPage = async (
  page: { readonly connector: string; readonly productLineId: string },
  watcher: PageWatcher & { readonly repriced: boolean },
  nowMs: number,
  settings: ReadPlannerSettings,
): Promise<void> => {
  const entry = new Set([watcherEntry(watcher)]);
  const shard = shardOf(page.connector, page.productLineId);
  const result = await documentClient.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: pageWatchKey(page.connector, page.productLineId),
      UpdateExpression:
        `SET entity = :entity, connector = :connector, productLineId = :line, scheduledAt = if_not_exists(scheduledAt, :now), ` +
        `duePk = if_not_exists(duePk, :duePk), dueSk = if_not_exists(dueSk, :dueSk) ADD watchers :entry` +
        (watcher.repriced ? ', repricedBy :entry' : ' DELETE repricedBy :entry'),
      ExpressionAttributeValues: {
        ':entity': 'pageWatch',
        ':connector': page.connector,
        ':line': page.productLineId,
        ':now': nowMs,
        ':duePk': dueShardPartition(shard),
        ':dueSk': dueSortKey(nowMs, page.connector, page.productLineId),
        ':entry': entry,
      },
      ReturnValues: 'ALL_NEW',
    }),
  );
  const written = pageWatchOf(result.Attributes ?? {});
  if (!watcher.repriced || written.watch.lastLookAt === null) return;
  await replanned(page.connector, page.productLineId, async (current) => {
    const sooner = withWatcher(current.watch, { tenant: watcher.clientId, repriced: true }, settings);
    if (leased(current) || nextLookAt(sooner) >= dueTimeOf(current.dueSk)) return true;
    return replan(current, sooner);
  });
};

/** A tenant's product no longer watches the page (gone, moved line, connection deleted); the last watcher's leaving deletes the page's watch. */
export const unwatchPage = async (page: { readonly connector: string; readonly productLineId: string }, watcher: PageWatcher): Promise<void> => {
  const entry = new Set([watcherEntry(watcher)]);
  const key = pageWatchKey(page.connector, page.productLineId);
  const result = await documentClient
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'DELETE watchers :entry, repricedBy :entry',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':entry': entry },
        ReturnValues: 'ALL_NEW',
      }),
    )
    .catch((error: unknown) => {
      if (isConditionFailure(error)) return { Attributes: undefined };
      throw error;
    });
  if (!result.Attributes || result.Attributes.watchers !== undefined) return;
  await documentClient
    .send(new DeleteCommand({ TableName: tableName(), Key: key, ConditionExpression: 'attribute_not_exists(watchers)' }))
    .catch((error: unknown) => {
      // A watcher joined in between: the page stays watched.
      if (!isConditionFailure(error)) throw error;
    });
};

/** The page watches of one shard due by `upToMs`, soonest first. */
export const duePageWatches = async (shard: number, upToMs: number, limit: number): Promise<PageWatch[]> => {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: DUE_INDEX.indexName,
      KeyConditionExpression: 'duePk = :shard AND dueSk <= :upTo',
      ExpressionAttributeValues: { ':shard': dueShardPartition(shard), ':upTo': `${String(Math.floor(upToMs)).padStart(15, '0')}#~` },
      Limit: limit,
    }),
  );
  return (result.Items ?? []).map(pageWatchOf);
};

/**
 * A look admitted to the readers' queue: its due key moves to the lease's end, so the next plan
 * does not admit it again, and a read lost on the way is planned again once the lease ends.
 * False when the watch changed since it was read (another plan took it, or a look was recorded).
 */
export const leasePageWatch = (page: PageWatch, untilMs: number): Promise<boolean> => replan(page, page.watch, { dueAt: untilMs });

/** What a look saw, for the planner: when, a digest of the market, whether a repricing tenant's offer is near the winning price. */
export interface PageLook {
  readonly at: number;
  readonly marketPrint: string;
  readonly contested: boolean;
}

/** Records a look: the move estimate learns from it, the requests it served are settled, and the next look is planned. */
export const recordPageLook = (connector: string, productLineId: string, look: PageLook, settings: ReadPlannerSettings): Promise<void> =>
  replanned(connector, productLineId, (page) => {
    const moved = page.marketPrint !== undefined && page.marketPrint !== look.marketPrint;
    const next = afterLook(page.watch, { at: look.at, moved, contested: look.contested }, settings);
    return replan(page, next, { set: ['marketPrint = :print'], values: { ':print': look.marketPrint } });
  });

/**
 * An event or a requested sync brings the page's next look forward to `atMs` (never within the
 * floor of the last look); the tenant who asked joins the look's requesters.
 */
export const bringPageForward = (
  connector: string,
  productLineId: string,
  request: { readonly reason: 'event' | 'sync'; readonly clientId: string; readonly atMs: number },
  settings: ReadPlannerSettings,
): Promise<void> =>
  replanned(connector, productLineId, (page) => {
    if (!page.watch.watchers.some((w) => w.tenant === request.clientId)) return true;
    const next = broughtForward(page.watch, { reason: request.reason, tenant: request.clientId, at: request.atMs }, settings);
    // A look already leased keeps its lease: it serves this request when it is read.
    if (leased(page) || nextLookAt(next) >= dueTimeOf(page.dueSk)) return true;
    return replan(page, next);
  });
