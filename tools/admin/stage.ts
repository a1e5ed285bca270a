import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';

/**
 * A deployed stage, as its stack's outputs describe it (lib/repricer-stack.ts): the CLI reads
 * them with DescribeStacks, so no table name, API id or usage plan id is ever copied by hand.
 */
export interface StageTargets {
  readonly stage: string;
  readonly stackName: string;
  readonly tableName: string;
  readonly apiId: string;
  readonly usagePlanId: string;
  readonly apiUrl: string | undefined;
  /** `<name>=<queue url>` pairs, space-separated: the stage's dead-letter queues (tools/admin/queues.ts reads them). */
  readonly deadLetterQueues?: string | undefined;
}

/** The output keys the stack declares; a stack deployed before one existed lacks it. */
export const STAGE_OUTPUTS = {
  tableName: 'TableName',
  apiId: 'ApiId',
  usagePlanId: 'UsagePlanId',
  apiUrl: 'ApiUrl',
  deadLetterQueues: 'DeadLetterQueues',
} as const;

const STAGE_PATTERN = /^[A-Za-z0-9-]{1,64}$/;

/** The stack name bin/app.ts gives each stage. */
export const stackNameOf = (stage: string): string => {
  if (!STAGE_PATTERN.test(stage)) throw new Error(`Invalid stage "${stage}": use 1-64 characters from A-Z a-z 0-9 -`);
  return `RepricerApi-${stage}`;
};

export const describeStage = async (stage: string, cloudFormation: CloudFormationClient = new CloudFormationClient({})): Promise<StageTargets> => {
  const stackName = stackNameOf(stage);
  let outputs: Map<string, string>;
  try {
    const { Stacks } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
    const stack = Stacks?.[0];
    if (!stack) throw new Error(`Stack ${stackName} not found`);
    outputs = new Map(
      (stack.Outputs ?? []).flatMap((output) => (output.OutputKey && output.OutputValue ? [[output.OutputKey, output.OutputValue] as const] : [])),
    );
  } catch (error) {
    // CloudFormation answers a missing stack with a ValidationError "Stack with id ... does not exist".
    if (error instanceof Error && error.name === 'ValidationError')
      throw new Error(`Stage "${stage}" is not deployed: ${error.message} (deploy it with \`npx cdk deploy -c stage=${stage}\`)`);
    throw error;
  }
  const required = (key: string): string => {
    const value = outputs.get(key);
    if (!value) throw new Error(`Stack ${stackName} has no output ${key}: deploy the current version (\`npx cdk deploy -c stage=${stage}\`)`);
    return value;
  };
  return {
    stage,
    stackName,
    tableName: required(STAGE_OUTPUTS.tableName),
    apiId: required(STAGE_OUTPUTS.apiId),
    usagePlanId: required(STAGE_OUTPUTS.usagePlanId),
    apiUrl: outputs.get(STAGE_OUTPUTS.apiUrl),
    deadLetterQueues: outputs.get(STAGE_OUTPUTS.deadLetterQueues),
  };
};
