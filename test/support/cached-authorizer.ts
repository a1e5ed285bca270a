/**
 * The real authorizer behind a result cache keyed on the Authorization header, as API Gateway
 * runs it (AUTHORIZER.resultsCacheTtlSeconds). Tests that send thousands of requests with one
 * set of credentials use it so they pay for one scrypt derivation, not thousands.
 */
import { AUTHORIZER } from '../../lambdas/config/routes.js';
import type { LambdaHandler } from '../../tools/local/server.js';

export const cachedAuthorizer = (): Record<string, LambdaHandler> => {
  const cache = new Map<string, { result: unknown; expires: number }>();
  let real: Promise<LambdaHandler> | undefined;
  const handler: LambdaHandler = async (event, context) => {
    const header =
      Object.entries((event as { headers?: Record<string, string> }).headers ?? {}).find(
        ([name]) => name.toLowerCase() === AUTHORIZER.identityHeader.toLowerCase(),
      )?.[1] ?? '';
    const hit = cache.get(header);
    if (hit && hit.expires > Date.now()) return hit.result;
    real ??= import('../../lambdas/functions/authorizer/handler.js').then((module) => module.handler as LambdaHandler);
    const result = await (await real)(event, context);
    // Only an Allow is cached here; refusals throw and are decided afresh, which is stricter.
    cache.set(header, { result, expires: Date.now() + AUTHORIZER.resultsCacheTtlSeconds * 1000 });
    return result;
  };
  return { [AUTHORIZER.entry]: handler };
};
