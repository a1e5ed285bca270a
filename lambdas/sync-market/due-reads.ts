import { createHash } from 'node:crypto';
import { listProductCodes, listRepricedCodes, productLineIdsOf } from '../data/market/market-watch.js';
import { pageDue } from '../domain/market-schedule.js';
import { storefrontGroup, type StoreFrontReadMessage } from '../events/market-sync.js';
import type { QueueMessage } from '../queue/sender.js';

/**
 * The storefront reads a tick asks for: every product of the tenant whose tier is due (all of
 * them on a full sync), that has a product line id to read its page by. Deduplicated per
 * product and tick, so a tick handled twice asks once.
 */
export const readMessage = (
  uid: string,
  code: string,
  productLineId: string,
  reason: StoreFrontReadMessage['reason'],
  at: string,
  dedupOn: string,
): QueueMessage => {
  const groupId = storefrontGroup(uid, code);
  const body: StoreFrontReadMessage = { uid, code, productLineId, reason, at };
  // The group is a digest already; the suffix keeps reads of one product on different ticks (or events) apart.
  const suffix = createHash('sha256').update(dedupOn).digest('base64url').slice(0, 24);
  return { groupId, deduplicationId: `${groupId}#${reason}#${suffix}`, body: JSON.stringify(body) };
};

export const dueReads = async (
  clientId: string,
  connector: string,
  uid: string,
  tick: number,
  options: { readonly full: boolean; readonly at: string },
): Promise<{ readonly messages: QueueMessage[]; readonly repriced: number; readonly products: number }> => {
  const [codes, repriced] = await Promise.all([listProductCodes(clientId), listRepricedCodes(clientId, connector)]);
  const due = codes.filter((code) => options.full || pageDue(code, repriced.has(code) ? 'repriced' : 'other', tick));
  const lines = await productLineIdsOf(clientId, due);
  const reason = options.full ? 'full' : 'tier';
  const messages = [...lines].map(([code, line]) => readMessage(uid, code, line, reason, options.at, `${tick}`));
  return { messages, repriced: repriced.size, products: codes.length };
};
