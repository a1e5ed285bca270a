import { Duration, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, type ICommandHooks } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import path from 'node:path';
import { LAMBDA_BUNDLING } from './bundling.js';

/** Shorter than API Gateway's 29 s integration timeout, so a slow call ends as our own error. */
export const FUNCTION_TIMEOUT_SECONDS = 10;
export const FUNCTION_MEMORY_MB = 512;
export const FUNCTION_RUNTIME = Runtime.NODEJS_24_X;
export const POWERTOOLS_SERVICE_NAME = 'repricer-api';

export interface ApiFunctionProps {
  /** Project root: handler entries and the lock file are resolved against it. */
  readonly projectRoot: string;
  /** Handler module relative to the project root; it exports `handler`. */
  readonly entry: string;
  readonly description: string;
  readonly environment: Readonly<Record<string, string>>;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  readonly logLevel: string;
  /** Request handlers keep the default; event consumers that work through batches take longer. */
  readonly timeout?: Duration;
  readonly memorySize?: number;
  /** Files, relative to the project root, copied next to the bundle (read at run time, never bundled). */
  readonly bundledFiles?: readonly string[];
}

const copyAfterBundling = (files: readonly string[]): ICommandHooks => ({
  beforeBundling: () => [],
  beforeInstall: () => [],
  afterBundling: (inputDir, outputDir) => files.map((file) => `cp "${path.join(inputDir, file)}" "${outputDir}"`),
});

/**
 * What every function of the API shares: runtime, architecture, bundling, tracing, its own log
 * group, and a role of its own that starts with nothing but writing to that log group. Callers
 * add the table grants the function needs.
 */
export class ApiFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });

    // An own role instead of the default one: the default attaches the managed
    // AWSLambdaBasicExecutionRole, which may write to every log group of the account.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${props.description}`,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Handler', {
      entry: path.join(props.projectRoot, props.entry),
      handler: 'handler',
      projectRoot: props.projectRoot,
      depsLockFilePath: path.join(props.projectRoot, 'package-lock.json'),
      description: props.description,
      runtime: FUNCTION_RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? FUNCTION_MEMORY_MB,
      timeout: props.timeout ?? Duration.seconds(FUNCTION_TIMEOUT_SECONDS),
      tracing: Tracing.ACTIVE,
      role: this.role,
      logGroup: this.logGroup,
      environment: {
        ...props.environment,
        POWERTOOLS_SERVICE_NAME,
        POWERTOOLS_LOG_LEVEL: props.logLevel,
        // Traces show each SDK call, not the data a handler returned (it holds client data).
        POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false',
        NODE_OPTIONS: '--enable-source-maps',
      },
      bundling: {
        ...LAMBDA_BUNDLING,
        mainFields: [...LAMBDA_BUNDLING.mainFields],
        format: OutputFormat.ESM,
        sourceMap: true,
        sourcesContent: false,
        // Bundle the pinned SDK version instead of whatever the runtime ships.
        externalModules: [],
        ...(props.bundledFiles?.length ? { commandHooks: copyAfterBundling(props.bundledFiles) } : {}),
      },
    });

    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'X-Ray PutTraceSegments/PutTelemetryRecords support no resource-level permissions; active tracing needs Resource *.',
    });
  }
}
