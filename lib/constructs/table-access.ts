import { PolicyStatement, type IRole } from 'aws-cdk-lib/aws-iam';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { GLOBAL_SECONDARY_INDEXES } from '../../lambdas/config/table-schema.js';

/**
 * Least privilege by action and by key. The DynamoDB actions the code uses are named one by
 * one (no `Scan`: no request path may scan; transactions are authorized per contained action),
 * and every statement is conditioned on `dynamodb:LeadingKeys`: a role touches only the
 * partition keys that start with the prefixes of what its work needs. Client items (password
 * hashes, usage keys, login attempts) are `CLIENT#`: only the authorizer (and the operator's
 * CLI, which has no role here) may touch them.
 */
export const TABLE_READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'] as const;
export const TABLE_WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'] as const;

/** The first part of every partition key, by what it holds (lambdas/data/table/keys.ts). */
export const KEY_PREFIXES = {
  client: 'CLIENT#',
  tenant: 'T#',
  connector: 'CONNECTOR#',
  counter: 'COUNTER#',
  idempotency: 'IDEMPOTENCY#',
  connectionUid: 'CONNUID#',
  /** A marketplace host's hold after it refused a read, shared by every reader (lambdas/data/table/keys.ts hostHoldKey). */
  hostHold: 'HOSTHOLD#',
  /** The stage's own settings (lambdas/data/table/keys.ts pushStopKey): the operator's stop of every push, read by the sender. */
  stageSetting: 'STAGE#',
  /**
   * The `directory` index's partition listing every connection's uid: a Query on an index is
   * authorized by the index's partition key, so this is the value the schedule's one Query names.
   */
  connectionsDirectory: 'CONNECTIONS',
  /** Storefront pages watched for every tenant selling them (lambdas/data/table/keys.ts pageWatchKey). */
  pageWatch: 'PAGE#',
  /** The `due` index's shards of page watches by next look: the planner's Query names one. */
  dueShard: 'DUE#',
  /** A storefront host's read budget, one item a second, counted by every reader together. */
  readBudget: 'BUDGET#',
} as const;

export interface TableGrant {
  /** Key prefixes the role may read. */
  readonly read: readonly string[];
  /** Key prefixes the role may write. */
  readonly write?: readonly string[];
  /** The write actions it needs, when fewer than all of TABLE_WRITE_ACTIONS. */
  readonly writeActions?: readonly (typeof TABLE_WRITE_ACTIONS)[number][];
  /** Whether it writes in batches (BatchWriteItem), besides item by item. */
  readonly batchWrite?: boolean;
}

const { client, tenant, connector, counter, idempotency, connectionUid, hostHold, stageSetting, connectionsDirectory, pageWatch, dueShard, readBudget } =
  KEY_PREFIXES;

/** What each kind of function needs. */
export const TABLE_GRANTS = {
  /** Request handlers that only read: the client's own items. */
  apiRead: { read: [tenant] },
  /** Request handlers that write repricers: connectors and ids to create one, idempotency records. */
  apiWrite: { read: [tenant, connector, counter, idempotency], write: [tenant, counter, idempotency] },
  /** The Basic-auth authorizer: client items and their login attempts, counted with updates only. */
  authorizer: { read: [client], write: [client], writeActions: ['dynamodb:UpdateItem'] },
  /** The list maintainer: a tenant's listings, counts and rebuild requests, and the watches of its products' pages. */
  maintainer: { read: [tenant, connectionUid, pageWatch], write: [tenant, pageWatch], batchWrite: true },
  /** The repricing evaluator: a tenant's products and decisions, connector price steps, price-change ids. */
  evaluator: { read: [tenant, connector, counter], write: [tenant, counter] },
  /**
   * The import worker: a tenant's jobs, bodies, products, offers and repricers; connector types
   * for repricers; ids. No client items: what it needs of the client is in the job.
   */
  importWorker: { read: [tenant, connector, counter], write: [tenant, counter], batchWrite: true },
  /** The webhook worker: a tenant's webhooks (with their secrets) and their deliveries. */
  webhookWorker: { read: [tenant], write: [tenant], writeActions: ['dynamodb:PutItem', 'dynamodb:UpdateItem'] },
  /**
   * Beside apiWrite, for the routes that create and delete connections: the uid lookup item of a
   * connection (`CONNUID#`), put and deleted with the connection, never updated.
   */
  connectionLookup: { read: [connectionUid], write: [connectionUid], writeActions: ['dynamodb:PutItem', 'dynamodb:DeleteItem'] },
  /** Beside apiWrite, for the public marketplace-events route: the connection a uid names (`CONNUID#`), read only. */
  marketplaceEvents: { read: [connectionUid] },
  /**
   * The market schedule and read planner: the uid of every connection (directory index), the
   * page watches due (`due` index shards); it writes only a page watch's lease.
   */
  marketSchedule: { read: [connectionsDirectory, dueShard, pageWatch], write: [pageWatch], writeActions: ['dynamodb:UpdateItem'] },
  /**
   * The market sync worker and the storefront reader: a connection by its uid (`CONNUID#`), its
   * record and the tenant's products, offers and repricers; connector price steps; ids for new
   * offers; the storefront hosts' holds and read budget, read and written by every reader; the
   * page watches (registered by a sync, a look recorded by the reader).
   */
  marketSync: {
    read: [tenant, connector, counter, connectionUid, hostHold, pageWatch, readBudget],
    write: [tenant, counter, hostHold, pageWatch, readBudget],
    batchWrite: true,
  },
  /**
   * The price sender: the tenant's price changes, products, repricer list counts, connections and
   * its own items (push counts, breaker windows, sent batches); connector price steps; the
   * operator's stop of every push (read only). It creates nothing but its own items, so no ids.
   */
  priceSender: { read: [tenant, connector, stageSetting], write: [tenant], writeActions: ['dynamodb:PutItem', 'dynamodb:UpdateItem'] },
} as const satisfies Record<string, TableGrant>;

/** Index ARNs listed by name, so no policy holds an `index/*` wildcard. */
const indexArns = (table: ITable): string[] => GLOBAL_SECONDARY_INDEXES.map((index) => `${table.tableArn}/index/${index.indexName}`);

const leadingKeys = (prefixes: readonly string[]) => ({
  'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': prefixes.map((prefix) => `${prefix}*`) },
});

export const grantTableAccess = (role: IRole, table: ITable, grant: TableGrant): void => {
  role.addToPrincipalPolicy(
    new PolicyStatement({ actions: [...TABLE_READ_ACTIONS], resources: [table.tableArn, ...indexArns(table)], conditions: leadingKeys(grant.read) }),
  );
  if (!grant.write || grant.write.length === 0) return;
  role.addToPrincipalPolicy(
    new PolicyStatement({
      actions: [...(grant.writeActions ?? TABLE_WRITE_ACTIONS), ...(grant.batchWrite ? ['dynamodb:BatchWriteItem'] : [])],
      resources: [table.tableArn],
      conditions: leadingKeys(grant.write),
    }),
  );
};
