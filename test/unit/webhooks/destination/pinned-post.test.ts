import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postToDestination } from '../../../../lambdas/webhooks/destination.js';

/** The POST goes to the address that was checked, never to what the name resolves to later. */
let server: Server;
let port: number;
const seen: { headers: IncomingHttpHeaders; body: string }[] = [];
let answer: number | 'hang' = 200;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (answer !== 'hang') res.writeHead(answer, { Location: 'http://169.254.169.254/' }).end('ignored');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  ({ port } = server.address() as AddressInfo);
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen.length = 0;
  answer = 200;
});

describe('postToDestination', () => {
  it('connects to the pinned address whatever the name, and sends the name as Host', async () => {
    // Prepare: a name no resolver knows; only the pinned address can reach the server
    const url = new URL(`http://hooks.invalid:${port}/in`);

    // Act
    const outcome = await postToDestination({ ok: true, url, address: '127.0.0.1', family: 4 }, '{"a":1}', { 'webhook-signature': 'v1,ab' }, 2_000);

    // Assert
    expect(outcome).toEqual({ statusCode: 200, error: undefined });
    expect(seen).toEqual([
      {
        headers: expect.objectContaining({ host: `hooks.invalid:${port}`, 'webhook-signature': 'v1,ab', 'content-type': 'application/json' }),
        body: '{"a":1}',
      },
    ]);
  });

  it('does not follow a redirect: the 3xx is the outcome', async () => {
    answer = 302;
    const outcome = await postToDestination({ ok: true, url: new URL(`http://127.0.0.1:${port}/`), address: '127.0.0.1', family: 4 }, '{}', {}, 2_000);
    expect(outcome.statusCode).toBe(302);
    expect(seen).toHaveLength(1);
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    answer = 'hang';
    const started = Date.now();
    const outcome = await postToDestination({ ok: true, url: new URL(`http://127.0.0.1:${port}/`), address: '127.0.0.1', family: 4 }, '{}', {}, 200);
    expect(outcome).toEqual({ statusCode: undefined, error: 'no response in time' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('reports a refused connection as a plain outcome, without a status or the socket error code', async () => {
    const outcome = await postToDestination({ ok: true, url: new URL('http://127.0.0.1:9/'), address: '127.0.0.1', family: 4 }, '{}', {}, 2_000);
    expect(outcome).toEqual({ statusCode: undefined, error: 'could not connect' });
  });
});
