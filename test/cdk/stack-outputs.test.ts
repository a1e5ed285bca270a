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
});
