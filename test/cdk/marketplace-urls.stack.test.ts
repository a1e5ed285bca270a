import { TAKEALOT_SELLER_API_URL_ENV, TAKEALOT_STOREFRONT_URL_ENV } from '../../lambdas/marketplace/registry.js';
import { takealotMarketplace } from '../../lambdas/marketplace/takealot/marketplace.js';
import { MARKET_LOOP_DESCRIPTIONS } from '../../lib/constructs/market-loop.js';
import { MARKETPLACE_EVENT_ROUTE } from '../../lib/repricer-stack.js';
import { SANDBOX_CONTEXT, SANDBOX_URLS } from './shared-stacks.js';
import { functionDescribed, functionNamed, resourcesOfType, synthStack } from './stack-fixture.js';

/** Every function of the stage's stack with its Takealot URLs (undefined where it has none). */
const takealotUrls = (stage: string, context?: Record<string, string>) => {
  const { template } = synthStack({ stage, ...(context ? { context } : {}) });
  const functions = resourcesOfType(template, 'AWS::Lambda::Function');
  const urlsOf = (id: string) => {
    const variables = (functions[id]?.Properties.Environment?.Variables ?? {}) as Record<string, unknown>;
    return { seller: variables[TAKEALOT_SELLER_API_URL_ENV], storefront: variables[TAKEALOT_STOREFRONT_URL_ENV] };
  };
  const callers = {
    PutConnection: functionNamed(template, 'PutConnection')[0],
    [MARKETPLACE_EVENT_ROUTE]: functionNamed(template, MARKETPLACE_EVENT_ROUTE)[0],
    worker: functionDescribed(template, MARKET_LOOP_DESCRIPTIONS.worker)[0],
    reader: functionDescribed(template, MARKET_LOOP_DESCRIPTIONS.reader)[0],
    sender: functionDescribed(template, MARKET_LOOP_DESCRIPTIONS.sender)[0],
  };
  return {
    callers: Object.fromEntries(Object.entries(callers).map(([name, id]) => [name, urlsOf(id)])),
    anyFunctionWithUrls: Object.keys(functions).filter((id) => urlsOf(id).seller !== undefined || urlsOf(id).storefront !== undefined).length,
  };
};

const PRODUCTION = { seller: takealotMarketplace.productionUrls.sellerApiUrl, storefront: takealotMarketplace.productionUrls.storefrontUrl };
const SANDBOX = { ...SANDBOX_URLS };

describe("the stage's marketplace URLs", () => {
  it("give the production stage Takealot's production URLs on every function that calls it", () => {
    const { callers } = takealotUrls('prod');
    for (const urls of Object.values(callers)) expect(urls).toEqual(PRODUCTION);
  });

  it.each(['dev', 'staging'])('give the %s stage no marketplace at all unless the deploy names one', (stage) => {
    expect(takealotUrls(stage).anyFunctionWithUrls).toBe(0);
  });

  it('give a non-production stage the URLs its deploy context names, on every function that calls the marketplace', () => {
    const { callers } = takealotUrls('staging', SANDBOX_CONTEXT);
    for (const urls of Object.values(callers)) expect(urls).toEqual(SANDBOX);
  });

  it("let the production stage's deploy context override its defaults", () => {
    const { callers } = takealotUrls('prod', SANDBOX_CONTEXT);
    expect(callers.PutConnection).toEqual(SANDBOX);
  });

  it.each([
    ['only one of the two URLs', { takealotSellerApiUrl: SANDBOX.seller }, 'Give both "takealotSellerApiUrl" and "takealotStorefrontUrl"'],
    [
      'a plain-HTTP URL',
      { ...SANDBOX_CONTEXT, takealotStorefrontUrl: 'http://sandbox-store.example.com' },
      'Context "takealotStorefrontUrl" must be an https:// URL',
    ],
  ])('refuse %s at synth', (_, context, message) => {
    expect(() => synthStack({ stage: 'staging', context })).toThrow(message);
  });
});
