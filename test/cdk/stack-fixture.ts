import { App, cx_api as cxapi } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { RepricerStack } from '../../lib/repricer-stack.js';
import type { RouteDefinition } from '../../lambdas/config/routes.js';
import { CDK_TEMPLATES_ENV, SHARED_SYNTH_DONE } from './global-setup.js';
import type { NagReport } from './nag-report.js';
import { NAG_REPORT_SUFFIX, sharedStackName } from './shared-stacks.js';

/** The context `cdk synth` runs with (feature flags included), so tests see the same stack. */
const cdkJsonContext = (): Record<string, unknown> => {
  const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
    context: Record<string, unknown>;
  };
  return cdkJson.context;
};

export interface SynthOptions {
  readonly stage?: string;
  readonly routes?: readonly RouteDefinition[];
  /**
   * Bundle every function with esbuild, as `cdk synth` does. Slow (seconds per function), so
   * only tests that read the bundled code (`bundledCode`) ask for it; without it the function
   * resources are synthesized all the same, their code pointing at an asset that was not built.
   */
  readonly bundle?: boolean;
  /** Deploy-time context beside the stage (`-c key=value`), as `cdk synth -c` gives it. */
  readonly context?: Readonly<Record<string, string>>;
}

export interface SynthesizedStack {
  readonly app: App;
  readonly stack: RepricerStack;
  readonly template: Template;
  readonly bundled: boolean;
}

/**
 * Stacks this test file has synthesized, by routes (the array itself), stage and bundling: tests
 * that read the same stack share one synth. They only read it, never change it.
 */
const synthesized = new Map<readonly RouteDefinition[] | undefined, Map<string, SynthesizedStack>>();

/** A stack's construct tree, built as `cdk synth` would with this stage, routes and context. */
export const buildStack = (stage: string, routes: readonly RouteDefinition[] | undefined, bundle: boolean, context: Readonly<Record<string, string>> = {}) => {
  // An empty list of stacks to bundle makes every asset skip its bundling step.
  const bundling = bundle ? {} : { [cxapi.BUNDLING_STACKS]: [] };
  const app = new App({ context: { ...cdkJsonContext(), ...context, stage, ...bundling } });
  const stack = new RepricerStack(app, `RepricerApi-${stage}`, { stage, ...(routes ? { routes } : {}) });
  return { app, stack };
};

/** How long a file waits for the run's synth of a shared stack (test/cdk/global-setup.ts). */
const SHARED_TEMPLATE_WAIT_MS = 600_000;

/** The file of the run's template of this stack (or of its cdk-nag report), when the CDK project's global setup makes one. */
const sharedFile = (
  stage: string,
  context: Readonly<Record<string, string>>,
  routes: readonly RouteDefinition[] | undefined,
  suffix = '',
): string | undefined => {
  const directory = process.env[CDK_TEMPLATES_ENV];
  const name = sharedStackName(stage, context, routes);
  return directory !== undefined && name !== undefined ? path.join(directory, `${name}${suffix}.json`) : undefined;
};

/**
 * A file of the run's synth (a process of its own, started by the global setup), once it has
 * written it. Synchronous, as `synthStack` is: the file's thread sleeps between looks.
 */
const awaitSharedFile = (file: string): unknown => {
  const failure = path.join(path.dirname(file), 'error.txt');
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (const deadline = Date.now() + SHARED_TEMPLATE_WAIT_MS; !existsSync(file); Atomics.wait(pause, 0, 0, 100)) {
    if (existsSync(failure)) throw new Error(`The run's synth of the shared stacks failed:\n${readFileSync(failure, 'utf8')}`);
    if (existsSync(path.join(path.dirname(file), SHARED_SYNTH_DONE)))
      throw new Error(`The run's synth left out ${file} (TEST_SCOPE=quick leaves out the whole-stack files' stacks)`);
    if (Date.now() > deadline) throw new Error(`The run's synth did not write ${file} within ${SHARED_TEMPLATE_WAIT_MS / 1000} s`);
  }
  return JSON.parse(readFileSync(file, 'utf8')) as unknown;
};

/** The cdk-nag report of a shared stack that asks for one (`nag` in test/cdk/shared-stacks.ts), from the run's synth. */
export const sharedNagReport = (stage: string): NagReport => {
  const file = sharedFile(stage, {}, undefined, NAG_REPORT_SUFFIX);
  if (file === undefined) throw new Error(`No shared stack of stage ${stage} has a cdk-nag report in this run`);
  return awaitSharedFile(file) as NagReport;
};

const synthesize = (
  stage: string,
  routes: readonly RouteDefinition[] | undefined,
  bundle: boolean,
  context: Readonly<Record<string, string>>,
): SynthesizedStack => {
  const shared = bundle ? undefined : sharedFile(stage, context, routes);
  if (shared === undefined) {
    const { app, stack } = buildStack(stage, routes, bundle, context);
    return { app, stack, template: Template.fromStack(stack), bundled: bundle };
  }
  // The template is the run's; the construct tree is built only for a test that reads it (and
  // such a test need not wait for the run's synth).
  let built: ReturnType<typeof buildStack> | undefined;
  let template: Template | undefined;
  const tree = () => (built ??= buildStack(stage, routes, bundle, context));
  return {
    get app() {
      return tree().app;
    },
    get stack() {
      return tree().stack;
    },
    get template() {
      return (template ??= Template.fromJSON(awaitSharedFile(shared) as Record<string, unknown>));
    },
    bundled: false,
  };
};

