import { CfnOutput, CfnParameter, RemovalPolicy, Stack, Tags, type StackProps } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { fileURLToPath } from 'node:url';
import { Alarms } from './constructs/alarms.js';
import { ChangeHandlers } from './constructs/change-handlers.js';
import { ServiceDashboard } from './constructs/dashboard.js';
import { MarketLoop } from './constructs/market-loop.js';
import { MARKET_CONNECTORS } from './constructs/loop-metrics.js';
import { DEFAULT_PRICE_CHANGE_RETENTION_DAYS } from '../lambdas/domain/repricing.js';
import { RepricerApi } from './constructs/repricer-api.js';
import { RepricerTable } from './constructs/repricer-table.js';
import type { MonitoredQueue } from './constructs/monitored-queue.js';
import { SecretsKey } from './constructs/secrets-key.js';
import { AUTHORIZER, CONNECTION_LOOKUP_WRITERS, CONNECTION_SEALERS, ROUTES, SEALED_REPLAY_ROUTES, type RouteDefinition } from '../lambdas/config/routes.js';
import { productionEnvironment } from '../lambdas/marketplace/marketplaces.js';
import { grantTableAccess, TABLE_GRANTS } from './constructs/table-access.js';

export { API_THROTTLE, CLIENT_QUOTA, CLIENT_THROTTLE } from './constructs/repricer-api.js';
export { FUNCTION_MEMORY_MB, FUNCTION_TIMEOUT_SECONDS } from './constructs/api-function.js';

/** The public route that receives a marketplace's signed events: it opens the connection's webhook secret. */
export const MARKETPLACE_EVENT_ROUTE = 'ReceiveMarketplaceEvent';

export const STAGE_CONTEXT_KEY = 'stage';
export const DEFAULT_STAGE = 'dev';
/** The stage goes into resource names, so it must be a short lowercase name. */
const STAGE_PATTERN = /^[a-z][a-z0-9-]{1,19}$/;

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface StageSettings {
  readonly removalPolicy: RemovalPolicy;
  readonly deletionProtection: boolean;
  readonly logRetention: RetentionDays;
  readonly logLevel: string;
}

const DISPOSABLE_STAGE_SETTINGS: StageSettings = {
  removalPolicy: RemovalPolicy.DESTROY,
  deletionProtection: false,
  logRetention: RetentionDays.ONE_WEEK,
  logLevel: 'DEBUG',
};

const KEPT_STAGE_SETTINGS: StageSettings = {
  removalPolicy: RemovalPolicy.RETAIN,
  deletionProtection: true,
  logRetention: RetentionDays.THREE_MONTHS,
  logLevel: 'INFO',
};

/** Only `dev` is disposable: every other stage keeps its table (and logs) when torn down. */
export const stageSettings = (stage: string): StageSettings => (stage === DEFAULT_STAGE ? DISPOSABLE_STAGE_SETTINGS : KEPT_STAGE_SETTINGS);

export const stageFromContext = (scope: Construct): string => {
  const stage: unknown = scope.node.tryGetContext(STAGE_CONTEXT_KEY) ?? DEFAULT_STAGE;
  if (typeof stage !== 'string' || !STAGE_PATTERN.test(stage)) {
    throw new Error(`Context "${STAGE_CONTEXT_KEY}" must match ${STAGE_PATTERN}, got ${JSON.stringify(stage)}`);
  }
  return stage;
};

export interface RepricerStackProps extends StackProps {
  readonly stage: string;
  /** Defaults to ROUTES; tests pass extra routes to exercise path parameters and public routes. */
  readonly routes?: readonly RouteDefinition[];
}

export class RepricerStack extends Stack {
  readonly table: RepricerTable;
  readonly api: RepricerApi;
  readonly changes: ChangeHandlers;
  readonly market: MarketLoop;
  readonly alarms: Alarms;
  readonly secretsKey: SecretsKey;
  /** Every queue of the stack, for the alarms and the dashboard. */
  readonly queues: readonly MonitoredQueue[];

