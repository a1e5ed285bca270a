/**
 * A webhook receiver on 127.0.0.1 for the integration tests: it records every request as
 * received and answers as its `respond` says (a status, or `hang`: never answer).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly status: number | 'hang';
}

export interface WebhookReceiver {
  readonly url: string;
  readonly received: ReceivedRequest[];
  close(): Promise<void>;
}

export const startReceiver = async (respond: (n: number) => number | 'hang' = () => 200): Promise<WebhookReceiver> => {
  const received: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const status = respond(received.length);
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
      if (status !== 'hang') res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
