/**
 * The v1 seller API's routes, under the configured base path (Takealot's `/v1`): offers listed
 * and paged, read and patched by offer id, SKU or barcode, and batch price updates to poll. The
 * gate in front of them (rate limit, faults, API key) is in server.ts.
 */
import type { IncomingMessage } from 'node:http';
import { MAX_BATCH_ENTRIES, BatchStore } from './batches.js';
import { HttpError, headerValue, readJsonObject } from './http.js';
import type { OwnOfferLookup } from './market.js';
import { offerView, viewOptionsFrom } from './offer-view.js';
import { pageOf } from './paging.js';
import type { Simulation } from './simulation.js';
import type { AccountSeat } from './market.js';

export interface RouteAnswer {
  status: number;
  body: unknown;
}

const NOT_FOUND = (): HttpError => new HttpError(404, 'Not found');

/** A client may tag a write with a request id; the simulator only counts repeats of it (it has no idempotency of its own, like the real API). */
export const requestIdOf = (req: IncomingMessage): string | undefined => headerValue(req, 'x-request-id') ?? headerValue(req, 'idempotency-key');

const offerRoute = (path: string): { by: OwnOfferLookup; value: string } | undefined => {
  const byId = /^\/offers\/(\d+)$/.exec(path);
  if (byId) return { by: 'offer_id', value: byId[1]! };
  const byOther = /^\/offers\/by_(sku|barcode)\/([^/]+)$/.exec(path);
  if (!byOther) return undefined;
  try {
    return { by: byOther[1] as 'sku' | 'barcode', value: decodeURIComponent(byOther[2]!) };
  } catch {
    throw new HttpError(400, 'malformed identifier');
  }
};

const methodNotAllowed = (allowed: string): HttpError => new HttpError(405, 'Method not allowed', {}, { allow: allowed });

const patchOffer = async (sim: Simulation, req: IncomingMessage, seat: AccountSeat, account: number, params: URLSearchParams): Promise<RouteAnswer> => {
  const body = await readJsonObject(req);
  const requestId = requestIdOf(req);
  sim.priceLog.noteRequestId(requestId);
  const outcome = sim.updateOwnOffer(seat.product, body, { via: 'patch', ...(requestId === undefined ? {} : { requestId }) }, seat.offer, account);
  if (!outcome.ok) throw new HttpError(400, outcome.errors[0]!.message, { validation_errors: outcome.errors });
  return { status: 200, body: offerView(seat.offer, viewOptionsFrom(params)) };
};

const submitBatch = async (sim: Simulation, req: IncomingMessage, account: number): Promise<RouteAnswer> => {
  const body = await readJsonObject(req);
  const { offers } = body;
  if (!Array.isArray(offers) || offers.length === 0 || offers.length > MAX_BATCH_ENTRIES) {
    throw new HttpError(400, `offers must be a list of 1 to ${MAX_BATCH_ENTRIES} entries`);
  }
  const entries = offers.map((entry, index) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new HttpError(400, `offers[${index}] must be an object`);
    const record = entry as Record<string, unknown>;
    if (record.offer_id === undefined && record.sku === undefined && record.barcode === undefined)
      throw new HttpError(400, `offers[${index}] needs offer_id, sku or barcode`);
    return record;
  });
  const requestId = requestIdOf(req);
  sim.priceLog.noteRequestId(requestId);
  const batch = sim.submitBatch(entries, requestId, account);
  return { status: 200, body: { batch_id: batch.batch_id, status: batch.status } };
};

/**
 * Answers a request whose path is below the base path (`path` has the base path removed), for
 * the seller account whose key it presented: only that account's offers and batches exist for it.
 */
export const handleSellerRoute = async (sim: Simulation, req: IncomingMessage, path: string, params: URLSearchParams, account = 0): Promise<RouteAnswer> => {
  const method = req.method ?? 'GET';
  if (path === '/offers') {
    if (method !== 'GET') throw methodNotAllowed('GET');
    const offers = account === 0 ? sim.market.ownOffers() : sim.market.accountSeats(account).map((seat) => seat.offer);
    const page = pageOf(offers, params, sim.faults.page2Bug);
    const view = viewOptionsFrom(params);
    return { status: 200, body: { ...page, items: page.items.map((offer) => offerView(offer, view)) } };
  }
  if (path === '/offers/batch') {
    if (method !== 'POST') throw methodNotAllowed('POST');
    return submitBatch(sim, req, account);
  }
  const batchRead = /^\/offers\/batch\/(\d+)$/.exec(path);
  if (batchRead) {
    if (method !== 'GET') throw methodNotAllowed('GET');
    // Settled on read too, so a poll never sees "pending" after the delay even between timer firings.
    sim.settleDueBatches();
    const batch = sim.batches.get(Number(batchRead[1]));
    if (batch === undefined || batch.account !== account) throw new HttpError(404, 'batch not found');
    return { status: 200, body: BatchStore.view(batch, sim.shapes.batchStatus) };
  }
  const target = offerRoute(path);
  if (target === undefined) throw NOT_FOUND();
  const seat = sim.findSeat(account, target.by, target.value);
  if (seat === undefined) throw new HttpError(404, 'offer not found');
  if (method === 'GET') return { status: 200, body: offerView(seat.offer, viewOptionsFrom(params)) };
  if (method === 'PATCH') return patchOffer(sim, req, seat, account, params);
  throw methodNotAllowed('GET, PATCH');
};
