import fc from 'fast-check';
import { defaultPushDeps, sweepConnection } from '../../lambdas/functions/send-prices/worker.js';
import { forgetConnectionModes } from '../../lambdas/data/connections/mode.js';
import type { PriceChange } from '../../lambdas/domain/records.js';
import type { MarketSimulator } from '../../tools/market/index.js';
import { connectorRecord } from '../support/fixtures.js';
import { captureOutput } from '../support/output-capture.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { marketHarness } from '../support/market-harness.js';
import { fcParameters, fcRuns } from '../support/seed.js';
import { startTestMarket, stopTestMarket } from '../support/test-market.js';

/**
 * Safety under faults (issue "Prices reach the marketplace"): for random markets (seed, size,
 * bots), random repricer bounds and random histories (bots moving, full syncs, 5xx and latency
 * faults, 429 bursts from a small rate limit, the key revoked and put back, the kill switch),
 * every price the simulator receives is a whole number within the repricer's floor and ceiling
 * and the offer's rrp, no offer gets the same price twice in a row or twice in one batch, and
 * once the faults heal every price change ends applied, failed, superseded or suggested.
 * Each run is a new tenant connected to a new simulator; the sender is the event runtime's.
 */
let api: TestApi;
let run = 0;
const captured = captureOutput();

const move = fc.oneof(
  fc.record({ kind: fc.constant('bots' as const), ticks: fc.integer({ min: 1, max: 10 }) }),
  fc.record({ kind: fc.constant('sync' as const) }),
  fc.record({ kind: fc.constant('faults' as const), errorRate: fc.constantFrom(0, 0.05, 0.3), latencyMs: fc.constantFrom(0, 50, 200) }),
  fc.record({ kind: fc.constant('revoke' as const) }),
  fc.record({ kind: fc.constant('mode' as const), mode: fc.constantFrom('live' as const, 'suggest' as const) }),
);

const TERMINAL = new Set(['applied', 'failed', 'superseded', 'suggested']);

beforeAll(async () => {
  captured.start();
  api = await startTestApi();
  await api.importRecords((await api.createClient('safety-ops', { password: 'safety-ops-password' })).username, [connectorRecord('takealot')]);
}, 120_000);

afterAll(async () => {
  captured.stop();
  await api?.close();
});

describe('price safety', () => {
  it('never sends a price outside its bounds, never twice, and ends every decision, whatever the market and its faults', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          seed: fc.integer({ min: 1, max: 1_000_000 }),
          products: fc.integer({ min: 2, max: 5 }),
          competitors: fc.integer({ min: 1, max: 4 }),
          // Per product: the floor and ceiling as percentages of its price.
          bounds: fc.array(fc.record({ floor: fc.integer({ min: 30, max: 100 }), ceiling: fc.integer({ min: 100, max: 130 }) }), {
            minLength: 5,
            maxLength: 5,
          }),
          history: fc.array(move, { minLength: 1, maxLength: 6 }),
        }),
        async ({ seed, products, competitors, bounds, history }) => {
          let market: MarketSimulator | undefined;
          try {
            market = await startTestMarket({
              seed,
              products,
              competitors,
              batchDelayMs: 100,
              storefrontRateLimit: { capacity: 1_000, refillPerSecond: 1_000 },
              // A small bucket: bursts of pushes and batch reads meet 429s with Retry-After.
              sellerRateLimit: { capacity: 6, refillPerSecond: 4 },
            });
            const sim = market;
            const auth: [string, string] = [`safety-${++run}`, `safety-password-${run}`];
            const { clientId } = await api.createClient(auth[0], { password: auth[1] });
            let apiKey = sim.apiKey;
            const put = async (mode: 'live' | 'suggest') => {
              // The key check itself may meet a fault or a 429: asked again, as a client would.
              for (let attempt = 0; attempt < 10; attempt++) {
                const answer = await api.request<{ uid: string }>('PUT', '/v1/connections/takealot', {
                  auth,
                  body: { api_key: apiKey, mode, seller_id: sim.options.sellerId, safety: { breaker_share_percent: 100 } },
                });
                if (answer.status === 200 || answer.status === 201) {
                  forgetConnectionModes();
                  return answer.body.uid;
                }
                await new Promise((resolve) => setTimeout(resolve, 500));
              }
              throw new Error('the connection could not be put');
            };
            const uid = await put('live');
            const loop = marketHarness(api, { requestsPerSecond: 1_000 });
            await loop.tick({ uids: [uid], redeliver: 5 });
            const limits = new Map<number, { floor: number; ceiling: number; rrp: number }>();
            for (const [index, product] of sim.simulation.market.products.entries()) {
              const { floor, ceiling } = bounds[index]!;
              const price = product.own.selling_price;
              const preferred = Math.max(1, Math.min(product.own.rrp, Math.floor((price * ceiling) / 100)));
              const min = Math.max(1, Math.min(preferred, Math.ceil((price * floor) / 100)));
              limits.set(product.own.offer_id, { floor: min, ceiling: preferred, rrp: product.own.rrp });
              const created = await api.request('POST', '/v1/repricers', {
                auth,
                body: { product_code: product.own.sku, preferred_price: preferred, preferred_profit: preferred - min, connector: 'takealot', enabled: true },
              });
              expect(created.status).toBe(201);
            }
            await api.settle();
            let mode: 'live' | 'suggest' = 'live';
            for (const step of history) {
              if (step.kind === 'bots') sim.control.tick(step.ticks);
              if (step.kind === 'sync') {
                await api.request('POST', '/v1/connections/takealot/sync', { auth });
                await loop.tick({ uids: [uid], redeliver: 5 });
              }
              if (step.kind === 'faults') sim.control.setFaults({ errorRate: step.errorRate, latencyMs: step.latencyMs });
              if (step.kind === 'revoke') sim.control.revokeKey(false);
              if (step.kind === 'mode') {
                mode = step.mode;
                sim.control.setFaults({ errorRate: 0 });
                apiKey = sim.control.revokeKey(true) ?? apiKey;
                await put(mode);
              }
              await api.settle();
            }
            // Healed: no faults, a fresh key, live, and the sweep (its clock past every retry) until nothing is on its way.
            sim.control.setFaults({ errorRate: 0, latencyMs: 0 });
            apiKey = sim.control.revokeKey(true) ?? apiKey;
            await put('live');
            for (let round = 1; round <= 6; round++) {
              await api.settle();
              api.clock.advance(3_600_000);
              await sweepConnection(clientId, 'takealot', defaultPushDeps);
            }
            await api.settle();

            const log = sim.control.prices();
            for (const history of log.offers) {
              const limit = limits.get(history.offer_id);
              if (!limit) continue;
              for (const entry of history.received) {
                expect(Number.isInteger(entry.selling_price)).toBe(true);
                expect(entry.selling_price).toBeGreaterThanOrEqual(limit.floor);
                expect(entry.selling_price).toBeLessThanOrEqual(Math.min(limit.ceiling, limit.rrp));
              }
            }
            expect(log.duplicates).toEqual({ request_id: 0, within_batch: 0, unchanged_price: 0 });
            const changes = await api.request<{ price_changes: PriceChange[] }>('GET', '/v1/price-changes?_limit=100', { auth });
            for (const change of changes.body.price_changes) expect(TERMINAL.has(change.status)).toBe(true);
          } finally {
            await stopTestMarket(market);
          }
        },
      ),
      fcParameters({ numRuns: fcRuns(2, 10) }),
    );
  }, 600_000);
});
