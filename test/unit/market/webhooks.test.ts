import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_FAULTS, MarketOptionError } from '../../../tools/market/options.js';
import { Simulation } from '../../../tools/market/simulation.js';
import type { FaultSettings } from '../../../tools/market/faults.js';
import { createPrng } from '../../../tools/market/prng.js';
import { signWebhook, WebhookSender } from '../../../tools/market/webhooks.js';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on 127.0.0.1 that answers the given statuses in turn (then 200). */
const startReceiver = async (statuses: number[] = []) => {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/takealot`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
};

const waitFor = async (condition: () => boolean, ms = 3_000) => {
  for (const start = Date.now(); !condition();) {
    if (Date.now() - start > ms) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

const sender = (
  url: string | undefined,
  overrides: { signature?: 'hex-body' | 'base64-url-body'; valuesChanged?: 'object' | 'string'; faults?: Partial<FaultSettings> } = {},
) =>
  new WebhookSender(
    {
      url,
      secret: 'shh-secret',
      signature: overrides.signature ?? 'hex-body',
      valuesChanged: overrides.valuesChanged ?? 'object',
      timeoutMs: 5_000,
      retries: 3,
      retryDelayMs: 10,
    },
    () => ({ ...DEFAULT_FAULTS, ...overrides.faults }),
    createPrng(1),
  );

const payload = { seller_id: '1000001', offer_id: 100000001, values_changed: { selling_price: { old: 120, new: 110 } } };

describe('webhook signatures', () => {
  it('hex-body: the hex HMAC-SHA256 of the raw body alone', () => {
    const body = '{"a":1}';
    expect(signWebhook('hex-body', 'k', 'http://127.0.0.1/x', body)).toBe(createHmac('sha256', 'k').update(body).digest('hex'));
    expect(signWebhook('hex-body', 'k', 'http://127.0.0.1/other', body)).toBe(signWebhook('hex-body', 'k', 'http://127.0.0.1/x', body));
  });

  it('base64-url-body: the base64 HMAC-SHA256 of the URL followed by the body', () => {
    const body = '{"a":1}';
    expect(signWebhook('base64-url-body', 'k', 'http://127.0.0.1/x', body)).toBe(
      createHmac('sha256', 'k').update(`http://127.0.0.1/x${body}`).digest('base64'),
    );
    expect(signWebhook('base64-url-body', 'k', 'http://127.0.0.1/other', body)).not.toBe(signWebhook('base64-url-body', 'k', 'http://127.0.0.1/x', body));
  });
});

describe('webhook delivery', () => {
  it.each(['hex-body', 'base64-url-body'] as const)('sends %s-signed events with the Takealot headers', async (signature) => {
    const receiver = await startReceiver();
    const webhooks = sender(receiver.url, { signature });
    try {
      webhooks.send('Offer Updated', payload);
      await waitFor(() => receiver.received.length === 1);
      const [delivery] = receiver.received;
      expect(delivery!.headers['x-takealot-event']).toBe('Offer Updated');
      expect(delivery!.headers['x-takealot-delivery']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(delivery!.headers['x-takealot-signature']).toBe(signWebhook(signature, 'shh-secret', receiver.url, delivery!.body));
      expect(JSON.parse(delivery!.body)).toEqual(payload);
      await waitFor(() => webhooks.deliveries()[0]!.outcome === 'delivered');
    } finally {
      await webhooks.close();
      await receiver.close();
    }
  });

  it('sends values_changed as a JSON string when so switched', async () => {
    const receiver = await startReceiver();
    const webhooks = sender(receiver.url, { valuesChanged: 'string' });
    try {
      webhooks.send('Offer Updated', payload);
      await waitFor(() => receiver.received.length === 1);
      const body = JSON.parse(receiver.received[0]!.body);
      expect(typeof body.values_changed).toBe('string');
      expect(JSON.parse(body.values_changed)).toEqual(payload.values_changed);
    } finally {
      await webhooks.close();
      await receiver.close();
    }
  });

  it('retries a failed delivery with the same delivery id until it is answered 2xx', async () => {
    const receiver = await startReceiver([500, 503]);
    const webhooks = sender(receiver.url);
    try {
      webhooks.send('Batch Completed', { seller_id: '1', batch_id: 4, status: 'SUCCESS' });
      await waitFor(() => webhooks.deliveries()[0]!.outcome === 'delivered');
      expect(receiver.received).toHaveLength(3);
      expect(new Set(receiver.received.map((r) => r.headers['x-takealot-delivery'])).size).toBe(1);
      expect(webhooks.deliveries()[0]!.attempts).toBe(3);
    } finally {
      await webhooks.close();
      await receiver.close();
    }
  });

  it('drops events at the drop rate and sends them twice at the duplicate rate', async () => {
    const receiver = await startReceiver();
    const dropping = sender(receiver.url, { faults: { webhookDropRate: 1 } });
    const doubling = sender(receiver.url, { faults: { webhookDuplicateRate: 1 } });
    try {
      expect(dropping.send('Offer Updated', payload)!.outcome).toBe('dropped');
      doubling.send('Offer Updated', payload);
      await waitFor(() => receiver.received.length === 2);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(receiver.received).toHaveLength(2);
      expect(receiver.received[0]!.headers['x-takealot-delivery']).toBe(receiver.received[1]!.headers['x-takealot-delivery']);
    } finally {
      await dropping.close();
      await doubling.close();
      await receiver.close();
    }
  });
});

describe('setWebhookUrl', () => {
  it('sends later events to the new loopback URL, and none once turned off', async () => {
    const receiver = await startReceiver();
    const webhooks = sender(undefined);
    try {
      expect(webhooks.send('Offer Updated', payload)).toBeUndefined();
      webhooks.setUrl(receiver.url);
      expect(webhooks.targetUrl()).toBe(receiver.url);
      webhooks.send('Offer Updated', payload);
      await waitFor(() => webhooks.deliveries()[0]?.outcome === 'delivered');
      expect(receiver.received).toHaveLength(1);
      webhooks.setUrl(undefined);
      expect(webhooks.send('Offer Updated', payload)).toBeUndefined();
      expect(webhooks.deliveries()).toHaveLength(1);
    } finally {
      await webhooks.close();
      await receiver.close();
    }
  });

  it.each(['http://example.com/hooks', 'http://localhost:3000/hooks', 'http://10.0.0.1/hooks', 'ftp://127.0.0.1/hooks', 'not a url'])(
    'refuses %s and keeps the URL it had',
    (url) => {
      const webhooks = sender('http://127.0.0.1:9/hooks');
      expect(() => webhooks.setUrl(url)).toThrow(MarketOptionError);
      expect(webhooks.targetUrl()).toBe('http://127.0.0.1:9/hooks');
    },
  );

  it("is the simulation's setter too, with the same check", () => {
    const simulation = new Simulation({ tickIntervalMs: 0 });
    simulation.setWebhookUrl('http://[::1]:3000/v1/marketplace-events/abc');
    expect(simulation.webhooks.targetUrl()).toBe('http://[::1]:3000/v1/marketplace-events/abc');
    expect(() => simulation.setWebhookUrl('https://attacker.example/')).toThrow(MarketOptionError);
    expect(simulation.webhooks.targetUrl()).toBe('http://[::1]:3000/v1/marketplace-events/abc');
  });
});