  constructor(scope: Construct, id: string, props: RepricerStackProps) {
    super(scope, id, props);
    const { stage } = props;
    if (!STAGE_PATTERN.test(stage)) throw new Error(`Stage must match ${STAGE_PATTERN}, got "${stage}"`);
    const settings = stageSettings(stage);

    Tags.of(this).add('service', 'repricer-api');
    Tags.of(this).add('stage', stage);

    this.table = new RepricerTable(this, 'Data', {
      removalPolicy: settings.removalPolicy,
      deletionProtection: settings.deletionProtection,
    });

    this.api = new RepricerApi(this, 'Api', {
      stage,
      projectRoot: PROJECT_ROOT,
      routes: props.routes ?? ROUTES,
      authorizer: AUTHORIZER,
      table: this.table.table,
      removalPolicy: settings.removalPolicy,
      logRetention: settings.logRetention,
      logLevel: settings.logLevel,
    });

    const retention = new CfnParameter(this, 'PriceChangeRetentionDays', {
      type: 'Number',
      default: DEFAULT_PRICE_CHANGE_RETENTION_DAYS,
      minValue: 1,
      description: 'Days a price change is kept before DynamoDB deletes it (TTL).',
    });
    this.changes = new ChangeHandlers(this, 'Changes', {
      projectRoot: PROJECT_ROOT,
      table: this.table.table,
      removalPolicy: settings.removalPolicy,
      logRetention: settings.logRetention,
      logLevel: settings.logLevel,
      priceChangeRetentionDays: retention.valueAsString,
    });

    // The stage's marketplace base URLs, from the marketplaces' table: operator settings, never a client's input.
    const marketplaceEnvironment = productionEnvironment();
    this.market = new MarketLoop(this, 'Market', {
      projectRoot: PROJECT_ROOT,
      table: this.table.table,
      removalPolicy: settings.removalPolicy,
      logRetention: settings.logRetention,
      logLevel: settings.logLevel,
      marketplaceEnvironment,
    });
    // Marketplace events reach the sync worker through the change stream.
    this.market.acceptSyncRequestsFrom(this.changes.forwarder);
    // Price changes that became pending, connection moves and batch events reach the sender the same way.
    this.market.acceptPriceWorkFrom(this.changes.forwarder);

    // Webhook signing secrets are sealed by the create-webhook function and opened by the webhook worker.
    this.secretsKey = new SecretsKey(this, 'SecretsKey', { stage, removalPolicy: settings.removalPolicy });
    const createWebhook = this.api.routeFunctions.get('CreateWebhook');
    if (createWebhook) this.secretsKey.allowSealing(createWebhook.function);
    // A response that shows a secret is kept sealed for Idempotency-Key replays, and opened to replay it.
    for (const name of SEALED_REPLAY_ROUTES) {
      const fn = this.api.routeFunctions.get(name);
      if (!fn) continue;
      this.secretsKey.allowSealing(fn.function);
      this.secretsKey.allowOpening(fn.function);
    }
    this.secretsKey.allowOpening(this.changes.webhooks.worker.function);
    // Marketplace keys and webhook secrets are sealed by the function that stores a connection; it alone checks keys with the marketplace.
    for (const name of CONNECTION_SEALERS) {
      const fn = this.api.routeFunctions.get(name);
      if (!fn) continue;
      this.secretsKey.allowSealing(fn.function);
      for (const [variable, value] of Object.entries(marketplaceEnvironment)) fn.function.addEnvironment(variable, value);
    }
    // Marketplace keys and webhook secrets are opened by the functions that call the marketplace or verify its events.
    this.secretsKey.allowOpening(this.market.worker.function);
    this.secretsKey.allowOpening(this.market.reader.function);
    this.secretsKey.allowOpening(this.market.sender.function);
    const receiveEvents = this.api.routeFunctions.get(MARKETPLACE_EVENT_ROUTE);
    if (receiveEvents) {
      this.secretsKey.allowOpening(receiveEvents.function);
      grantTableAccess(receiveEvents.role, this.table.table, TABLE_GRANTS.marketplaceEvents);
      // The adapter that verifies an event is the connector's: the route needs the stage's marketplace settings to find it.
      for (const [variable, value] of Object.entries(marketplaceEnvironment)) receiveEvents.function.addEnvironment(variable, value);
    }
    for (const name of CONNECTION_LOOKUP_WRITERS) {
      const fn = this.api.routeFunctions.get(name);
      if (fn) grantTableAccess(fn.role, this.table.table, TABLE_GRANTS.connectionLookup);
    }

    this.queues = [...this.changes.queues, ...this.market.queues];
    this.alarms = new Alarms(this, 'Alarms', {
      stage,
      api: this.api.restApi,
      table: this.table.table,
      functions: [
        ...[...this.api.routeFunctions].map(([name, fn]) => ({ name, function: fn.function })),
        ...(this.api.authorizerFunction ? [{ name: 'Authorizer', function: this.api.authorizerFunction.function }] : []),
        { name: 'ChangeForwarder', function: this.changes.forwarder.function },
        { name: 'ListMaintainer', function: this.changes.maintainer.function },
        { name: 'RepricingEvaluator', function: this.changes.evaluator.function },
        { name: 'ImportWorker', function: this.changes.importWorker.function },
        { name: 'WebhookWorker', function: this.changes.webhooks.worker.function },
        ...this.market.functions,
      ],
      queues: this.queues,
      streamConsumers: [{ name: 'ChangeForwarder', function: this.changes.forwarder.function }],
      marketConnectors: MARKET_CONNECTORS,
    });

    new ServiceDashboard(this, 'Dashboard', {
      stage,
      routes: [...this.api.routeFunctions.keys()],
      queues: this.queues,
      streamReader: this.changes.forwarder.function,
      evaluatorLogs: this.changes.evaluator.logGroup,
      marketConnectors: MARKET_CONNECTORS,
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.restApi.url, description: 'Base URL of the API stage' });
    new CfnOutput(this, 'TableName', { value: this.table.table.tableName, description: 'The DynamoDB table' });
    // Read by `npm run cli -- --stage <stage>` (tools/admin/stage.ts) to register clients' API keys.
    new CfnOutput(this, 'ApiId', { value: this.api.restApi.restApiId, description: 'The REST API id' });
    new CfnOutput(this, 'UsagePlanId', { value: this.api.usagePlan.usagePlanId, description: 'The usage plan every client API key belongs to' });
  }
}
