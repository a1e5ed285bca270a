/**
 * The simulator as one HTTP server on loopback: the control API, the seller API behind its gate
 * (rate limit per key, then faults, then the API key), and the storefront behind its own (rate
 * limit per caller address, bot protection, faults). Bots tick on a timer when the clock is the
 * system clock; everything stops by itself after `maxTicks` ticks or `lifetimeMs`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from './clock.js';
import { handleControlRoute } from './control-routes.js';
import { drawFault, StorefrontBlocker, type FaultSettings } from './faults.js';
import { checkGlitch, type GlitchState } from './glitch.js';
import { HttpError, Sleeper, headerValue, sendJson } from './http.js';
import type { MarketOptions, MarketOptionsInput } from './options.js';
import type { ShapeSettings } from './shapes.js';
import { RateLimiter, rateLimitHeaders } from './rate-limit.js';
import { handleSellerRoute, type RouteAnswer } from './seller-routes.js';
import { Simulation } from './simulation.js';
import { storefrontTarget } from './storefront-route.js';
import { sellerRouteName, type ReadLog, type TrafficSummary } from './traffic.js';
import { movesByItself } from './clock.js';
import type { PriceLogSummary } from './price-log.js';
import type { SlotLogSummary } from './slot-log.js';
import type { DeliveryRecord } from './webhooks.js';

export interface MarketSimulator {
  /** http://127.0.0.1:<port> */
  url: string;
  /** The seller API's base URL (url + base path). */
  sellerApiUrl: string;
  /** The storefront's base URL (append `/rest/v-1-10-0/product-details/PLID<plid>`). */
  storefrontUrl: string;
  /** The demo seller's API key as issued at startup. */
  apiKey: string;
  /** Every seller account (the demo seller first) with the key it was issued at startup: for the caller in this process, never logged. */
  sellers: ReadonlyArray<{ readonly sellerId: string; readonly displayName: string; readonly apiKey: string }>;
  webhookSecret: string;
  /** Points the webhooks at a loopback URL (e.g. the service's route for a connection made after startup), or turns them off. */
  setWebhookUrl(url: string | undefined): void;
  options: MarketOptions;
  simulation: Simulation;
  control: {
    tick(count?: number): { ticks: number; changed: number };
    setFaults(changes: Partial<FaultSettings>): FaultSettings;
    /** Switches reported shapes on or off (shapes.ts); answers those in force. */
    setShapes(changes: Partial<ShapeSettings>): ShapeSettings;
    /** Starts a storefront glitch (glitch.ts): `fraction` required, `share` 1 and `reads` 100 unless given. */
    setGlitch(settings: { fraction: number; share?: number; reads?: number }): GlitchState;
    clearGlitch(): GlitchState;
    revokeKey(reissue?: boolean): string | undefined;
    prices(): PriceLogSummary;
    webhooks(): DeliveryRecord[];
    settleBatches(): number;
    /** Politeness counters (429s, requests inside a Retry-After window, 403s), seller API requests by route. */
    traffic(): TrafficSummary;
    /** Per product line, the latest times its storefront page was read. */
    reads(): ReadLog;
    /** Per product line, who held each buy-box slot and from when (slot-log.ts). */
    slots(): SlotLogSummary;
    clock: Clock;
  };
  /** Closes the server, connections, timers and webhook deliveries; safe to call twice. */
  stop(): Promise<void>;
}

type Gate = { pass: true } | { pass: false; answer: RouteAnswer & { headers?: Record<string, string> } };

