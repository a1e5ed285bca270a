import { ALARM_THRESHOLDS } from '../../lib/constructs/alarms.js';
import { CHANGE_HANDLERS, IMPORT_WORKER, MAX_IMPORT_ATTEMPTS } from '../../lambdas/config/event-sources.js';
import { KEY_PREFIXES } from '../../lib/constructs/table-access.js';
import { PRICE_SENDER_QUEUE_URL_ENV } from '../../lambdas/config/price-sending.js';
import {
  actionsOf,
  resourceId,
  resourcesOfType,
  roleStatements,
  synthStack,
  type CfnResource,
  type PolicyStatementJson,
  type SynthesizedStack,
} from './stack-fixture.js';

/**
 * The event-driven half of the stack: the table's stream -> forwarder -> two SQS FIFO queues
 * (one message group per tenant) -> the list maintainer and the repricing evaluator, each step
 * reporting partial failures and ending in an alarmed dead-letter queue.
 */
const getAtt = (id: string, attribute: string) => ({ 'Fn::GetAtt': [id, attribute] });
const QUEUES = ['lists', 'repricing'] as const;
type QueueName = (typeof QUEUES)[number];

describe('change handlers', () => {
  let synthesized: SynthesizedStack;
  let ids: { table: string; streamFailures: string; forwarder: string; webhookQueue: string };
  let work: Record<QueueName | 'imports', { queue: string; deadLetters: string; consumer: string }>;
  let mappings: CfnResource[];
  const resource = (type: string, id: string) => resourcesOfType(synthesized.template, type)[id]!;
  const mappingOf = (sourceArn: unknown) => mappings.find((mapping) => JSON.stringify(mapping.Properties.EventSourceArn) === JSON.stringify(sourceArn));
  const statementsOf = (functionId: string) => roleStatements(synthesized.template, functionId);
  const resourcesOf = (statements: PolicyStatementJson[], prefix: string) =>
    statements.filter((statement) => actionsOf(statement).some((action) => action.startsWith(prefix))).flatMap((statement) => [statement.Resource].flat());

  beforeAll(() => {
    synthesized = synthStack({ stage: 'prod' });
    const { template } = synthesized;
    mappings = Object.values(resourcesOfType(template, 'AWS::Lambda::EventSourceMapping'));
    const table = resourceId(template, 'AWS::DynamoDB::Table', 'DataTable');
    const functionOf = (sourceArn: unknown) => String(mappingOf(sourceArn)?.Properties.FunctionName.Ref);
    const fifo = (prefix: string) => {
      const queue = resourceId(template, 'AWS::SQS::Queue', `${prefix}Queue`);
      return { queue, deadLetters: resourceId(template, 'AWS::SQS::Queue', `${prefix}DeadLetters`), consumer: functionOf(getAtt(queue, 'Arn')) };
    };
    ids = {
      table,
      streamFailures: resourceId(template, 'AWS::SQS::Queue', 'ChangesStreamFailures'),
      forwarder: functionOf(getAtt(table, 'StreamArn')),
      webhookQueue: resourceId(template, 'AWS::SQS::Queue', 'ChangesWebhooksQueue'),
    };
    work = { lists: fifo('ChangesListChanges'), repricing: fifo('ChangesRepricing'), imports: fifo('ChangesImports') };
  });

  describe('queues', () => {
    it.each(QUEUES)('hands %s work to its consumer through a FIFO queue that dead-letters a message after maxReceiveCount receives', (name) => {
      expect(resource('AWS::SQS::Queue', work[name].queue).Properties).toMatchObject({
        FifoQueue: true,
        SqsManagedSseEnabled: true,
        RedrivePolicy: { deadLetterTargetArn: getAtt(work[name].deadLetters, 'Arn'), maxReceiveCount: CHANGE_HANDLERS.maxReceiveCount },
        // Six times the consumer's timeout, so a slow batch is not handed out twice
        VisibilityTimeout: 6 * CHANGE_HANDLERS.consumerTimeoutSeconds,
      });
      expect(CHANGE_HANDLERS.maxReceiveCount).toBe(5);
    });

    it.each(QUEUES)('dead-letters %s work into a FIFO queue (a FIFO queue can only redrive to one) that keeps messages 14 days', (name) => {
      expect(resource('AWS::SQS::Queue', work[name].deadLetters).Properties).toMatchObject({
        FifoQueue: true,
        MessageRetentionPeriod: 14 * 24 * 3600,
        SqsManagedSseEnabled: true,
      });
    });

    it('keeps stream batches the forwarder gave up on in a standard queue for 14 days', () => {
      const queue = resource('AWS::SQS::Queue', ids.streamFailures).Properties;
      expect(queue).toMatchObject({ MessageRetentionPeriod: 14 * 24 * 3600, SqsManagedSseEnabled: true });
      expect(queue.FifoQueue).toBeUndefined();
    });

    it('refuses every request to each queue without TLS', () => {
      const queueIds = [ids.streamFailures, ...QUEUES.flatMap((name) => [work[name].queue, work[name].deadLetters])];
      for (const queueId of queueIds) {
        const policies = Object.values(resourcesOfType(synthesized.template, 'AWS::SQS::QueuePolicy')).filter(
          (policy) => JSON.stringify(policy.Properties.Queues) === JSON.stringify([{ Ref: queueId }]),
        );
        expect(policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement)).toContainEqual(
          expect.objectContaining({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        );
      }
    });
  });

  describe('the forwarder', () => {
    it("reads the table's stream from the oldest record, in batches without a batching window, reporting failed records, bisecting failing batches, then giving up to a queue", () => {
      expect(mappingOf(getAtt(ids.table, 'StreamArn'))?.Properties).toMatchObject({
        FunctionName: { Ref: ids.forwarder },
        StartingPosition: 'TRIM_HORIZON',
        BatchSize: CHANGE_HANDLERS.streamBatchSize,
        MaximumBatchingWindowInSeconds: 0,
        MaximumRetryAttempts: CHANGE_HANDLERS.streamRetryAttempts,
        BisectBatchOnFunctionError: true,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        DestinationConfig: { OnFailure: { Destination: getAtt(ids.streamFailures, 'Arn') } },
      });
    });

    it('is woken only by changes of offers, products, repricer slots, price changes, rebuild requests, connections, marketplace events and market views, old or new, and by import jobs created pending, never by what the maintainer writes', () => {
      // Act
      const patterns = (mappingOf(getAtt(ids.table, 'StreamArn'))?.Properties.FilterCriteria.Filters as { Pattern: string }[]).map(({ Pattern }) =>
        JSON.parse(Pattern),
      );

      // Assess
      const entities = ['offer', 'product', 'repricerSlot', 'priceChange', 'rebuildRequest', 'connection', 'marketplaceEvent', 'productMarket'];
      expect(patterns).toEqual([
        { dynamodb: { NewImage: { entity: { S: entities } } } },
        { dynamodb: { OldImage: { entity: { S: entities } } } },
        { dynamodb: { NewImage: { entity: { S: ['import'] }, record: { M: { status: { S: ['pending', 'completed', 'failed'] } } } } } },
      ]);
      expect(entities).not.toContain('offerListing');
      expect(entities).not.toContain('rankNode');
      expect(entities).not.toContain('hostHold');
    });

    it('knows the queues and not the table', () => {
      const variables = resource('AWS::Lambda::Function', ids.forwarder).Properties.Environment.Variables;
      expect(variables.LIST_QUEUE_URL).toEqual({ Ref: work.lists.queue });
      expect(variables.REPRICING_QUEUE_URL).toEqual({ Ref: work.repricing.queue });
      expect(variables.IMPORT_QUEUE_URL).toEqual({ Ref: work.imports.queue });
      expect(variables[PRICE_SENDER_QUEUE_URL_ENV]).toEqual({ Ref: resourceId(synthesized.template, 'AWS::SQS::Queue', 'MarketPricesQueue') });
      expect(variables.TABLE_NAME).toBeUndefined();
    });

    it('may read the stream and send to the queues (and to its failure queue), and nothing else', () => {
      // Act
      const statements = statementsOf(ids.forwarder);
      const dynamo = statements.flatMap(actionsOf).filter((action) => action.startsWith('dynamodb:'));

      // Assess
      expect(dynamo.sort()).toEqual(['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams']);
      const streamRead = statements.find((statement) => actionsOf(statement).includes('dynamodb:GetRecords'));
      expect(streamRead?.Resource).toEqual(getAtt(ids.table, 'StreamArn'));
      expect(resourcesOf(statements, 'dynamodb:').map((arn) => JSON.stringify(arn))).not.toContain(JSON.stringify(getAtt(ids.table, 'Arn')));
      const sqs = statements.filter((statement) => actionsOf(statement).some((action) => action.startsWith('sqs:')));
      expect([...new Set(sqs.flatMap(actionsOf))].sort()).toEqual(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
      expect(
        resourcesOf(statements, 'sqs:')
          .map((arn) => JSON.stringify(arn))
          .sort(),
      ).toEqual(
        [
          getAtt(work.lists.queue, 'Arn'),
          getAtt(work.repricing.queue, 'Arn'),
          getAtt(work.imports.queue, 'Arn'),
          getAtt(ids.webhookQueue, 'Arn'),
          getAtt(ids.streamFailures, 'Arn'),
          // Marketplace events bring a connection's next sync forward (lib/constructs/market-loop.ts).
          getAtt(resourceId(synthesized.template, 'AWS::SQS::Queue', 'MarketMarketSyncQueue'), 'Arn'),
          // Price changes that became pending, connection moves and batch events reach the price sender.
          getAtt(resourceId(synthesized.template, 'AWS::SQS::Queue', 'MarketPricesQueue'), 'Arn'),
        ]
          .map((arn) => JSON.stringify(arn))
          .sort(),
      );
    });
  });

  describe.each(QUEUES)('the consumer of %s work', (name) => {
    it('takes up to 10 messages at a time from its queue, reporting the ones that failed', () => {
      expect(mappingOf(getAtt(work[name].queue, 'Arn'))?.Properties).toMatchObject({
        FunctionName: { Ref: work[name].consumer },
        BatchSize: CHANGE_HANDLERS.queueBatchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      expect(CHANGE_HANDLERS.queueBatchSize).toBeLessThanOrEqual(10);
    });

    it('has the time and memory of a batch consumer, and the table', () => {
      expect(resource('AWS::Lambda::Function', work[name].consumer).Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Timeout: CHANGE_HANDLERS.consumerTimeoutSeconds,
        MemorySize: CHANGE_HANDLERS.consumerMemoryMb,
        TracingConfig: { Mode: 'Active' },
        Environment: { Variables: expect.objectContaining({ TABLE_NAME: { Ref: ids.table } }) },
      });
    });

    it('may read and write the table and consume its own queue, but not read the stream, scan or send messages', () => {
      // Act
      const statements = statementsOf(work[name].consumer);
      const actions = statements.flatMap(actionsOf);

      // Assess
      expect(actions).toEqual(expect.arrayContaining(['dynamodb:Query', 'dynamodb:UpdateItem', 'sqs:ReceiveMessage', 'sqs:DeleteMessage']));
      for (const action of ['dynamodb:GetRecords', 'dynamodb:Scan', 'sqs:SendMessage']) expect(actions).not.toContain(action);
      expect(resourcesOf(statements, 'sqs:')).toEqual([getAtt(work[name].queue, 'Arn')]);
    });
  });

  describe('the import worker', () => {
    it('takes one job at a time from a FIFO queue that redelivers it once more than the worker attempts it, then dead-letters it', () => {
      expect(resource('AWS::SQS::Queue', work.imports.queue).Properties).toMatchObject({
        FifoQueue: true,
        SqsManagedSseEnabled: true,
        RedrivePolicy: { deadLetterTargetArn: getAtt(work.imports.deadLetters, 'Arn'), maxReceiveCount: MAX_IMPORT_ATTEMPTS + 1 },
        VisibilityTimeout: IMPORT_WORKER.visibilityTimeoutSeconds,
      });
      expect(IMPORT_WORKER.visibilityTimeoutSeconds).toBeGreaterThan(IMPORT_WORKER.timeoutSeconds);
      expect(mappingOf(getAtt(work.imports.queue, 'Arn'))?.Properties).toMatchObject({ BatchSize: 1, FunctionResponseTypes: ['ReportBatchItemFailures'] });
      expect(resource('AWS::Lambda::Function', work.imports.consumer).Properties).toMatchObject({ Timeout: 900, MemorySize: IMPORT_WORKER.memoryMb });
    });

    it("may touch tenants' items, connector types and counters by leading key, never client items, the stream or other queues", () => {
      // Act
      const statements = statementsOf(work.imports.consumer);
      const actions = statements.flatMap(actionsOf);
      const prefixes = statements.flatMap((statement) =>
        [(statement as { Condition?: Record<string, Record<string, string[]>> }).Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] ?? []].flat(),
      );

      // Assess
      expect(actions).toEqual(expect.arrayContaining(['dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:BatchWriteItem', 'sqs:ReceiveMessage']));
      for (const action of ['dynamodb:GetRecords', 'dynamodb:Scan', 'sqs:SendMessage']) expect(actions).not.toContain(action);
      expect(resourcesOf(statements, 'sqs:')).toEqual([getAtt(work.imports.queue, 'Arn')]);
      expect(prefixes.length).toBeGreaterThan(0);
      expect(prefixes).not.toContain(`${KEY_PREFIXES.client}*`);
      expect(new Set(prefixes)).toEqual(new Set([`${KEY_PREFIXES.tenant}*`, `${KEY_PREFIXES.connector}*`, `${KEY_PREFIXES.counter}*`]));
    });

    it("alarms on the first dead-lettered job and on the worker's errors", () => {
      const alarms = Object.values(resourcesOfType(synthesized.template, 'AWS::CloudWatch::Alarm')).map((alarm) => alarm.Properties);
      expect(alarms.find((alarm) => alarm.AlarmName === 'repricer-prod-ImportDeadLettersDepth')).toMatchObject({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: getAtt(work.imports.deadLetters, 'QueueName') }],
        Threshold: 1,
      });
      expect(alarms.find((alarm) => alarm.AlarmName === 'repricer-prod-ImportWorkerErrors')).toMatchObject({
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: work.imports.consumer } }],
      });
    });
  });

  it('gives the repricing evaluator the price-change retention parameter, default 90 days', () => {
    const variables = resource('AWS::Lambda::Function', work.repricing.consumer).Properties.Environment.Variables;
    const parameter = (variables.PRICE_CHANGE_RETENTION_DAYS as { Ref: string }).Ref;
    expect(synthesized.template.toJSON().Parameters[parameter]).toMatchObject({ Type: 'Number', Default: 90 });
  });

  describe('alarms', () => {
    const alarmNamed = (suffix: string) =>
      Object.values(resourcesOfType(synthesized.template, 'AWS::CloudWatch::Alarm')).find((alarm) => alarm.Properties.AlarmName === `repricer-prod-${suffix}`)
        ?.Properties;

    it.each([
      ['ListChangesDeadLettersDepth', () => work.lists.deadLetters],
      ['RepricingDeadLettersDepth', () => work.repricing.deadLetters],
      ['StreamFailuresDepth', () => ids.streamFailures],
    ] as const)('%s alarms on the first message in a dead-letter queue', (name, queue) => {
      expect(alarmNamed(name)).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: getAtt(queue(), 'QueueName') }],
        Statistic: 'Maximum',
        Threshold: ALARM_THRESHOLDS.deadLetters,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
      expect(ALARM_THRESHOLDS.deadLetters).toBe(1);
    });

    it.each([
      ['ListChangesAge', 'lists'],
      ['RepricingAge', 'repricing'],
    ] as const)('%s alarms when the oldest message waits a minute in its queue', (alarm, name) => {
      expect(alarmNamed(alarm)).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateAgeOfOldestMessage',
        Dimensions: [{ Name: 'QueueName', Value: getAtt(work[name].queue, 'QueueName') }],
        Threshold: 60,
      });
    });

    it('alarms when the forwarder reads the stream a minute behind', () => {
      expect(alarmNamed('ChangeForwarderIteratorAge')).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'IteratorAge',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: ids.forwarder } }],
        Statistic: 'Maximum',
        Threshold: 60_000,
      });
    });

    it.each([
      ['ChangeForwarder', () => ids.forwarder],
      ['ListMaintainer', () => work.lists.consumer],
      ['RepricingEvaluator', () => work.repricing.consumer],
    ] as const)('alarms on errors and throttles of the %s function', (name, functionId) => {
      for (const metric of ['Errors', 'Throttles']) {
        expect(alarmNamed(`${name}${metric}`)).toMatchObject({
          MetricName: metric,
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId() } }],
          Threshold: 1,
        });
      }
    });
  });
});
