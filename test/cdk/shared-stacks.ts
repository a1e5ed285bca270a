/**
 * The stacks the CDK files read, synthesized once for the run (test/cdk/global-setup.ts) rather
 * than once per file that reads them: each file's own synth costs several seconds.
 * `synthStack` (stack-fixture.ts)
 * serves a request matching one of these (same stage, same context, the same routes array) from
 * the run's template; anything else, and any request for bundles or for the construct tree, is
 * synthesized by the file that asks. No aws-cdk-lib here: the global setup loads this module.
 */
import { ROUTES, type RouteDefinition } from '../../lambdas/config/routes.js';
import { DUE_INDEX } from '../../lambdas/config/table-schema.js';

export interface SharedStack {
  readonly stage: string;
  readonly context?: Readonly<Record<string, string>>;
  readonly routes?: readonly RouteDefinition[];
  /** Read only by the whole-stack files (`*.stack.test.ts`), which `npm run test:quick` leaves out. */
  readonly wholeStackOnly?: boolean;
  /** cdk-nag's report of the stack is written too (`<name>.nag.json`), except under `npm run test:quick`. */
  readonly nag?: boolean;
}

/** The name a shared stack's cdk-nag report has beside its template. */
export const NAG_REPORT_SUFFIX = '.nag';

/** Routes of shapes ROUTES may not hold yet: a path parameter, two methods on it, a public route (test/cdk/api.test.ts). */
export const EXTRA_ROUTES: readonly RouteDefinition[] = [
  {
    name: 'TestGetItem',
    method: 'GET',
    path: '/v1/test-items/{itemId}',
    entry: 'lambdas/functions/list-offers/handler.ts',
    tableAccess: 'read',
    authorized: true,
  },
  {
    name: 'TestDeleteItem',
    method: 'DELETE',
    path: '/v1/test-items/{itemId}',
    entry: 'lambdas/functions/create-repricer/handler.ts',
    tableAccess: 'readWrite',
    authorized: true,
  },
  {
    name: 'TestPublic',
    method: 'GET',
    path: '/v1/test-public.json',
    entry: 'lambdas/functions/list-offers/handler.ts',
    tableAccess: 'read',
    authorized: false,
  },
];
export const ROUTES_WITH_EXTRAS: readonly RouteDefinition[] = [...ROUTES, ...EXTRA_ROUTES];

/** A non-production marketplace named by the deploy (test/cdk/marketplace-urls.stack.test.ts). */
export const SANDBOX_URLS = { seller: 'https://sandbox-seller.example.com/v1', storefront: 'https://sandbox-store.example.com' } as const;
export const SANDBOX_CONTEXT = { takealotSellerApiUrl: SANDBOX_URLS.seller, takealotStorefrontUrl: SANDBOX_URLS.storefront } as const;

/** Who the alarms notify when the deploy names them (test/cdk/alarm-notifications.stack.test.ts). */
export const ALARM_SUBSCRIBERS_CONTEXT = { alarmEmail: 'ops@example.com, oncall@example.com', alarmHttpsEndpoint: 'https://hooks.example.com/alarms' } as const;

/** In the order they are synthesized: what most files read first. */
export const SHARED_STACKS: Readonly<Record<string, SharedStack>> = {
  prod: { stage: 'prod', nag: true },
  dev: { stage: 'dev', nag: true },
  'prod-extra-routes': { stage: 'prod', routes: ROUTES_WITH_EXTRAS },
  staging: { stage: 'staging', wholeStackOnly: true },
  'staging-sandbox': { stage: 'staging', context: SANDBOX_CONTEXT, wholeStackOnly: true },
  'prod-sandbox': { stage: 'prod', context: SANDBOX_CONTEXT, wholeStackOnly: true },
  'staging-alarm-subscribers': { stage: 'staging', context: ALARM_SUBSCRIBERS_CONTEXT, wholeStackOnly: true },
  'staging-withheld-due': { stage: 'staging', context: { withheldIndexes: DUE_INDEX.indexName }, wholeStackOnly: true },
};

const sameContext = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([key, value]) => b[key] === value);

/** The shared stack a request names, if it is one: same stage, same context, the same routes array. */
export const sharedStackName = (stage: string, context: Readonly<Record<string, string>>, routes: readonly RouteDefinition[] | undefined): string | undefined =>
  Object.entries(SHARED_STACKS).find(([, shared]) => shared.stage === stage && shared.routes === routes && sameContext(shared.context ?? {}, context))?.[0];