export const createMarketSimulator = async (input: MarketOptionsInput = {}): Promise<MarketSimulator> => {
  const sim = new Simulation(input);
  const { options } = sim;
  const sleeper = new Sleeper();
  const sellerLimiter = new RateLimiter(options.sellerRateLimit, sim.clock);
  const storefrontLimiter = new RateLimiter(options.storefrontRateLimit, sim.clock);
  const blocker = new StorefrontBlocker();
  const timers = new Set<NodeJS.Timeout>();

  /** Latency, then maybe an error or a hang: the same faults for the seller API and the storefront. */
  const faultGate = async (): Promise<Gate> => {
    const faults = sim.faults;
    const outcome = drawFault(faults, sim.streams.faults);
    await sleeper.sleep(faults.latencyMs);
    if (outcome.kind === 'hang') {
      await sleeper.sleep(outcome.ms);
      return { pass: false, answer: { status: 504, body: { message: 'Gateway Timeout' } } };
    }
    if (outcome.kind === 'error') return { pass: false, answer: { status: 500, body: { message: 'Internal server error' } } };
    return { pass: true };
  };

  const seller = async (req: IncomingMessage, res: ServerResponse, path: string, params: URLSearchParams): Promise<RouteAnswer> => {
    const presented = headerValue(req, 'x-api-key');
    // Buckets are per presented key (a missing key shares one per address), so a caller with the right key is never starved by another's flood.
    const caller = presented === undefined ? `anonymous:${req.socket.remoteAddress ?? ''}` : `key:${presented}`;
    sim.traffic.arrived('seller', caller, sim.clock.now(), sellerRouteName(req.method ?? 'GET', path));
    const decision = sellerLimiter.take(caller);
    for (const [name, value] of Object.entries(rateLimitHeaders(decision, options.sellerRateLimit))) res.setHeader(name, value);
    if (!decision.admitted) {
      sim.traffic.refused('seller', caller, sim.clock.now(), 'rate-limit', decision.retryAfterSeconds);
      return { status: 429, body: { message: 'Too Many Requests' } };
    }
    const gate = await faultGate();
    if (!gate.pass) return gate.answer;
    if (req.method === 'POST' && path === '/offers/batch' && sim.faults.batchErrorRate > 0 && sim.streams.faults.chance(sim.faults.batchErrorRate)) {
      return { status: 500, body: { message: 'Internal server error' } };
    }
    const key = sim.accountFor(presented);
    if (key.check === 'missing') return { status: 401, body: { message: 'Missing X-API-Key header' } };
    if (key.check === 'invalid') return { status: 403, body: { message: 'Invalid API key' } };
    if (key.check === 'revoked' || key.account === undefined) return { status: 403, body: { message: 'API key has been revoked' } };
    return handleSellerRoute(sim, req, path, params, key.account);
  };

  const storefront = async (req: IncomingMessage, res: ServerResponse, plid: number): Promise<RouteAnswer> => {
    const caller = `host:${req.socket.remoteAddress ?? ''}`;
    sim.traffic.arrived('storefront', caller, sim.clock.now());
    const decision = storefrontLimiter.take(caller);
    if (!decision.admitted) {
      res.setHeader('Retry-After', String(decision.retryAfterSeconds));
      sim.traffic.refused('storefront', caller, sim.clock.now(), 'rate-limit', decision.retryAfterSeconds);
      return { status: 429, body: { message: 'Too Many Requests' } };
    }
    // Bot protection gives no Retry-After (as the real storefront's 403 does not): counted, no window.
    if (blocker.blocks(sim.faults, sim.streams.storefront)) {
      sim.traffic.refused('storefront', caller, sim.clock.now(), 'blocked', undefined);
      return { status: 403, body: { message: 'Forbidden' } };
    }
    const gate = await faultGate();
    if (!gate.pass) return gate.answer;
    const product = sim.market.product(plid);
    if (product === undefined) return { status: 404, body: { message: 'Product not found' } };
    const page = sim.storefrontPage(product);
    if (page.shown) sim.traffic.read(plid, sim.clock.now());
    return { status: 200, body: page.body };
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<RouteAnswer> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    if (path.startsWith('/_control/')) return handleControlRoute(sim, req, path);
    if (path === options.basePath || path.startsWith(`${options.basePath}/`)) return seller(req, res, path.slice(options.basePath.length), url.searchParams);
    const target = storefrontTarget(path);
    if (target === 'bad-minor') return { status: 404, body: { message: 'Not found' } };
    if (target !== 'not-storefront') {
      if (req.method !== 'GET') throw new HttpError(405, 'Method not allowed', {}, { allow: 'GET' });
      return storefront(req, res, target.plid);
    }
    return { status: 404, body: { message: 'Not found' } };
  };

  const server = createServer((req, res) => {
    route(req, res)
      .then((answer) => sendJson(res, answer.status, answer.body))
      .catch((error: unknown) => {
        if (error instanceof HttpError) sendJson(res, error.status, { message: error.message, ...error.extra }, error.headers);
        else sendJson(res, 500, { message: 'Internal server error' });
      });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host === '::1' ? '[::1]' : options.host}:${port}`;

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    sleeper.cancelAll();
    await sim.webhooks.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };

  const every = (ms: number, run: () => void): NodeJS.Timeout => {
    const timer = setInterval(run, ms);
    timer.unref();
    timers.add(timer);
    return timer;
  };
  // Bots move on the timer only on a clock that moves by itself; a test's manual clock moves them by control.tick.
  if (movesByItself(sim.clock) && options.tickIntervalMs > 0 && options.maxTicks > 0) {
    let automaticTicks = 0;
    const ticker = every(options.tickIntervalMs, () => {
      sim.tick(1);
      automaticTicks += 1;
      if (automaticTicks >= options.maxTicks) clearInterval(ticker);
    });
  }
  // Batches settle on their own (and Batch Completed goes out) without anyone polling; on a
  // manual clock they settle when polled or ticked, as the clock only moves then.
  if (movesByItself(sim.clock)) every(Math.max(50, Math.min(250, options.batchDelayMs || 50)), () => sim.settleDueBatches());
  if (options.lifetimeMs > 0) {
    const timer = setTimeout(() => void stop(), options.lifetimeMs);
    timer.unref();
    timers.add(timer);
  }

  return {
    url,
    sellerApiUrl: `${url}${options.basePath}`,
    storefrontUrl: url,
    apiKey: sim.initialApiKey,
    sellers: sim.accounts.map((account) => ({ sellerId: account.sellerId, displayName: account.displayName, apiKey: account.initialApiKey })),
    webhookSecret: sim.webhookSecret,
    setWebhookUrl: (target) => sim.setWebhookUrl(target),
    options,
    simulation: sim,
    control: {
      tick: (count = 1) => sim.tick(count),
      setFaults: (changes) => sim.setFaults(changes),
      setShapes: (changes) => sim.setShapes(changes),
      setGlitch: (settings) => sim.glitch.start(checkGlitch(settings)),
      clearGlitch: () => sim.glitch.clear(),
      revokeKey: (reissue = false) => sim.keys.revoke(reissue),
      prices: () => sim.priceLog.summary(),
      webhooks: () => sim.webhooks.deliveries(),
      settleBatches: () => sim.settleDueBatches().length,
      traffic: () => sim.traffic.summary(),
      reads: () => sim.traffic.readLog(),
      slots: () => sim.slotLog.summary(),
      clock: sim.clock,
    },
    stop,
  };
};
