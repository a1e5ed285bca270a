import { visibilityTimeoutFor } from '../../lambdas/config/event-sources.js';
import { MARKET_SYNC, MARKET_SYNC_QUEUE_URL_ENV, readerConcurrency, STOREFRONT_QUEUE_URL_ENV, STOREFRONT_RATE_ENV } from '../../lambdas/config/market-sync.js';
import { PRICE_SENDER_QUEUE_URL_ENV, PRICE_SENDING } from '../../lambdas/config/price-sending.js';
import { TABLE_NAME_ENV } from '../../lambdas/config/table-schema.js';
import { TAKEALOT_SELLER_API_URL_ENV, TAKEALOT_STOREFRONT_URL_ENV } from '../../lambdas/marketplace/registry.js';
import { takealotMarketplace } from '../../lambdas/marketplace/takealot/marketplace.js';
import { ALARM_THRESHOLDS } from '../../lib/constructs/alarms.js';
import { FUNCTION_RUNTIME } from '../../lib/constructs/api-function.js';
import { MARKET_LOOP_DESCRIPTIONS } from '../../lib/constructs/market-loop.js';
import { KEY_PREFIXES, TABLE_GRANTS } from '../../lib/constructs/table-access.js';
import {
  actionsOf,
  functionDescribed,
  resourceId,
  resourcesOfType,
  roleStatements,
  synthStack,
  type CfnResource,
  type PolicyStatementJson,
  type SynthesizedStack,
} from './stack-fixture.js';

/** The market loop of the stack: the tick rule, the three FIFO queues, the four functions, their event sources, settings and grants. */
const getAtt = (id: string, attribute: string) => ({ 'Fn::GetAtt': [id, attribute] });
const leadingKeys = (statement: PolicyStatementJson): unknown =>
  (statement as { Condition?: Record<string, Record<string, unknown>> }).Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];

