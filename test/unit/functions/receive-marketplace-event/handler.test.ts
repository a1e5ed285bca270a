import { jest } from '@jest/globals';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { EVENT_REFUSED } from '../../../../lambdas/functions/receive-marketplace-event/answers.js';
import { receiveMarketplaceEventRoute } from '../../../../lambdas/functions/receive-marketplace-event/handler.js';
import { forgetOpenedSecrets, openWebhookSecret } from '../../../../lambdas/functions/receive-marketplace-event/webhook-secret.js';
import type { KeyProvider, SealedValue } from '../../../../lambdas/crypto/envelope.js';
import { localKeyProvider } from '../../../../lambdas/crypto/local-key-provider.js';
import { MAX_BODY_BYTES } from '../../../../lambdas/http/body-limit.js';
import { httpHandler } from '../../../../lambdas/http/handler.js';
import { logger } from '../../../../lambdas/observability/logger.js';
import type { MarketplaceLookup } from '../../../../lambdas/marketplace/registry.js';
import { sealConnectionSecret } from '../../../../lambdas/marketplace/secrets.js';
import { createTakealotAdapter } from '../../../../lambdas/marketplace/takealot/adapter.js';
import { signWebhook } from '../../../../tools/market/webhooks.js';
import { connection } from '../../fixtures/market-events.js';
import { apiEvent, CONTEXT } from '../../fixtures/api-events.js';
import { takealotMarketplace } from '../../../../lambdas/marketplace/takealot/marketplace.js';
import { fakeMarketplace, fakeMarketplacePort } from '../../../support/fake-marketplace/marketplace.js';

const ddb = mockClient(DynamoDBDocumentClient);
const SECRET = 'whsec_unit_test_marketplace_secret';
const UID = connection().uid;
const LOOKUP_KEY = { pk: `CONNUID#${UID}`, sk: 'CONNUID' };
const CONNECTION_KEY = { pk: 'T#c1#CONN', sk: 'C#takealot' };
const LOCAL_URL = `http://127.0.0.1:3000/v1/marketplace-events/${UID}`;
const AWS_DOMAIN = 'abc123.execute-api.eu-west-1.amazonaws.com';
const AWS_URL = `https://${AWS_DOMAIN}/prod/v1/marketplace-events/${UID}`;

/** Counts the data keys it unwraps: one per secret opened. */
const counting = (provider: KeyProvider) => {
  const counter = { decrypts: 0 };
  return {
    counter,
    provider: {
      generateDataKey: (context) => provider.generateDataKey(context),
      decryptDataKey: (encrypted, context) => (counter.decrypts++, provider.decryptDataKey(encrypted, context)),
    } as KeyProvider,
  };
};
const keys = counting(localKeyProvider(Buffer.alloc(32, 7)));
const adapter = createTakealotAdapter({ sellerApiUrl: 'http://127.0.0.1:9/v1', storefrontUrl: 'http://127.0.0.1:9' });
const lookup = (): MarketplaceLookup => ({ kind: 'adapter', port: adapter, marketplace: takealotMarketplace, storefrontUrl: 'https://storefront.example' });
const receive = httpHandler(receiveMarketplaceEventRoute(lookup, openWebhookSecret(keys.provider)));
let sealed: SealedValue;

const BODY = JSON.stringify({ offer_id: 123456, values_changed: { selling_price: { old: 100, new: 95 } } });

interface Delivery {
  readonly uid?: string;
  readonly body?: string;
  readonly signature?: string | null;
  readonly deliveryId?: string;
  readonly aws?: boolean;
}

const eventOf = ({ uid = UID, body = BODY, signature, deliveryId = '5d1f0b2a-7c3e-4f9a-8b6d-2e4c6a8b0d1f', aws = false }: Delivery): APIGatewayProxyEvent => {
  const headers: Record<string, string> = {
    host: aws ? AWS_DOMAIN : '127.0.0.1:3000',
    'content-type': 'application/json',
    'x-takealot-event': 'Offer Updated',
    'x-takealot-delivery': deliveryId,
  };
  const signed = signature === undefined ? signWebhook('hex-body', SECRET, LOCAL_URL, body) : signature;
  if (signed !== null) headers['x-takealot-signature'] = signed;
  const base = apiEvent({ method: 'POST', path: `/v1/marketplace-events/${uid}`, headers, body, authorizer: null });
  return {
    ...base,
    resource: '/v1/marketplace-events/{uid}',
    pathParameters: { uid },
    requestContext: { ...base.requestContext, ...(aws ? { domainName: AWS_DOMAIN } : {}), path: aws ? `/prod/v1/marketplace-events/${uid}` : base.path },
  };
};

