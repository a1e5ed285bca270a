import { getClient } from '../../lambdas/shared/data/clients.js';
import { createRepricerFor, hasRepricerFor } from '../admin/repricers.js';
import { demoRepricers } from './demo-data.js';

/**
 * The demo repricers of `npm start` (tools/local/demo-data.ts), created for the client as
 * `POST /v1/repricers/` creates them. A product the client already has a repricer for is left
 * as it is, so a second start on a kept table creates nothing.
 */
export const ensureDemoRepricers = async (username: string): Promise<{ readonly productCodes: string[]; readonly created: number }> => {
  const client = await getClient(username);
  if (!client) throw new Error(`No client with username "${username}"`);
  const owner = { clientId: client.clientId, defaultConnector: client.defaultConnector };
  const productCodes: string[] = [];
  let created = 0;
  for (const { request } of demoRepricers()) {
    productCodes.push(request.product_code);
    if (await hasRepricerFor(owner.clientId, request.product_code)) continue;
    if ((await createRepricerFor(owner, { ...request, enabled: true })).created) created += 1;
  }
  return { productCodes, created };
};