describe('the market loop', () => {
  let synthesized: SynthesizedStack;
  const ids = {
    marketSync: '',
    marketSyncDeadLetters: '',
    storefront: '',
    storefrontDeadLetters: '',
    prices: '',
    pricesDeadLetters: '',
    schedule: '',
    worker: '',
    reader: '',
    sender: '',
    forwarder: '',
  };
  const resource = (type: string, id: string) => resourcesOfType(synthesized.template, type)[id]!;
  const fn = (id: string) => resource('AWS::Lambda::Function', id).Properties;
  const mappingOf = (functionId: string): CfnResource | undefined =>
    Object.values(resourcesOfType(synthesized.template, 'AWS::Lambda::EventSourceMapping')).find((m) => m.Properties.FunctionName.Ref === functionId);
  /** The resources the role may apply `action` to, each once. */
  const grantsOf = (functionId: string, action: string): unknown[] => {
    const resources = roleStatements(synthesized.template, functionId)
      .filter((statement) => actionsOf(statement).includes(action))
      .flatMap((statement) => (Array.isArray(statement.Resource) ? (statement.Resource as unknown[]) : [statement.Resource]));
    return [...new Set(resources.map((r) => JSON.stringify(r)))].map((r) => JSON.parse(r) as unknown);
  };

  beforeAll(() => {
    synthesized = synthStack({ stage: 'prod' });
    const { template } = synthesized;
    ids.marketSync = resourceId(template, 'AWS::SQS::Queue', 'MarketMarketSyncQueue');
    ids.marketSyncDeadLetters = resourceId(template, 'AWS::SQS::Queue', 'MarketMarketSyncDeadLetters');
    ids.storefront = resourceId(template, 'AWS::SQS::Queue', 'MarketStorefrontQueue');
    ids.storefrontDeadLetters = resourceId(template, 'AWS::SQS::Queue', 'MarketStorefrontDeadLetters');
    ids.prices = resourceId(template, 'AWS::SQS::Queue', 'MarketPricesQueue');
    ids.pricesDeadLetters = resourceId(template, 'AWS::SQS::Queue', 'MarketPricesDeadLetters');
    ids.schedule = functionDescribed(template, MARKET_LOOP_DESCRIPTIONS.schedule)[0];
    ids.worker = functionDescribed(template, MARKET_LOOP_DESCRIPTIONS.worker)[0];
    ids.reader = functionDescribed(template, MARKET_LOOP_DESCRIPTIONS.reader)[0];
    ids.sender = functionDescribed(template, MARKET_LOOP_DESCRIPTIONS.sender)[0];
    ids.forwarder = resourceId(template, 'AWS::Lambda::Function', 'ChangesForwarder');
  });

  it('ticks the schedule function once a minute from an EventBridge rule', () => {
    const rules = Object.values(resourcesOfType(synthesized.template, 'AWS::Events::Rule'));
    expect(rules).toHaveLength(1);
    expect(rules[0]!.Properties).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [
        expect.objectContaining({
          Arn: getAtt(ids.schedule, 'Arn'),
          RetryPolicy: { MaximumEventAgeInSeconds: MARKET_SYNC.tickSeconds, MaximumRetryAttempts: 2 },
        }),
      ],
    });
    const permissions = Object.values(resourcesOfType(synthesized.template, 'AWS::Lambda::Permission')).filter(
      (permission) => permission.Properties.Principal === 'events.amazonaws.com',
    );
    expect(permissions.map((permission) => permission.Properties.FunctionName)).toEqual([getAtt(ids.schedule, 'Arn')]);
  });

  it.each([
    ['market-sync', 'marketSync', 'marketSyncDeadLetters', MARKET_SYNC.workerTimeoutSeconds, MARKET_SYNC.workerMaxReceiveCount],
    ['storefront', 'storefront', 'storefrontDeadLetters', MARKET_SYNC.readerTimeoutSeconds, MARKET_SYNC.readerMaxReceiveCount],
    ['price-sender', 'prices', 'pricesDeadLetters', PRICE_SENDING.senderTimeoutSeconds, PRICE_SENDING.senderMaxReceiveCount],
  ] as const)('has a %s FIFO queue visible six times its consumer timeout, dead-lettering after its limit', (_name, queue, deadLetters, timeout, receives) => {
    expect(resource('AWS::SQS::Queue', ids[queue]).Properties).toMatchObject({
      FifoQueue: true,
      SqsManagedSseEnabled: true,
      VisibilityTimeout: visibilityTimeoutFor(timeout),
      RedrivePolicy: { deadLetterTargetArn: getAtt(ids[deadLetters], 'Arn'), maxReceiveCount: receives },
    });
    expect(resource('AWS::SQS::Queue', ids[deadLetters]).Properties).toMatchObject({ FifoQueue: true });
  });

  it('hands the sync worker one connection at a time, and the readers ten pages, as many readers as the stage rate needs (two at 9 a second), both reporting failures', () => {
    expect(mappingOf(ids.worker)?.Properties).toMatchObject({
      EventSourceArn: getAtt(ids.marketSync, 'Arn'),
      BatchSize: MARKET_SYNC.workerBatchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(mappingOf(ids.reader)?.Properties).toMatchObject({
      EventSourceArn: getAtt(ids.storefront, 'Arn'),
      BatchSize: MARKET_SYNC.readerBatchSize,
      ScalingConfig: { MaximumConcurrency: readerConcurrency() },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(mappingOf(ids.schedule)).toBeUndefined();
  });

  it("hands the price sender its queue's messages in batches of PRICE_SENDING's size, reporting failures, with no cap on concurrency (one connection's group is one sender at a time)", () => {
    const mapping = mappingOf(ids.sender)?.Properties;
    expect(mapping).toMatchObject({
      EventSourceArn: getAtt(ids.prices, 'Arn'),
      BatchSize: PRICE_SENDING.senderBatchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(mapping?.ScalingConfig).toBeUndefined();
    expect(
      Object.values(resourcesOfType(synthesized.template, 'AWS::Lambda::EventSourceMapping')).filter(
        (m) => JSON.stringify(m.Properties.EventSourceArn) === JSON.stringify(getAtt(ids.prices, 'Arn')),
      ),
    ).toHaveLength(1);
  });

  it("gives the price sender its own timeout and memory, under the prices queue's visibility timeout", () => {
    expect(fn(ids.sender)).toMatchObject({
      Runtime: FUNCTION_RUNTIME.name,
      TracingConfig: { Mode: 'Active' },
      Timeout: PRICE_SENDING.senderTimeoutSeconds,
      MemorySize: PRICE_SENDING.senderMemoryMb,
    });
    expect(resource('AWS::SQS::Queue', ids.prices).Properties.VisibilityTimeout).toBeGreaterThan(PRICE_SENDING.senderTimeoutSeconds);
  });

  it("alarms on the price queue's oldest message (sending stuck) and on its first dead letter, not on the ages of the queues that wait by design", () => {
    const alarms = Object.values(resourcesOfType(synthesized.template, 'AWS::CloudWatch::Alarm')).map((alarm) => alarm.Properties);
    const alarmNamed = (name: string) => alarms.find((alarm) => alarm.AlarmName === `repricer-prod-${name}`);
    expect(alarmNamed('PricesAge')).toMatchObject({
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: getAtt(ids.prices, 'QueueName') }],
      Threshold: 60,
    });
    expect(alarmNamed('PricesDeadLettersDepth')).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: getAtt(ids.pricesDeadLetters, 'QueueName') }],
      Threshold: 1,
    });
    expect(alarmNamed('MarketSyncAge')).toBeUndefined();
    expect(alarmNamed('StorefrontAge')).toBeUndefined();
  });

  it('alarms on a stalled market-sync or storefront queue: an oldest message far older than they wait by design', () => {
    const alarms = Object.values(resourcesOfType(synthesized.template, 'AWS::CloudWatch::Alarm')).map((alarm) => alarm.Properties);
    const alarmNamed = (name: string) => alarms.find((alarm) => alarm.AlarmName === `repricer-prod-${name}`);
    expect(alarmNamed('MarketSyncStalled')).toMatchObject({
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: getAtt(ids.marketSync, 'QueueName') }],
      Statistic: 'Maximum',
      Threshold: ALARM_THRESHOLDS.marketSyncStalledSeconds,
      EvaluationPeriods: 2,
    });
    expect(alarmNamed('StorefrontStalled')).toMatchObject({
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: getAtt(ids.storefront, 'QueueName') }],
      Threshold: ALARM_THRESHOLDS.storefrontStalledSeconds,
    });
    // Longer than a connection's ticks wait behind its full sync (the worker's timeout), and than a refused host's longest backoff.
    expect(ALARM_THRESHOLDS.marketSyncStalledSeconds).toBeGreaterThan(MARKET_SYNC.workerTimeoutSeconds);
    expect(ALARM_THRESHOLDS.storefrontStalledSeconds * 1000).toBeGreaterThan(MARKET_SYNC.storefrontBackoffCapMs);
  });

  it('builds the three functions as the others: Node 24, active tracing, their timeouts and memory', () => {
    for (const id of [ids.schedule, ids.worker, ids.reader])
      expect(fn(id)).toMatchObject({ Runtime: FUNCTION_RUNTIME.name, TracingConfig: { Mode: 'Active' } });
    expect(fn(ids.schedule).Timeout).toBe(MARKET_SYNC.tickSeconds);
    expect(fn(ids.worker)).toMatchObject({ Timeout: MARKET_SYNC.workerTimeoutSeconds, MemorySize: MARKET_SYNC.workerMemoryMb });
    expect(fn(ids.reader)).toMatchObject({ Timeout: MARKET_SYNC.readerTimeoutSeconds, MemorySize: MARKET_SYNC.readerMemoryMb });
  });

  it('tells each function the queue it sends to or holds back, the pace, and the stage marketplace URLs where it calls the marketplace', () => {
    const takealot = {
      [TAKEALOT_SELLER_API_URL_ENV]: takealotMarketplace.productionUrls.sellerApiUrl,
      [TAKEALOT_STOREFRONT_URL_ENV]: takealotMarketplace.productionUrls.storefrontUrl,
    };
    const env = (id: string) => fn(id).Environment.Variables as Record<string, unknown>;
    // The schedule runs the read planner: it sends the page reads, within the stage's budget.
    expect(env(ids.schedule)).toMatchObject({
      [MARKET_SYNC_QUEUE_URL_ENV]: { Ref: ids.marketSync },
      [STOREFRONT_QUEUE_URL_ENV]: { Ref: ids.storefront },
      [STOREFRONT_RATE_ENV]: String(MARKET_SYNC.storefrontRequestsPerSecond),
      [TABLE_NAME_ENV]: expect.anything(),
    });
    expect(env(ids.schedule)[TAKEALOT_SELLER_API_URL_ENV]).toBeUndefined();
    expect(env(ids.worker)).toMatchObject({
      [PRICE_SENDER_QUEUE_URL_ENV]: { Ref: ids.prices },
      [STOREFRONT_RATE_ENV]: String(MARKET_SYNC.storefrontRequestsPerSecond),
      ...takealot,
    });
    expect(env(ids.worker)[STOREFRONT_QUEUE_URL_ENV]).toBeUndefined();
    expect(env(ids.reader)).toMatchObject({
      [STOREFRONT_QUEUE_URL_ENV]: { Ref: ids.storefront },
      [STOREFRONT_RATE_ENV]: String(MARKET_SYNC.storefrontRequestsPerSecond),
      ...takealot,
    });
    expect(env(ids.forwarder)).toMatchObject({ [MARKET_SYNC_QUEUE_URL_ENV]: { Ref: ids.marketSync }, [PRICE_SENDER_QUEUE_URL_ENV]: { Ref: ids.prices } });
    // The sender reads its queue through the event source and sends to none.
    expect(env(ids.sender)).toMatchObject({ [TABLE_NAME_ENV]: expect.anything(), ...takealot });
    expect(env(ids.sender)[PRICE_SENDER_QUEUE_URL_ENV]).toBeUndefined();
    expect(env(ids.sender)[STOREFRONT_QUEUE_URL_ENV]).toBeUndefined();
    expect(env(ids.sender)[MARKET_SYNC_QUEUE_URL_ENV]).toBeUndefined();
  });

  it('lets each function send only to the queue it feeds', () => {
    const sendsTo = (id: string) => grantsOf(id, 'sqs:SendMessage');
    // The schedule ticks the workers and feeds the readers (the planner); each tick of a connection asks the price sender for a sweep.
    expect(sendsTo(ids.schedule)).toEqual(expect.arrayContaining([getAtt(ids.marketSync, 'Arn'), getAtt(ids.storefront, 'Arn')]));
    expect(sendsTo(ids.schedule)).toHaveLength(2);
    expect(sendsTo(ids.worker)).toEqual([getAtt(ids.prices, 'Arn')]);
    expect(sendsTo(ids.reader)).toEqual([]);
    expect(sendsTo(ids.sender)).toEqual([]);
    // The forwarder: marketplace events to the sync worker; pending price changes, connection moves and batch events to the sender.
    expect(sendsTo(ids.forwarder)).toContainEqual(getAtt(ids.marketSync, 'Arn'));
    expect(sendsTo(ids.forwarder)).toContainEqual(getAtt(ids.prices, 'Arn'));
    expect(sendsTo(ids.forwarder)).not.toContainEqual(getAtt(ids.storefront, 'Arn'));
    expect(sendsTo(ids.schedule)).not.toContainEqual(getAtt(ids.prices, 'Arn'));
  });

  it('lets the reader hold back messages of its own queue only (the worker, as every consumer, only those of the queue it reads)', () => {
    expect(grantsOf(ids.reader, 'sqs:ChangeMessageVisibility')).toEqual([getAtt(ids.storefront, 'Arn')]);
    expect(grantsOf(ids.worker, 'sqs:ChangeMessageVisibility')).toEqual([getAtt(ids.marketSync, 'Arn')]);
    expect(grantsOf(ids.sender, 'sqs:ChangeMessageVisibility')).toEqual([getAtt(ids.prices, 'Arn')]);
    expect(grantsOf(ids.schedule, 'sqs:ChangeMessageVisibility')).toEqual([]);
  });

  it("lets the schedule read the connections directory, the due index's shards and page watches, and only update page watches (a look's lease)", () => {
    const dynamo = roleStatements(synthesized.template, ids.schedule).filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('dynamodb:')),
    );
    const reads = dynamo.find((statement) => actionsOf(statement).includes('dynamodb:GetItem'))!;
    const writes = dynamo.find((statement) => actionsOf(statement).includes('dynamodb:UpdateItem'))!;
    expect(dynamo).toHaveLength(2);
    expect(leadingKeys(reads)).toEqual(['CONNECTIONS*', 'DUE#*', 'PAGE#*']);
    expect(actionsOf(reads).sort()).toEqual(['dynamodb:BatchGetItem', 'dynamodb:ConditionCheckItem', 'dynamodb:GetItem', 'dynamodb:Query']);
    expect(leadingKeys(writes)).toEqual(['PAGE#*']);
    expect(actionsOf(writes)).toEqual(['dynamodb:UpdateItem']);
  });

  it.each(['worker', 'reader'] as const)(
    'lets the %s read and write tenant items, ids, host holds, page watches and the read budget, and read connection lookups and connector types',
    (which) => {
      const dynamo = roleStatements(synthesized.template, ids[which]).filter((statement) =>
        actionsOf(statement).some((action) => action.startsWith('dynamodb:')),
      );
      const reads = dynamo.find((statement) => actionsOf(statement).includes('dynamodb:GetItem'))!;
      const writes = dynamo.find((statement) => actionsOf(statement).includes('dynamodb:PutItem'))!;
      expect(leadingKeys(reads)).toEqual(['T#*', 'CONNECTOR#*', 'COUNTER#*', 'CONNUID#*', 'HOSTHOLD#*', 'PAGE#*', 'BUDGET#*']);
      expect(leadingKeys(writes)).toEqual(['T#*', 'COUNTER#*', 'HOSTHOLD#*', 'PAGE#*', 'BUDGET#*']);
      expect(dynamo).toHaveLength(2);
    },
  );

  it("lets the price sender read the tenant's items, connector types and the operator's stop, and put and update tenant items only: no deletes, batch writes, ids, client items or lookups", () => {
    const dynamo = roleStatements(synthesized.template, ids.sender).filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('dynamodb:')),
    );
    const reads = dynamo.find((statement) => actionsOf(statement).includes('dynamodb:GetItem'))!;
    const writes = dynamo.find((statement) => actionsOf(statement).includes('dynamodb:PutItem'))!;
    expect(dynamo).toHaveLength(2);
    expect(leadingKeys(reads)).toEqual([`${KEY_PREFIXES.tenant}*`, `${KEY_PREFIXES.connector}*`, `${KEY_PREFIXES.stageSetting}*`]);
    expect(actionsOf(reads).sort()).toEqual(['dynamodb:BatchGetItem', 'dynamodb:ConditionCheckItem', 'dynamodb:GetItem', 'dynamodb:Query']);
    expect(leadingKeys(writes)).toEqual([`${KEY_PREFIXES.tenant}*`]);
    expect(actionsOf(writes).sort()).toEqual(['dynamodb:PutItem', 'dynamodb:UpdateItem']);
    expect(TABLE_GRANTS.priceSender).toEqual({
      read: [KEY_PREFIXES.tenant, KEY_PREFIXES.connector, KEY_PREFIXES.stageSetting],
      write: [KEY_PREFIXES.tenant],
      writeActions: ['dynamodb:PutItem', 'dynamodb:UpdateItem'],
    });
    const actions = dynamo.flatMap(actionsOf);
    for (const action of ['dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:Scan', 'dynamodb:GetRecords']) expect(actions).not.toContain(action);
  });
});
