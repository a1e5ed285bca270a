import { CloudFormationClient, CloudFormationServiceException, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { extractStage } from '../../../tools/admin/cli-args.js';
import { describeStage, stackNameOf } from '../../../tools/admin/stage.js';
import { UsageError } from '../../../tools/admin/usage-error.js';

const cloudFormation = mockClient(CloudFormationClient);

const stack = (outputs: Record<string, string>) => ({
  Stacks: [
    {
      StackName: 'RepricerApi-prod',
      StackStatus: 'UPDATE_COMPLETE' as const,
      CreationTime: new Date(),
      Outputs: Object.entries(outputs).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })),
    },
  ],
});

const ALL_OUTPUTS = {
  TableName: 'RepricerApi-prod-Table-ABC',
  ApiId: 'a1b2c3',
  UsagePlanId: 'up9z8y',
  ApiUrl: 'https://a1b2c3.execute-api.eu-west-1.amazonaws.com/prod/',
};

beforeEach(() => cloudFormation.reset());

describe('describeStage', () => {
  it("reads the table, API and usage plan from the stage's stack outputs", async () => {
    // Prepare
    cloudFormation.on(DescribeStacksCommand).resolves(stack(ALL_OUTPUTS));

    // Act
    const targets = await describeStage('prod', new CloudFormationClient({ region: 'eu-west-1' }));

    // Assess
    expect(cloudFormation.commandCalls(DescribeStacksCommand).map((call) => call.args[0].input)).toEqual([{ StackName: 'RepricerApi-prod' }]);
    expect(targets).toEqual({
      stage: 'prod',
      stackName: 'RepricerApi-prod',
      tableName: 'RepricerApi-prod-Table-ABC',
      apiId: 'a1b2c3',
      usagePlanId: 'up9z8y',
      apiUrl: ALL_OUTPUTS.ApiUrl,
    });
  });

  it('names the output a stack deployed by an older version lacks', async () => {
    // Prepare
    cloudFormation.on(DescribeStacksCommand).resolves(stack({ TableName: 'T', ApiUrl: 'https://x/' }));

    // Act & Assess
    await expect(describeStage('prod', new CloudFormationClient({ region: 'eu-west-1' }))).rejects.toThrow('Stack RepricerApi-prod has no output ApiId');
  });

  it('says the stage is not deployed when CloudFormation does not know the stack', async () => {
    // Prepare
    cloudFormation.on(DescribeStacksCommand).rejects(
      new CloudFormationServiceException({
        name: 'ValidationError',
        $fault: 'client',
        $metadata: {},
        message: 'Stack with id RepricerApi-qa does not exist',
      }),
    );

    // Act & Assess
    await expect(describeStage('qa', new CloudFormationClient({ region: 'eu-west-1' }))).rejects.toThrow(
      /Stage "qa" is not deployed: Stack with id RepricerApi-qa does not exist/,
    );
  });

  it('refuses a stage name no stack could have, without calling AWS', async () => {
    // Act & Assess
    await expect(describeStage('prod dev', new CloudFormationClient({ region: 'eu-west-1' }))).rejects.toThrow('Invalid stage');
    expect(cloudFormation.calls()).toHaveLength(0);
    expect(stackNameOf('dev')).toBe('RepricerApi-dev');
  });
});

describe('extractStage', () => {
  it.each([
    [['--stage', 'prod', 'clients', 'list'], 'prod', ['clients', 'list']],
    [['clients', 'show', 'acme', '--stage=qa'], 'qa', ['clients', 'show', 'acme']],
    [['clients', 'list'], undefined, ['clients', 'list']],
  ])('takes the stage out of %j wherever it is', (argv, stage, rest) => {
    // Act & Assess
    expect(extractStage(argv)).toEqual({ stage, rest });
  });

  it.each([[['clients', 'list', '--stage']], [['--stage', '--yes']], [['--stage', 'a', '--stage', 'b']]])('refuses %j', (argv) => {
    // Act & Assess
    expect(() => extractStage(argv)).toThrow(UsageError);
  });
});
