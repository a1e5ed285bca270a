import { ALARM_THRESHOLDS } from '../../lib/constructs/alarms.js';
import { LIST_MAINTENANCE } from '../../lib/constructs/list-maintenance.js';
import { actionsOf, bundledCode, resourceId, resourcesOfType, roleStatements, synthStack, type CfnResource, type PolicyStatementJson, type SynthesizedStack } from './stack-fixture.js';

/**
 * The event-driven half of the stack: the table's stream -> forwarder -> SQS FIFO queue (one
 * message group per tenant) -> maintainer, each step reporting partial failures and ending in
 * an alarmed dead-letter queue.
 */
const getAtt = (id: string, attribute: string) => ({ 'Fn::GetAtt': [id, attribute] });

describe('list maintenance', () => {
  let synthesized: SynthesizedStack;
  let ids: { table: string; changes: string; deadLetters: string; streamFailures: string; forwarder: string; maintainer: string };
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
    const changes = resourceId(template, 'AWS::SQS::Queue', 'ListsChanges');
    const functionOf = (sourceArn: unknown) => String(mappingOf(sourceArn)?.Properties.FunctionName.Ref);
    ids = {
      table,
      changes,
      deadLetters: resourceId(template, 'AWS::SQS::Queue', 'ListsDeadLetters'),
      streamFailures: resourceId(template, 'AWS::SQS::Queue', 'ListsStreamFailures'),
      forwarder: functionOf(getAtt(table, 'StreamArn')),
      maintainer: functionOf(getAtt(changes, 'Arn')),
    };
  });

  describe('queues', () => {
    it('hands changes to the maintainer through a FIFO queue that dead-letters a message after maxReceiveCount receives', () => {
      expect(resource('AWS::SQS::Queue', ids.changes).Properties).toMatchObject({
        FifoQueue: true,
        SqsManagedSseEnabled: true,
        RedrivePolicy: { deadLetterTargetArn: getAtt(ids.deadLetters, 'Arn'), maxReceiveCount: LIST_MAINTENANCE.maxReceiveCount },
        // Six times the maintainer's timeout, so a slow batch is not handed out twice
        VisibilityTimeout: 6 * LIST_MAINTENANCE.maintainerTimeout.toSeconds(),
      });
      expect(LIST_MAINTENANCE.maxReceiveCount).toBe(5);
    });

    it('dead-letters into a FIFO queue (a FIFO queue can only redrive to one) that keeps messages 14 days', () => {
      expect(resource('AWS::SQS::Queue', ids.deadLetters).Properties).toMatchObject({ FifoQueue: true, MessageRetentionPeriod: 14 * 24 * 3600, SqsManagedSseEnabled: true });
    });

    it('keeps stream batches the forwarder gave up on in a standard queue for 14 days', () => {
      const queue = resource('AWS::SQS::Queue', ids.streamFailures).Properties;
      expect(queue).toMatchObject({ MessageRetentionPeriod: 14 * 24 * 3600, SqsManagedSseEnabled: true });
      expect(queue.FifoQueue).toBeUndefined();
    });

    it.each(['changes', 'deadLetters', 'streamFailures'] as const)('refuses every request to the %s queue without TLS', (queue) => {
      const policies = Object.values(resourcesOfType(synthesized.template, 'AWS::SQS::QueuePolicy')).filter(
        (policy) => JSON.stringify(policy.Properties.Queues) === JSON.stringify([{ Ref: ids[queue] }]),
      );
      expect(policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement)).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    });
  });

  describe('the forwarder', () => {
    it('reads the table\'s stream from the oldest record, in batches, reporting failed records, bisecting failing batches, then giving up to a queue', () => {
      expect(mappingOf(getAtt(ids.table, 'StreamArn'))?.Properties).toMatchObject({
        FunctionName: { Ref: ids.forwarder },
        StartingPosition: 'TRIM_HORIZON',
        BatchSize: LIST_MAINTENANCE.streamBatchSize,
        MaximumRetryAttempts: LIST_MAINTENANCE.streamRetryAttempts,
        BisectBatchOnFunctionError: true,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        DestinationConfig: { OnFailure: { Destination: getAtt(ids.streamFailures, 'Arn') } },
      });
    });

    it('is woken only by changes of offers, products and rebuild requests, old or new, never by what the maintainer writes', () => {
      // Act
      const patterns = (mappingOf(getAtt(ids.table, 'StreamArn'))?.Properties.FilterCriteria.Filters as { Pattern: string }[]).map(({ Pattern }) => JSON.parse(Pattern));

      // Assess
      const entities = ['offer', 'product', 'rebuildRequest'];
      expect(patterns).toEqual([
        { dynamodb: { NewImage: { entity: { S: entities } } } },
        { dynamodb: { OldImage: { entity: { S: entities } } } },
      ]);
      expect(entities).not.toContain('offerListing');
      expect(entities).not.toContain('rankNode');
    });

    it('knows the queue and not the table', () => {
      const variables = resource('AWS::Lambda::Function', ids.forwarder).Properties.Environment.Variables;
      expect(variables.LIST_QUEUE_URL).toEqual({ Ref: ids.changes });
      expect(variables.TABLE_NAME).toBeUndefined();
    });

    it('may read the stream and send to the queue (and to its failure queue), and nothing else', () => {
      // Act
      const statements = statementsOf(ids.forwarder);
      const dynamo = statements.flatMap(actionsOf).filter((action) => action.startsWith('dynamodb:'));

      // Assess
      expect(dynamo.sort()).toEqual(['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams']);
      const streamRead = statements.find((statement) => actionsOf(statement).includes('dynamodb:GetRecords'));
      expect(streamRead?.Resource).toEqual(getAtt(ids.table, 'StreamArn'));
      expect(resourcesOf(statements, 'dynamodb:').map((arn) => JSON.stringify(arn))).not.toContain(JSON.stringify(getAtt(ids.table, 'Arn')));
      const sqs = statements.filter((statement) => actionsOf(statement).some((action) => action.startsWith('sqs:')));
      expect(sqs.flatMap(actionsOf).sort()).toEqual(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
      expect(resourcesOf(statements, 'sqs:')).toEqual([getAtt(ids.changes, 'Arn'), getAtt(ids.streamFailures, 'Arn')]);
    });

    it('is bundled from its entry as ESM that exports `handler`', () => {
      const code = bundledCode(synthesized.app, synthesized.template, ids.forwarder);
      expect(code).toMatch(/export\s*\{[^}]*\bhandler\b[^}]*\}/);
      expect(code).toContain('LIST_QUEUE_URL');
    });
  });

  describe('the maintainer', () => {
    it('takes up to 10 messages at a time from the queue, reporting the ones that failed', () => {
      expect(mappingOf(getAtt(ids.changes, 'Arn'))?.Properties).toMatchObject({
        FunctionName: { Ref: ids.maintainer },
        BatchSize: LIST_MAINTENANCE.queueBatchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      expect(LIST_MAINTENANCE.queueBatchSize).toBeLessThanOrEqual(10);
    });

    it('has the time and memory of a batch consumer, and the table', () => {
      expect(resource('AWS::Lambda::Function', ids.maintainer).Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Timeout: LIST_MAINTENANCE.maintainerTimeout.toSeconds(),
        MemorySize: LIST_MAINTENANCE.maintainerMemoryMb,
        TracingConfig: { Mode: 'Active' },
        Environment: { Variables: { TABLE_NAME: { Ref: ids.table } } },
      });
    });

    it('may read and write the table and consume the queue, but not read the stream or send messages', () => {
      // Act
      const statements = statementsOf(ids.maintainer);
      const actions = statements.flatMap(actionsOf);

      // Assess
      expect(actions).toEqual(expect.arrayContaining(['dynamodb:Query', 'dynamodb:BatchWriteItem', 'dynamodb:UpdateItem', 'sqs:ReceiveMessage', 'sqs:DeleteMessage']));
      for (const action of ['dynamodb:GetRecords', 'dynamodb:Scan', 'sqs:SendMessage']) expect(actions).not.toContain(action);
      expect(resourcesOf(statements, 'sqs:')).toEqual([getAtt(ids.changes, 'Arn')]);
    });
  });

  describe('alarms', () => {
    const alarmNamed = (suffix: string) =>
      Object.values(resourcesOfType(synthesized.template, 'AWS::CloudWatch::Alarm')).find((alarm) => alarm.Properties.AlarmName === `repricer-prod-${suffix}`)?.Properties;

    it.each([
      ['ListChangesDeadLettersDepth', 'deadLetters'],
      ['ListStreamFailuresDepth', 'streamFailures'],
    ] as const)('%s alarms on the first message in a dead-letter queue', (name, queue) => {
      expect(alarmNamed(name)).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: getAtt(ids[queue], 'QueueName') }],
        Statistic: 'Maximum',
        Threshold: ALARM_THRESHOLDS.deadLetters,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
      expect(ALARM_THRESHOLDS.deadLetters).toBe(1);
    });

    it('alarms when the oldest change waits a minute in the queue', () => {
      expect(alarmNamed('ListChangesAge')).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateAgeOfOldestMessage',
        Dimensions: [{ Name: 'QueueName', Value: getAtt(ids.changes, 'QueueName') }],
        Threshold: 60,
      });
    });

    it('alarms when the forwarder reads the stream a minute behind', () => {
      expect(alarmNamed('ListForwarderIteratorAge')).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'IteratorAge',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: ids.forwarder } }],
        Statistic: 'Maximum',
        Threshold: 60_000,
      });
    });

    it.each(['ListForwarder', 'ListMaintainer'])('alarms on errors and throttles of the %s function', (name) => {
      const functionId = name === 'ListForwarder' ? ids.forwarder : ids.maintainer;
      for (const metric of ['Errors', 'Throttles']) {
        expect(alarmNamed(`${name}${metric}`)).toMatchObject({ MetricName: metric, Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId } }], Threshold: 1 });
      }
    });
  });
});
