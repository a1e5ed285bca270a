import { STAGE_OUTPUTS } from '../../tools/admin/stage.js';
import { resourcesOfType, synthStack, type SynthesizedStack } from './stack-fixture.js';

/** The CLI's `--stage` finds the table, the API and the usage plan through these outputs alone. */
describe('stack outputs', () => {
  let synthesized: SynthesizedStack;
  let outputs: Record<string, { Value: unknown }>;

  beforeAll(() => {
    synthesized = synthStack({ stage: 'prod' });
    outputs = synthesized.template.toJSON().Outputs as Record<string, { Value: unknown }>;
  });

  const onlyLogicalId = (type: string): string => {
    const ids = Object.keys(resourcesOfType(synthesized.template, type));
    expect(ids).toHaveLength(1);
    return ids[0]!;
  };

  it('names the table, the REST API and the usage plan under the keys the CLI reads', () => {
    // Assess
    expect(outputs[STAGE_OUTPUTS.tableName]?.Value).toEqual({ Ref: onlyLogicalId('AWS::DynamoDB::Table') });
    expect(outputs[STAGE_OUTPUTS.apiId]?.Value).toEqual({ Ref: onlyLogicalId('AWS::ApiGateway::RestApi') });
    expect(outputs[STAGE_OUTPUTS.usagePlanId]?.Value).toEqual({ Ref: onlyLogicalId('AWS::ApiGateway::UsagePlan') });
    expect(outputs[STAGE_OUTPUTS.apiUrl]).toBeDefined();
  });

  it('lists every dead-letter queue by the name its alarm carries, with its URL, for `queues list` and `queues redrive`', () => {
    // Act: `<name>=<url>` pairs joined by spaces.
    const joined = outputs[STAGE_OUTPUTS.deadLetterQueues]?.Value as { 'Fn::Join': [string, { 'Fn::Join': [string, [string, { Ref: string }]] }[]] };
    const pairs = joined['Fn::Join'][1].map((pair) => pair['Fn::Join']);
    const alarms = Object.values(resourcesOfType(synthesized.template, 'AWS::CloudWatch::Alarm')).map((alarm) => String(alarm.Properties.AlarmName));
    const deadLetterNames = alarms.flatMap((name) => /^repricer-prod-(\w+)Depth$/.exec(name)?.[1] ?? []);
    const queues = resourcesOfType(synthesized.template, 'AWS::SQS::Queue');

    // Assess
    expect(joined['Fn::Join'][0]).toBe(' ');
    expect(deadLetterNames.length).toBeGreaterThanOrEqual(8);
    expect(pairs.map(([separator, [name]]) => `${name}${separator}`).sort()).toEqual(deadLetterNames.map((name) => `${name}=`).sort());
    for (const [, [, url]] of pairs) expect(queues[url.Ref]).toBeDefined();
  });
});
