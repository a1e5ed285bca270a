import { getClient } from '../../lambdas/data/clients/clients.js';
import { createRepricerFor, hasRepricerFor, type RepricerRequest } from '../admin/repricers.js';
import { demoRepricers } from './demo-data.js';
import type { MarketRepricerRequest } from './demo-market.js';

export interface EnsuredRepricers {
  readonly productCodes: string[];
  readonly created: number;
}

/**
 * Repricers for the client, created as `POST /v1/repricers/` creates them. A product the client
 * already has a repricer for is left as it is, so a second start on a kept table creates nothing.
 */
const ensureRepricers = async (username: string, requests: readonly RepricerRequest[]): Promise<EnsuredRepricers> => {
  const client = await getClient(username);
  if (!client) throw new Error(`No client with username "${username}"`);
  const owner = { clientId: client.clientId, defaultConnector: client.defaultConnector };
  let created = 0;
  for (const request of requests) {
    if (await hasRepricerFor(owner.clientId, request.product_code)) continue;
    if ((await createRepricerFor(owner, request)).created) created += 1;
  }
  return { productCodes: requests.map((r) => r.product_code), created };
};

/** The demo repricers of `npm start` on the demo catalogue (tools/local/demo-data.ts). */
export const ensureDemoRepricers = (username: string): Promise<EnsuredRepricers> =>
  ensureRepricers(
    username,
    demoRepricers().map(({ request }) => ({ ...request, enabled: true })),
  );

/** The demo's repricers on the marketplace's synced products (tools/local/demo-market.ts chooses them). */
export const ensureMarketRepricers = (username: string, requests: readonly MarketRepricerRequest[]): Promise<EnsuredRepricers> =>
  ensureRepricers(username, requests);
