import { CfnOutput, CfnParameter, Fn, RemovalPolicy, Stack, Tags, type StackProps } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { fileURLToPath } from 'node:url';
import { Alarms, type AlarmSubscribers } from './constructs/alarms.js';
import { ChangeHandlers } from './constructs/change-handlers.js';
import { addDocsPage, DOCS_PAGE_ROUTE } from './constructs/docs-page.js';
import { ServiceDashboard } from './constructs/dashboard.js';
import { MarketLoop } from './constructs/market-loop.js';
import { MARKET_CONNECTORS } from './constructs/loop-metrics.js';
import { DEFAULT_PRICE_CHANGE_RETENTION_DAYS } from '../lambdas/domain/repricing.js';
import { RepricerApi } from './constructs/repricer-api.js';
import { RepricerTable } from './constructs/repricer-table.js';
import type { MonitoredQueue } from './constructs/monitored-queue.js';
import { SecretsKey } from './constructs/secrets-key.js';
import { AUTHORIZER, CONNECTION_LOOKUP_WRITERS, CONNECTION_SEALERS, ROUTES, SEALED_REPLAY_ROUTES, type RouteDefinition } from '../lambdas/config/routes.js';
import { stageMarketplaceEnvironment } from '../lambdas/marketplace/marketplaces.js';
import { grantTableAccess, TABLE_GRANTS } from './constructs/table-access.js';

export { API_THROTTLE, CLIENT_QUOTA, CLIENT_THROTTLE } from './constructs/repricer-api.js';
export { FUNCTION_MEMORY_MB, FUNCTION_TIMEOUT_SECONDS } from './constructs/api-function.js';

/** The public route that receives a marketplace's signed events: it opens the connection's webhook secret. */
export const MARKETPLACE_EVENT_ROUTE = 'ReceiveMarketplaceEvent';

export const STAGE_CONTEXT_KEY = 'stage';
export const DEFAULT_STAGE = 'dev';
/** The one stage that reaches the marketplaces' production URLs without being told to (docs/deploy.md). */
export const PRODUCTION_STAGE = 'prod';
/** Deploy-time context: who the alarm topic notifies, each a comma-separated list (none by default). */
export const ALARM_EMAIL_CONTEXT_KEY = 'alarmEmail';
export const ALARM_HTTPS_ENDPOINT_CONTEXT_KEY = 'alarmHttpsEndpoint';
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

const EMAIL = /^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/;

/** Context naming indexes to leave out of one deploy (`-c withheldIndexes=due`): CloudFormation adds one index per table update. */
export const WITHHELD_INDEXES_CONTEXT_KEY = 'withheldIndexes';

const contextList = (scope: Construct, key: string): string[] => {
  const value: unknown = scope.node.tryGetContext(key);
  if (value === undefined || value === '') return [];
  if (typeof value !== 'string') throw new Error(`Context "${key}" must be a comma-separated list, got ${JSON.stringify(value)}`);
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
};

/** `-c alarmEmail=a@example.com,b@example.com -c alarmHttpsEndpoint=https://...`: checked here, so a typo fails the synth, not the alarm. */
export const alarmSubscribersFromContext = (scope: Construct): AlarmSubscribers => {
  const emails = contextList(scope, ALARM_EMAIL_CONTEXT_KEY);
  for (const email of emails)
    if (!EMAIL.test(email)) throw new Error(`Context "${ALARM_EMAIL_CONTEXT_KEY}" has an invalid e-mail address: ${JSON.stringify(email)}`);
  const httpsEndpoints = contextList(scope, ALARM_HTTPS_ENDPOINT_CONTEXT_KEY);
  for (const url of httpsEndpoints) {
    if (!URL.canParse(url) || new URL(url).protocol !== 'https:')
      throw new Error(`Context "${ALARM_HTTPS_ENDPOINT_CONTEXT_KEY}" must list https:// URLs, got ${JSON.stringify(url)}`);
  }
  return { emails, httpsEndpoints };
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
    // The deploy's context is read, and refused, before anything is built.
    const withheldIndexes = contextList(this, WITHHELD_INDEXES_CONTEXT_KEY);
    // The stage's marketplace base URLs: production's for the production stage, else only what the deploy's context gives (operator settings, never a client's input).
    const marketplaceEnvironment = stageMarketplaceEnvironment(stage === PRODUCTION_STAGE, (key) => this.node.tryGetContext(key));
    const alarmSubscribers = alarmSubscribersFromContext(this);

    Tags.of(this).add('service', 'repricer-api');
    Tags.of(this).add('stage', stage);

    this.table = new RepricerTable(this, 'Data', {
      removalPolicy: settings.removalPolicy,
      deletionProtection: settings.deletionProtection,
      withheldIndexes,
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

    const docsPageFunction = this.api.routeFunctions.get(DOCS_PAGE_ROUTE);
    if (docsPageFunction) addDocsPage(this.api.restApi, docsPageFunction.function);

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
      subscribers: alarmSubscribers,
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
    if (docsPageFunction) new CfnOutput(this, 'DocsUrl', { value: `${this.api.restApi.url}docs`, description: 'The API reference page of the stage' });
    new CfnOutput(this, 'TableName', { value: this.table.table.tableName, description: 'The DynamoDB table' });
    // Read by `npm run cli -- --stage <stage>` (tools/admin/stage.ts) to register clients' API keys.
    new CfnOutput(this, 'ApiId', { value: this.api.restApi.restApiId, description: 'The REST API id' });
    // Read by `npm run cli -- --stage <stage> queues ...` (tools/admin/queues.ts) to count and redrive dead letters by the alarms' names.
    new CfnOutput(this, 'DeadLetterQueues', {
      value: Fn.join(
        ' ',
        this.queues.filter((monitored) => monitored.kind === 'deadLetters').map(({ name, queue }) => Fn.join('=', [name, queue.queueUrl])),
      ),
      description: 'The dead-letter queues, as name=url pairs',
    });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn, description: 'Every alarm notifies this SNS topic' });
    new CfnOutput(this, 'UsagePlanId', { value: this.api.usagePlan.usagePlanId, description: 'The usage plan every client API key belongs to' });
  }
}
