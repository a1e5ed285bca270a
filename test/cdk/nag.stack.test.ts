import { sharedNagReport } from './stack-fixture.js';

/** cdk-nag's AwsSolutions checks and CDK's annotations, as the run's synth reported them (test/cdk/nag-report.ts). */
describe.each(['dev', 'prod'])('cdk-nag AwsSolutions on the %s stack', (stage) => {
  const report = () => sharedNagReport(stage);

  it('reports no unacknowledged finding, error or warning', () => {
    expect(report().findings).toEqual([]);
    expect(report().success).toBe(true);
  });

  it('acknowledges only the documented rules, each with a reason', () => {
    // Act
    const rules = report().acknowledged;

    // Assess
    expect(Object.keys(rules).sort()).toEqual([
      'AwsSolutions-APIG2',
      'AwsSolutions-APIG3',
      'AwsSolutions-APIG4',
      'AwsSolutions-APIG6',
      'AwsSolutions-COG4',
      'AwsSolutions-IAM5[Resource::*]',
      'AwsSolutions-SNS2',
      'AwsSolutions-SQS3',
    ]);
    for (const reasons of Object.values(rules)) {
      for (const reason of reasons) expect(reason.length).toBeGreaterThan(40);
    }
  });

  it('leaves no CDK error or warning annotation', () => {
    expect(report().errors).toEqual([]);
    expect(report().warnings).toEqual([]);
  });
});
