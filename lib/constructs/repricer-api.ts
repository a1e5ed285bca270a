import { Duration, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  Period,
  RequestAuthorizer,
  RestApi,
  type IResource,
  type Method,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { addGatewayResponses } from '../gateway-responses.js';
import { BINARY_MEDIA_TYPES } from '../../lambdas/config/binary-media-types.js';
import type { RouteDefinition } from '../../lambdas/config/routes.js';
import { TABLE_NAME_ENV } from '../../lambdas/config/table-schema.js';
import { ApiFunction } from './api-function.js';
import { addMethodNotAllowed } from './method-not-allowed.js';
import { grantTableAccess, TABLE_GRANTS } from './table-access.js';

/** Stage-wide throttling (requests per second, token-bucket burst): every client together. */
export const API_THROTTLE = { rateLimit: 50, burstLimit: 100 } as const;
/**
 * The usage plan's throttle, applied to each client (API key) on its own: a fifth of the stage,
 * so no single client can use up the stage's capacity.
 */
export const CLIENT_THROTTLE = { rateLimit: 10, burstLimit: 20 } as const;
/**
 * Each client's requests per UTC day: about 2.3 requests/s on average, over twice the workload
 * the service is sized for (per client and hour 2,000 list requests, 100 repricer writes and
 * 1,000 repricer reads: about 75,000 requests a day). Past it, API Gateway answers 429 until
 * the quota renews at 00:00 UTC.
 */
export const CLIENT_QUOTA = { limit: 200_000, period: Period.DAY } as const;

/** One JSON object per request; every value quoted because API Gateway writes `-` for "none". */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  extendedRequestId: '$context.extendedRequestId',
  requestTimeEpoch: '$context.requestTimeEpoch',
  sourceIp: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  httpMethod: '$context.httpMethod',
  resourcePath: '$context.resourcePath',
  path: '$context.path',
  protocol: '$context.protocol',
  status: '$context.status',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationStatus: '$context.integration.status',
  integrationLatency: '$context.integration.latency',
  integrationError: '$context.integration.error',
  errorResponseType: '$context.error.responseType',
  errorMessage: '$context.error.message',
  principalId: '$context.authorizer.principalId',
  authorizerLatency: '$context.authorizer.latency',
  authorizerError: '$context.authorizer.error',
  xrayTraceId: '$context.xrayTraceId',
} as const;

export interface AuthorizerDefinition {
  readonly entry: string;
  readonly identityHeader: string;
  readonly resultsCacheTtlSeconds: number;
}

export interface RepricerApiProps {
  readonly stage: string;
  readonly projectRoot: string;
  readonly routes: readonly RouteDefinition[];
  readonly authorizer: AuthorizerDefinition;
  readonly table: ITable;
  readonly removalPolicy: RemovalPolicy;
  readonly logRetention: RetentionDays;
  readonly logLevel: string;
}

/** The REST API: one resource per path segment, one function per route, built from ROUTES. */
export class RepricerApi extends Construct {
  readonly restApi: RestApi;
  /** Per-client API keys attach here (registered by the operator: see docs/security.md). */
  readonly usagePlan: UsagePlan;
  readonly accessLogs: LogGroup;
  readonly routeFunctions: ReadonlyMap<string, ApiFunction>;
  readonly authorizerFunction: ApiFunction | undefined;

  private readonly props: RepricerApiProps;

