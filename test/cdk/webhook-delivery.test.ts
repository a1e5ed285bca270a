import { WEBHOOK_DELIVERY } from '../../lambdas/config/event-sources.js';
import { actionsOf, resourceId, resourcesOfType, roleStatements, synthStack, type CfnResource, type SynthesizedStack } from './stack-fixture.js';

/** The webhook half of the stack: FIFO queue and dead letters, the worker, its grants and the dead-letter alarm. */
const getAtt = (id: string, attribute: string) => ({ 'Fn::GetAtt': [id, attribute] });

describe('webhook delivery', () => {
  let synthesized: SynthesizedStack;
  let queue: string;
  let deadLetters: string;
  let worker: string;
  const resource = (type: string, id: string) => resourcesOfType(synthesized.template, type)[id]!;

  beforeAll(() => {
    synthesized = synthStack({ stage: 'prod' });
    const { template } = synthesized;
    queue = resourceId(template, 'AWS::SQS::Queue', 'ChangesWebhooksQueue');
    deadLetters = resourceId(template, 'AWS::SQS::Queue', 'ChangesWebhooksDeadLetters');
    const mapping = Object.values(resourcesOfType(template, 'AWS::Lambda::EventSourceMapping')).find(
      (m: CfnResource) => JSON.stringify(m.Properties.EventSourceArn) === JSON.stringify(getAtt(queue, 'Arn')),
    );
    worker = String(mapping?.Properties.FunctionName.Ref);
  });

  it('queues events in a FIFO queue kept past the 24-hour retry window, dead-lettering what the worker cannot handle', () => {
    expect(resource('AWS::SQS::Queue', queue).Properties).toMatchObject({
      FifoQueue: true,
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: WEBHOOK_DELIVERY.retentionSeconds,
      RedrivePolicy: { deadLetterTargetArn: getAtt(deadLetters, 'Arn'), maxReceiveCount: WEBHOOK_DELIVERY.maxReceiveCount },
    });
    expect(WEBHOOK_DELIVERY.retentionSeconds).toBeGreaterThan(24 * 3600);
    expect(resource('AWS::SQS::Queue', deadLetters).Properties).toMatchObject({ FifoQueue: true });
  });

  it('hands the worker one message at a time, reporting failures', () => {
    const mapping = Object.values(resourcesOfType(synthesized.template, 'AWS::Lambda::EventSourceMapping')).find(
      (m) => m.Properties.FunctionName.Ref === worker,
    );
    expect(mapping?.Properties).toMatchObject({ BatchSize: 1, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    const fn = resource('AWS::Lambda::Function', worker).Properties;
    expect(fn.Environment.Variables.WEBHOOK_QUEUE_URL).toEqual({ Ref: queue });
    expect(fn.Environment.Variables.WEBHOOK_ALLOW_LOCAL_HTTP).toBeUndefined();
    expect(fn.Timeout).toBe(WEBHOOK_DELIVERY.timeoutSeconds);
  });

  it('lets the worker touch only tenant keys, with puts and updates, and hold back messages of its own queue', () => {
    // Act
    const statements = roleStatements(synthesized.template, worker);
    const dynamo = statements.filter((statement) => actionsOf(statement).some((action) => action.startsWith('dynamodb:')));
    const visibility = statements.find((statement) => actionsOf(statement).includes('sqs:ChangeMessageVisibility'));

    // Assess
    for (const statement of dynamo) {
      expect((statement as { Condition?: unknown }).Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['T#*'] } });
    }
    const writes = dynamo.flatMap(actionsOf).filter((action) => /Put|Update|Delete|Write/.test(action));
    expect(writes.sort()).toEqual(['dynamodb:PutItem', 'dynamodb:UpdateItem']);
    expect(visibility?.Resource).toEqual(getAtt(queue, 'Arn'));
  });

  it('alarms on any message in the dead-letter queue', () => {
    const alarms = Object.values(resourcesOfType(synthesized.template, 'AWS::CloudWatch::Alarm'));
    const alarm = alarms.find((a) => JSON.stringify(a.Properties.Dimensions ?? []).includes(JSON.stringify(getAtt(deadLetters, 'QueueName'))));
    expect(alarm?.Properties).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1 });
  });
});
