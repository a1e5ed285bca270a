import { MARKET_LOOP_DESCRIPTIONS } from '../../lib/constructs/market-loop.js';
import { MARKETPLACE_EVENT_ROUTE } from '../../lib/repricer-stack.js';
import { SECRETS_KEY_ENV } from '../../lambdas/crypto/key-provider.js';
import { TAKEALOT_SELLER_API_URL_ENV, TAKEALOT_STOREFRONT_URL_ENV } from '../../lambdas/marketplace/registry.js';
import { takealotMarketplace } from '../../lambdas/marketplace/takealot/marketplace.js';
import {
  actionsOf,
  functionDescribed,
  functionNamed,
  resourceId,
  resourcesOfType,
  roleStatements,
  synthStack,
  type SynthesizedStack,
} from './stack-fixture.js';

const WORKER_DESCRIPTION = 'the webhook worker (signed deliveries, retried for 24 hours)';

/** The KMS actions a function's role has on the secrets key (or on any key: a wildcard resource counts too). */
const kmsActions = (synthesized: SynthesizedStack, functionId: string, keyId: string): string[] =>
  roleStatements(synthesized.template, functionId)
    .filter((statement) => {
      const resource = JSON.stringify(statement.Resource);
      return resource.includes(keyId) || resource === '"*"';
    })
    .flatMap(actionsOf)
    .filter((action) => action.startsWith('kms:'))
    .sort();

describe('the secrets key', () => {
  let synthesized: SynthesizedStack;
  let keyId: string;

  beforeAll(() => {
    synthesized = synthStack();
    keyId = resourceId(synthesized.template, 'AWS::KMS::Key', 'SecretsKey');
  });

  it('is a rotated customer managed key', () => {
    expect(resourcesOfType(synthesized.template, 'AWS::KMS::Key')[keyId]?.Properties).toMatchObject({ EnableKeyRotation: true });
  });

  it('lets the create-webhook function generate data keys (its secret, its kept answer) and decrypt them (to replay that answer), nothing else', () => {
    const [id] = functionNamed(synthesized.template, 'CreateWebhook');
    expect(kmsActions(synthesized, id, keyId)).toEqual(['kms:Decrypt', 'kms:GenerateDataKey']);
  });

  it('lets the webhook worker decrypt data keys and nothing else', () => {
    const [id] = functionDescribed(synthesized.template, WORKER_DESCRIPTION);
    expect(kmsActions(synthesized, id, keyId)).toEqual(['kms:Decrypt']);
  });

  it("lets the put-connection function generate data keys and nothing else, and tells it Takealot's URLs on the production stage", () => {
    const [id] = functionNamed(synthesized.template, 'PutConnection');
    expect(kmsActions(synthesized, id, keyId)).toEqual(['kms:GenerateDataKey']);
    const prod = synthStack({ stage: 'prod' }).template;
    expect(resourcesOfType(prod, 'AWS::Lambda::Function')[functionNamed(prod, 'PutConnection')[0]]?.Properties.Environment.Variables).toMatchObject({
      [TAKEALOT_SELLER_API_URL_ENV]: takealotMarketplace.productionUrls.sellerApiUrl,
      [TAKEALOT_STOREFRONT_URL_ENV]: takealotMarketplace.productionUrls.storefrontUrl,
    });
  });

  it.each([
    ['market sync worker', MARKET_LOOP_DESCRIPTIONS.worker],
    ['storefront reader', MARKET_LOOP_DESCRIPTIONS.reader],
    ['price sender', MARKET_LOOP_DESCRIPTIONS.sender],
  ])('lets the %s decrypt data keys and nothing else', (_name, description) => {
    const [id] = functionDescribed(synthesized.template, description);
    expect(kmsActions(synthesized, id, keyId)).toEqual(['kms:Decrypt']);
  });

  it('lets the route receiving marketplace events decrypt data keys and nothing else', () => {
    const [id] = functionNamed(synthesized.template, MARKETPLACE_EVENT_ROUTE);
    expect(kmsActions(synthesized, id, keyId)).toEqual(['kms:Decrypt']);
  });

  it('grants no other function any use of a KMS key, nor tells it the key', () => {
    const [createWebhook] = functionNamed(synthesized.template, 'CreateWebhook');
    const [putConnection] = functionNamed(synthesized.template, 'PutConnection');
    const [worker] = functionDescribed(synthesized.template, WORKER_DESCRIPTION);
    const [marketWorker] = functionDescribed(synthesized.template, MARKET_LOOP_DESCRIPTIONS.worker);
    const [reader] = functionDescribed(synthesized.template, MARKET_LOOP_DESCRIPTIONS.reader);
    const [sender] = functionDescribed(synthesized.template, MARKET_LOOP_DESCRIPTIONS.sender);
    const [receiveEvents] = functionNamed(synthesized.template, MARKETPLACE_EVENT_ROUTE);
    const granted = [createWebhook, worker, putConnection, marketWorker, reader, sender, receiveEvents];
    const functions = Object.entries(resourcesOfType(synthesized.template, 'AWS::Lambda::Function'));
    const others = functions.filter(([id]) => !granted.includes(id));
    expect(others.length).toBeGreaterThan(10);
    for (const [id, fn] of others) {
      const kms = roleStatements(synthesized.template, id)
        .flatMap(actionsOf)
        .filter((action) => action.startsWith('kms:'));
      expect({ id, kms }).toEqual({ id, kms: [] });
      expect({ id, env: fn.Properties.Environment?.Variables?.[SECRETS_KEY_ENV] }).toEqual({ id, env: undefined });
    }
    for (const id of granted) {
      expect(resourcesOfType(synthesized.template, 'AWS::Lambda::Function')[id]?.Properties.Environment.Variables[SECRETS_KEY_ENV]).toEqual({
        'Fn::GetAtt': [keyId, 'Arn'],
      });
    }
  });

  it('has the API hand NDJSON bodies to the function base64-encoded, so their size in the invocation is predictable', () => {
    const [api] = Object.values(resourcesOfType(synthesized.template, 'AWS::ApiGateway::RestApi'));
    expect(api?.Properties.BinaryMediaTypes).toEqual(['application/x-ndjson']);
  });
});