  constructor(scope: Construct, id: string, props: RepricerApiProps) {
    super(scope, id);
    this.props = props;
    assertUniqueRoutes(props.routes);

    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });

    this.restApi = new RestApi(this, 'RestApi', {
      restApiName: `repricer-api-${props.stage}`,
      description: `Repricer API (${props.stage})`,
      endpointTypes: [EndpointType.REGIONAL],
      // NDJSON import bodies reach the function base64-encoded, so their size there is predictable.
      binaryMediaTypes: [...BINARY_MEDIA_TYPES],
      // Each client's API key comes from the authorizer (`usageIdentifierKey`), not from a header.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      // The account-wide CloudWatch role is not this stack's to own (see the APIG6 suppression).
      cloudWatchRole: false,
      deployOptions: {
        stageName: props.stage,
        throttlingRateLimit: API_THROTTLE.rateLimit,
        throttlingBurstLimit: API_THROTTLE.burstLimit,
        tracingEnabled: true,
        metricsEnabled: true,
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });
    addGatewayResponses(this.restApi);

    this.usagePlan = this.restApi.addUsagePlan('UsagePlan', {
      name: `repricer-api-${props.stage}`,
      description: `Per client: ${CLIENT_THROTTLE.rateLimit} requests/s (burst ${CLIENT_THROTTLE.burstLimit}), ${CLIENT_QUOTA.limit} requests per UTC day`,
      throttle: { rateLimit: CLIENT_THROTTLE.rateLimit, burstLimit: CLIENT_THROTTLE.burstLimit },
      quota: { limit: CLIENT_QUOTA.limit, period: CLIENT_QUOTA.period },
      apiStages: [{ api: this.restApi, stage: this.restApi.deploymentStage }],
    });

    const needsAuthorizer = props.routes.some((route) => route.authorized);
    this.authorizerFunction = needsAuthorizer ? this.createAuthorizerFunction() : undefined;
    const authorizer = this.authorizerFunction && this.createAuthorizer(this.authorizerFunction);

    const functions = new Map<string, ApiFunction>();
    for (const [path, routes] of groupByPath(props.routes)) {
      const resource = this.resourceFor(path);
      for (const route of routes) functions.set(route.name, this.addRoute(resource, route, authorizer));
      const methodNotAllowed = addMethodNotAllowed(
        resource,
        routes.map((route) => route.method),
      );
      acknowledgePublicMethod(methodNotAllowed, `The ANY method of ${path} only answers 405 with an Allow header from a mock; it reaches no data.`);
    }
    this.routeFunctions = functions;

    this.acknowledgeApiWideFindings();
  }

  private resourceFor(path: string): IResource {
    return path
      .split('/')
      .filter((part) => part.length > 0)
      .reduce<IResource>((parent, part) => parent.getResource(part) ?? parent.addResource(part), this.restApi.root);
  }

  private addRoute(resource: IResource, route: RouteDefinition, authorizer: RequestAuthorizer | undefined): ApiFunction {
    const fn = this.createFunction(route.name, route.entry, `${route.name}: ${route.method} ${route.path}`, route.tableAccess !== 'none', route.bundledFiles);
    if (route.tableAccess !== 'none') grantTableAccess(fn.role, this.props.table, route.tableAccess === 'read' ? TABLE_GRANTS.apiRead : TABLE_GRANTS.apiWrite);
    const method = resource.addMethod(
      route.method,
      new LambdaIntegration(fn.function, { allowTestInvoke: false }),
      // apiKeyRequired meters each client against the usage plan by the key its authorizer returns.
      route.authorized && authorizer
        ? { authorizer, authorizationType: AuthorizationType.CUSTOM, apiKeyRequired: true }
        : { authorizationType: AuthorizationType.NONE },
    );
    if (!route.authorized) {
      acknowledgePublicMethod(method, `${route.method} ${route.path} is public by design (authorized: false in ROUTES).`);
    }
    return fn;
  }

  private createAuthorizerFunction(): ApiFunction {
    const fn = this.createFunction('Authorizer', this.props.authorizer.entry, 'Authorizer: HTTP Basic');
    grantTableAccess(fn.role, this.props.table, TABLE_GRANTS.authorizer);
    return fn;
  }

  private createFunction(id: string, entry: string, description: string, usesTable = true, bundledFiles?: readonly string[]): ApiFunction {
    return new ApiFunction(this, id, {
      projectRoot: this.props.projectRoot,
      entry,
      description,
      ...(bundledFiles ? { bundledFiles } : {}),
      environment: usesTable ? { [TABLE_NAME_ENV]: this.props.table.tableName } : {},
      logRetention: this.props.logRetention,
      removalPolicy: this.props.removalPolicy,
      logLevel: this.props.logLevel,
    });
  }

  private createAuthorizer(fn: ApiFunction): RequestAuthorizer {
    return new RequestAuthorizer(this, 'BasicAuthorizer', {
      authorizerName: `repricer-basic-${this.props.stage}`,
      handler: fn.function,
      identitySources: [IdentitySource.header(this.props.authorizer.identityHeader)],
      resultsCacheTtl: Duration.seconds(this.props.authorizer.resultsCacheTtlSeconds),
    });
  }

  /** cdk-nag findings accepted for the whole API, each for the reason given. */
  private acknowledgeApiWideFindings(): void {
    Validations.of(this.restApi).acknowledge(
      {
        id: 'AwsSolutions-APIG2',
        reason:
          'Requests are validated by zod in each handler, which answers 400 problem+json naming each bad field; ' +
          'API Gateway request validators can only answer a generic BAD_REQUEST_BODY.',
      },
      {
        id: 'AwsSolutions-COG4',
        reason:
          'Clients authenticate with HTTP Basic (service interface, section 5), checked by the Lambda REQUEST ' +
          'authorizer; there is no Cognito user pool by design.',
      },
      {
        id: 'AwsSolutions-APIG3',
        reason:
          'No WAF web ACL yet: the API serves authenticated machine clients and load is bounded by stage and ' +
          `stage throttling (${API_THROTTLE.rateLimit} rps, burst ${API_THROTTLE.burstLimit}) and, per client, ` +
          `usage-plan throttling (${CLIENT_THROTTLE.rateLimit} rps, burst ${CLIENT_THROTTLE.burstLimit}) and a daily quota.`,
      },
      {
        id: 'AwsSolutions-APIG6',
        reason:
          'Every request is logged by the JSON access log (status, error type and message, authorizer and ' +
          'integration errors). Execution logging needs the account-wide API Gateway CloudWatch role, which one ' +
          'stage of one service should not own.',
      },
    );
  }
}

const acknowledgePublicMethod = (method: Method, reason: string): void => {
  Validations.of(method).acknowledge({ id: 'AwsSolutions-APIG4', reason });
};

const groupByPath = (routes: readonly RouteDefinition[]): Map<string, RouteDefinition[]> => {
  const byPath = new Map<string, RouteDefinition[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  return byPath;
};

const assertUniqueRoutes = (routes: readonly RouteDefinition[]): void => {
  const seen = new Set<string>();
  for (const route of routes) {
    if (!route.path.startsWith('/') || route.path.endsWith('/')) {
      throw new Error(`Route ${route.name}: path must start with "/" and not end with one: ${route.path}`);
    }
    for (const key of [`name ${route.name}`, `${route.method} ${route.path}`]) {
      if (seen.has(key)) throw new Error(`Duplicate route: ${key}`);
      seen.add(key);
    }
  }
};
