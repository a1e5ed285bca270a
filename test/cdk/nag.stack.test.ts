import { Validations } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import cdkNag from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { synthStack, type SynthesizedStack } from './stack-fixture.js';

/** Every acknowledged rule id in the tree, with the reasons given for it. */
const acknowledgedRules = (root: IConstruct): Map<string, string[]> => {
  const rules = new Map<string, string[]>();
  for (const construct of root.node.findAll()) {
    for (const entry of construct.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
        const ruleId = id.replace(/^annotation::/i, '');
        rules.set(ruleId, [...(rules.get(ruleId) ?? []), reason]);
      }
    }
  }
  return rules;
};

describe.each(['dev', 'prod'])('cdk-nag AwsSolutions on the %s stack', (stage) => {
  let synthesized: SynthesizedStack;

  beforeAll(() => {
    synthesized = synthStack({ stage });
  });

  it('reports no unacknowledged finding, error or warning', () => {
    // Act
    const report = new cdkNag.AwsSolutionsChecks().validateScope(synthesized.stack);

    // Assess
    const findings = report.violations.map((v) => `${v.ruleName} (${v.severity}) at ${v.violatingResources.map((r) => r.constructPath).join(', ')}`);
    expect(findings).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('acknowledges only the documented rules, each with a reason', () => {
    // Act
    const rules = acknowledgedRules(synthesized.stack);

    // Assess
    expect([...rules.keys()].sort()).toEqual([
      'AwsSolutions-APIG2',
      'AwsSolutions-APIG3',
      'AwsSolutions-APIG4',
      'AwsSolutions-APIG6',
      'AwsSolutions-COG4',
      'AwsSolutions-IAM5[Resource::*]',
      'AwsSolutions-SNS2',
      'AwsSolutions-SQS3',
    ]);
    for (const reasons of rules.values()) {
      for (const reason of reasons) expect(reason.length).toBeGreaterThan(40);
    }
  });

  it('leaves no CDK error or warning annotation', () => {
    const annotations = Annotations.fromStack(synthesized.stack);
    expect(annotations.findError('*', Match.anyValue())).toEqual([]);
    expect(annotations.findWarning('*', Match.anyValue())).toEqual([]);
  });
});