const send = (delivery: Delivery = {}) => receive(eventOf(delivery), CONTEXT) as Promise<APIGatewayProxyResult>;
const puts = () => ddb.commandCalls(PutCommand).map((call) => call.args[0].input);

beforeAll(async () => {
  process.env.TABLE_NAME = 'test-table';
  sealed = await sealConnectionSecret('marketplace-webhook-secret', 'c1', 'takealot', SECRET, keys.provider);
});

beforeEach(() => {
  ddb.reset();
  forgetOpenedSecrets();
  keys.counter.decrypts = 0;
  logger.setLogLevel('SILENT');
  ddb.on(GetCommand, { Key: LOOKUP_KEY }).resolves({ Item: { ...LOOKUP_KEY, entity: 'connectionUid', clientId: 'c1', connector: 'takealot' } });
  ddb
    .on(GetCommand, { Key: CONNECTION_KEY })
    .resolves({ Item: { ...CONNECTION_KEY, entity: 'connection', record: connection(), sealedKey: sealed, sealedWebhookSecret: sealed } });
  ddb.on(PutCommand).resolves({});
});

describe('POST /v1/marketplace-events/{uid}', () => {
  it('records an event signed with the hex HMAC of the body once, under the tenant, with a TTL: 200', async () => {
    // Act
    const before = Math.floor(Date.now() / 1000);
    const response = await send();

    // Assert
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ received: true });
    const [put] = puts();
    expect(put?.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(put?.Item).toMatchObject({
      pk: `T#c1#MEVT#${UID}`,
      sk: '5d1f0b2a-7c3e-4f9a-8b6d-2e4c6a8b0d1f',
      entity: 'marketplaceEvent',
      uid: UID,
      deliveryId: '5d1f0b2a-7c3e-4f9a-8b6d-2e4c6a8b0d1f',
      eventType: 'offer_updated',
      offerId: '123456',
    });
    // What the event says changed is not kept: the next look reads the offer itself.
    expect(JSON.stringify(put?.Item)).not.toContain('selling_price');
    const expiresAt = put?.Item?.expiresAt as number;
    expect(expiresAt - before).toBeGreaterThanOrEqual(7 * 24 * 3600);
    expect(expiresAt - before).toBeLessThan(7 * 24 * 3600 + 60);
  });

  it('verifies the base64 HMAC of URL + body against the public URL as called on AWS (domain, stage and path)', async () => {
    // Act
    const response = await send({ aws: true, signature: signWebhook('base64-url-body', SECRET, AWS_URL, BODY) });

    // Assert
    expect(response.statusCode).toBe(200);
    expect(puts()).toHaveLength(1);
  });

  it('verifies the URL + body scheme against the URL the local server was called at', async () => {
    expect((await send({ signature: signWebhook('base64-url-body', SECRET, LOCAL_URL, BODY) })).statusCode).toBe(200);
  });

  it('opens the webhook secret once for a burst of events', async () => {
    // Act
    const statuses = [];
    for (const n of [1, 2, 3]) statuses.push((await send({ deliveryId: `delivery-${n}` })).statusCode);

    // Assert
    expect(statuses).toEqual([200, 200, 200]);
    expect(keys.counter.decrypts).toBe(1);
  });

  describe('answers every request that is not a verified new event with the same 401, and changes nothing', () => {
    const cases: [string, () => void, Delivery][] = [
      ['a uid that is not a connection uid', () => undefined, { uid: 'not-a-uid' }],
      ['an unknown uid', () => ddb.on(GetCommand, { Key: LOOKUP_KEY }).resolves({}), {}],
      [
        'a connection without a webhook secret',
        () =>
          ddb.on(GetCommand, { Key: CONNECTION_KEY }).resolves({ Item: { ...CONNECTION_KEY, entity: 'connection', record: connection(), sealedKey: sealed } }),
        {},
      ],
      [
        'a lookup left by a replaced connection',
        () =>
          ddb.on(GetCommand, { Key: CONNECTION_KEY }).resolves({
            Item: {
              ...CONNECTION_KEY,
              entity: 'connection',
              record: connection({ uid: crypto.randomUUID() }),
              sealedKey: sealed,
              sealedWebhookSecret: sealed,
            },
          }),
        {},
      ],
      ['an unsigned request', () => undefined, { signature: null }],
      ['a signature made with another secret', () => undefined, { signature: signWebhook('hex-body', 'another-secret-of-16+', LOCAL_URL, BODY) }],
      [
        'a body changed after signing',
        () => undefined,
        { signature: signWebhook('hex-body', SECRET, LOCAL_URL, BODY), body: BODY.replace('123456', '123457') },
      ],
      ['the URL + body scheme signed for another URL', () => undefined, { signature: signWebhook('base64-url-body', SECRET, `${LOCAL_URL}/x`, BODY) }],
      ['a body over 16 KiB', () => undefined, { body: JSON.stringify({ offer_id: 1, pad: 'x'.repeat(MAX_BODY_BYTES) }) }],
    ];

    it.each(cases)('%s', async (_case, arrange, delivery) => {
      // Arrange
      arrange();

      // Act
      const response = await send(delivery);

      // Assert
      expect(response.statusCode).toBe(401);
      expect(response.body).toBe(JSON.stringify(EVENT_REFUSED));
      expect(response.headers?.['Content-Type']).toBe('application/problem+json');
      expect(response.headers?.['WWW-Authenticate']).toBeUndefined();
      expect(puts()).toEqual([]);
    });

    it('a delivery id already seen: no second item', async () => {
      // Arrange
      const first = await send();
      ddb.on(PutCommand).rejects(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }));

      // Act
      const repeat = await send();

      // Assert
      expect(first.statusCode).toBe(200);
      expect(repeat.statusCode).toBe(401);
      expect(repeat.body).toBe(JSON.stringify(EVENT_REFUSED));
      // The second put was the conditional one that failed: nothing was written twice.
      expect(puts().map((put) => put.ConditionExpression)).toEqual(['attribute_not_exists(pk)', 'attribute_not_exists(pk)']);
    });

    it('gives byte-identical answers for all of them', async () => {
      // Act
      const answers = [];
      for (const [, arrange, delivery] of cases) {
        ddb.reset();
        ddb.on(GetCommand, { Key: LOOKUP_KEY }).resolves({ Item: { ...LOOKUP_KEY, entity: 'connectionUid', clientId: 'c1', connector: 'takealot' } });
        ddb
          .on(GetCommand, { Key: CONNECTION_KEY })
          .resolves({ Item: { ...CONNECTION_KEY, entity: 'connection', record: connection(), sealedKey: sealed, sealedWebhookSecret: sealed } });
        arrange();
        const response = await send(delivery);
        answers.push(JSON.stringify({ status: response.statusCode, headers: response.headers, body: response.body }));
      }

      // Assert
      expect(new Set(answers).size).toBe(1);
    });
  });

  it('logs why it refused, but never the secret or the body', async () => {
    // Arrange
    const warn = jest.spyOn(logger, 'warn');
    const info = jest.spyOn(logger, 'info');

    // Act
    await send();
    await send({ signature: 'sha256=0000' });

    // Assert
    const logged = JSON.stringify([...warn.mock.calls, ...info.mock.calls]);
    expect(logged).toContain('bad-signature');
    expect(logged).not.toContain(SECRET);
    expect(logged).not.toContain('selling_price');
    warn.mockRestore();
    info.mockRestore();
  });

  it("tells an unsigned event from a badly signed one by the marketplace's own signature header", async () => {
    // Prepare: the connection served by a second marketplace, whose webhooks sign in x-fakemart-signature
    const fake = fakeMarketplacePort({ sellerApiUrl: 'http://127.0.0.1:8', storefrontUrl: 'http://127.0.0.1:8' });
    const route = httpHandler(
      receiveMarketplaceEventRoute(
        () => ({ kind: 'adapter', port: fake.port, marketplace: fakeMarketplace, storefrontUrl: 'http://127.0.0.1:8' }),
        openWebhookSecret(keys.provider),
      ),
    );
    const warn = jest.spyOn(logger, 'warn');
    const reasons = () => warn.mock.calls.map((call) => (call[1] as { reason?: string }).reason);
    const withHeaders = (extra: Record<string, string>) => {
      const base = eventOf({ signature: null });
      return { ...base, headers: { ...base.headers, ...extra } };
    };

    // Act
    await route(withHeaders({ 'X-Fakemart-Signature': 'sig' }), CONTEXT);
    await route(withHeaders({ 'x-takealot-signature': 'sig' }), CONTEXT);

    // Assess: Takealot's header means nothing to it
    expect(reasons()).toEqual(['bad-signature', 'unsigned']);
    warn.mockRestore();
  });
});