export const synthStack = ({ stage = 'dev', routes, bundle = false, context = {} }: SynthOptions = {}): SynthesizedStack => {
  const byOptions = synthesized.get(routes) ?? new Map<string, SynthesizedStack>();
  synthesized.set(routes, byOptions);
  const key = `${stage} ${bundle ? 'bundled' : 'unbundled'} ${JSON.stringify(context)}`;
  const stack = byOptions.get(key) ?? synthesize(stage, routes, bundle, context);
  byOptions.set(key, stack);
  return stack;
};

// Queries over the synthesized template.

export interface CfnResource {
  readonly Type: string;
  readonly Properties: Record<string, any>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
}

export const resourcesOfType = (template: Template, type: string): Record<string, CfnResource> => template.findResources(type) as Record<string, CfnResource>;

const only = <T>(items: readonly T[], what: string): T => {
  if (items.length !== 1) throw new Error(`Expected exactly one ${what}, found ${items.length}`);
  return items[0] as T;
};

/** The Lambda function serving a route (or 'Authorizer'), found by its description prefix. */
export const functionNamed = (template: Template, name: string): [string, CfnResource] =>
  only(
    Object.entries(resourcesOfType(template, 'AWS::Lambda::Function')).filter(([, fn]) => String(fn.Properties.Description).startsWith(`${name}:`)),
    `function ${name}`,
  );

/** A function that serves no route (the list maintenance), found by its description. */
export const functionDescribed = (template: Template, description: string): [string, CfnResource] =>
  only(
    Object.entries(resourcesOfType(template, 'AWS::Lambda::Function')).filter(([, fn]) => fn.Properties.Description === description),
    `function described as "${description}"`,
  );

/** The logical id of the one resource of `type` whose id starts with `prefix`. */
export const resourceId = (template: Template, type: string, prefix: string): string =>
  only(
    Object.keys(resourcesOfType(template, type)).filter((id) => id.startsWith(prefix)),
    `${type} ${prefix}`,
  );

export interface PolicyStatementJson {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
}

export const actionsOf = (statement: PolicyStatementJson): string[] => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]);

/** Every statement of every policy attached to the function's role. */
export const roleStatements = (template: Template, functionLogicalId: string): PolicyStatementJson[] => {
  const fn = resourcesOfType(template, 'AWS::Lambda::Function')[functionLogicalId];
  const roleId = fn?.Properties.Role?.['Fn::GetAtt']?.[0] as string;
  return Object.values(resourcesOfType(template, 'AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as unknown[]).some((role) => JSON.stringify(role) === JSON.stringify({ Ref: roleId })))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as PolicyStatementJson[]);
};

/** Full path of every API Gateway resource, by logical id, rebuilt from PathPart and ParentId. */
export const resourcePaths = (template: Template): Map<string, string> => {
  const resources = resourcesOfType(template, 'AWS::ApiGateway::Resource');
  const pathOf = (id: string): string => {
    const resource = resources[id];
    if (!resource) throw new Error(`No resource ${id}`);
    const parentRef = resource.Properties.ParentId?.Ref as string | undefined;
    const parentPath = parentRef ? pathOf(parentRef) : '';
    return `${parentPath}/${resource.Properties.PathPart as string}`;
  };
  return new Map(Object.keys(resources).map((id) => [id, pathOf(id)]));
};

/** Methods by "VERB /path". */
export const methodsByRoute = (template: Template): Map<string, CfnResource> => {
  const paths = resourcePaths(template);
  const methods = resourcesOfType(template, 'AWS::ApiGateway::Method');
  return new Map(
    Object.values(methods).map((method) => {
      const resourceRef = method.Properties.ResourceId?.Ref as string | undefined;
      const resourcePath = resourceRef ? paths.get(resourceRef) : '/';
      return [`${method.Properties.HttpMethod as string} ${resourcePath}`, method];
    }),
  );
};

/** Where a function's bundled handler is in the staged assets of a stack synthesized with `bundle: true`. */
export const bundledCodePath = ({ app, template, bundled }: SynthesizedStack, functionLogicalId: string): string => {
  if (!bundled) throw new Error('The stack was synthesized without bundling: call synthStack({ bundle: true }) to read bundled code');
  const fn = resourcesOfType(template, 'AWS::Lambda::Function')[functionLogicalId];
  const s3Key = String(fn?.Properties.Code?.S3Key);
  const assetHash = s3Key.replace(/\.zip$/, '');
  return path.join(app.outdir, `asset.${assetHash}`, 'index.mjs');
};

/** The bundled handler code of a function, read from the staged asset of a stack synthesized with `bundle: true`. */
export const bundledCode = (synthesized: SynthesizedStack, functionLogicalId: string): string =>
  readFileSync(bundledCodePath(synthesized, functionLogicalId), 'utf8');
