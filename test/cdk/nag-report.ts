/**
 * What cdk-nag's AwsSolutions checks and CDK's own annotations say of a stack, as plain data:
 * the run's synth (test/cdk/synthesize-templates.ts) writes it for the stacks it builds anyway,
 * and test/cdk/nag.stack.test.ts reads it, rather than building each stack's construct tree again.
 */
import { Validations, type Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import cdkNag from 'cdk-nag';
import type { IConstruct } from 'constructs';

export interface NagReport {
  /** `rule (severity) at construct paths`, for every violation. */
  readonly findings: readonly string[];
  readonly success: boolean;
  /** Every acknowledged rule id in the tree, with the reasons given for it. */
  readonly acknowledged: Readonly<Record<string, readonly string[]>>;
  /** CDK's error and warning annotations. */
  readonly errors: readonly unknown[];
  readonly warnings: readonly unknown[];
}

const acknowledgedRules = (root: IConstruct): Record<string, string[]> => {
  const rules: Record<string, string[]> = {};
  for (const construct of root.node.findAll()) {
    for (const entry of construct.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
        const ruleId = id.replace(/^annotation::/i, '');
        (rules[ruleId] ??= []).push(reason);
      }
    }
  }
  return rules;
};

export const nagReport = (stack: Stack): NagReport => {
  const report = new cdkNag.AwsSolutionsChecks().validateScope(stack);
  const annotations = Annotations.fromStack(stack);
  return {
    findings: report.violations.map((v) => `${v.ruleName} (${v.severity}) at ${v.violatingResources.map((r) => r.constructPath).join(', ')}`),
    success: report.success,
    acknowledged: acknowledgedRules(stack),
    errors: annotations.findError('*', Match.anyValue()),
    warnings: annotations.findWarning('*', Match.anyValue()),
  };
};
