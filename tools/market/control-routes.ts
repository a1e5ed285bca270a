/**
 * The control API, for tests and benchmarks only (never part of the imitated marketplace):
 * read the state and the prices received, move the bots, set faults and shapes, start a
 * storefront glitch, revoke the key.
 *
 *   GET    /_control/state       market, ticks, clock, faults, shapes, glitch, key status
 *   GET    /_control/prices      every accepted selling price per offer, with duplicates counted
 *   GET    /_control/webhooks    webhook deliveries (latest 1,000)
 *   GET    /_control/reads       per product line, the latest times its storefront page was read
 *   GET    /_control/slots       per product line, who held each buy-box slot and from when (latest 1,000 changes)
 *   POST   /_control/tick        { count?: 1..1000 } bot ticks now
 *   POST   /_control/faults      a partial FaultSettings; answers the settings now in force
 *   POST   /_control/shapes      { preset?, ...a partial ShapeSettings }; answers the shapes now in force
 *   POST   /_control/glitch      { fraction, share?, reads? } starts a glitch; answers its state
 *   DELETE /_control/glitch      ends it; answers its state
 *   POST   /_control/revoke-key  { reissue?: boolean } revokes the key (and issues a new one)
 */
import type { IncomingMessage } from 'node:http';
import { HttpError, readJsonObject } from './http.js';
import { MarketOptionError } from './options.js';
import type { FaultSettings } from './faults.js';
import { checkGlitch } from './glitch.js';
import { shapePreset, type ShapeSettings } from './shapes.js';
import type { RouteAnswer } from './seller-routes.js';
import type { Simulation } from './simulation.js';

export const controlState = (sim: Simulation): Record<string, unknown> => ({
  seller_id: sim.options.sellerId,
  now: new Date(sim.clock.now()).toISOString(),
  faults: sim.faults,
  shapes: sim.shapes,
  empty_pages: sim.emptyPageCount,
  glitch: sim.glitch.describe(),
  api_key: sim.keys.describe(),
  // Each account's key by its last 4 characters only.
  sellers: sim.accounts.map((account) => ({
    seller_id: account.sellerId,
    display_name: account.displayName,
    api_key: account.keys.describe(),
    offers: sim.market.accountSeats(account.index).length,
  })),
  pending_batches: sim.batches.pendingCount(),
  ...sim.traffic.summary(),
  ...sim.market.snapshot(),
});

/** A setting the simulator refuses is the caller's mistake: a 400 with its reason, nothing changed. */
const asBadRequest = <T>(apply: () => T): T => {
  try {
    return apply();
  } catch (error) {
    if (error instanceof MarketOptionError) throw new HttpError(400, error.message);
    throw error;
  }
};

export const handleControlRoute = async (sim: Simulation, req: IncomingMessage, path: string): Promise<RouteAnswer> => {
  const route = `${req.method ?? 'GET'} ${path}`;
  switch (route) {
    case 'GET /_control/state':
      return { status: 200, body: controlState(sim) };
    case 'GET /_control/prices':
      return { status: 200, body: sim.priceLog.summary() };
    case 'GET /_control/reads':
      return { status: 200, body: sim.traffic.readLog() };
    case 'GET /_control/slots':
      return { status: 200, body: sim.slotLog.summary() };
    case 'GET /_control/webhooks':
      return { status: 200, body: { deliveries: sim.webhooks.deliveries() } };
    case 'POST /_control/tick': {
      const { count = 1 } = await readJsonObject(req);
      if (!Number.isInteger(count) || (count as number) < 1 || (count as number) > 1_000)
        throw new HttpError(400, 'count must be a whole number from 1 to 1000');
      return { status: 200, body: sim.tick(count as number) };
    }
    case 'POST /_control/faults': {
      const changes = await readJsonObject(req);
      return { status: 200, body: asBadRequest(() => sim.setFaults(changes as Partial<FaultSettings>)) };
    }
    case 'POST /_control/shapes': {
      // `preset` ("default" or "reported") first, then any single switch given beside it.
      const { preset, ...changes } = await readJsonObject(req);
      return { status: 200, body: asBadRequest(() => sim.setShapes({ ...shapePreset(preset), ...(changes as Partial<ShapeSettings>) })) };
    }
    case 'POST /_control/glitch': {
      const request = await readJsonObject(req);
      return { status: 200, body: asBadRequest(() => sim.glitch.start(checkGlitch(request))) };
    }
    case 'DELETE /_control/glitch':
      return { status: 200, body: sim.glitch.clear() };
    case 'POST /_control/revoke-key': {
      const { reissue = false } = await readJsonObject(req);
      const key = sim.keys.revoke(reissue === true);
      return { status: 200, body: { revoked: true, ...(key === undefined ? {} : { api_key: key }) } };
    }
    default:
      throw new HttpError(404, 'Not found');
  }
};
