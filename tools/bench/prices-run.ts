/**
 * One run of the prices benchmark: a simulator on 127.0.0.1 with the products, five competitor
 * bots each and the static-price seller; the service as `npm start` runs it (the local event
 * runtime: market loop, evaluator, sender; the API on a local server); the client connected
 * live through `PUT /v1/connections/takealot`, its own offers synced, a repricer on every
 * product (bounds as `npm start` chooses them, tools/local/demo-market.ts), the start-up's
 * decisions drained; then a window of a set length in which the bots tick and the schedule
 * ticks in real time, with the run's events (kill switch, faults, key revoked and put back)
 * at set moments; then the decisions drained again and the simulator's logs read.
 */
import { shapePreset } from '../market/shapes.js';
import { createRepricerFor } from '../admin/repricers.js';
import { MARKET_SYNC } from '../../lambdas/config/market-sync.js';
import { DEFAULT_PRICE_STEP, type PriceChange } from '../../lambdas/domain/records.js';
import { TAKEALOT_CONNECTOR_UID } from '../../lambdas/marketplace/registry.js';
import { demoBounds } from '../local/demo-market.js';
import type { Product } from '../market/catalogue.js';
import { STATIC_OFFER_SUFFIX } from '../market/catalogue.js';
import type { TrafficSummary } from '../market/traffic.js';
import { webhookOutcomes, type ConvergenceFigures } from './market-convergence.js';
import { nextTick, say, sendTick, sleep, startPhase, stopPhase, syncCycle, type MarketSyncContext, type Phase } from './market-phase.js';
import {
  approachShare,
  checkPrices,
  emptyApproachTally,
  sampleApproach,
  type ApproachShare,
  type ApproachTally,
  exactlyOnce,
  floorGroup,
  groupShares,
  reactionsOf,
  spread,
  type ExactlyOnce,
  type FloorGroup,
  type GroupShare,
  type LowestPoint,
  type PriceBounds,
  type PriceChecks,
  type Reaction,
  type SlotTally,
  type Spread,
} from './prices-figures.js';
import { getConnection, localApi, putConnection, readDecisions, type ReadDecision } from './prices-service.js';
import type { PricedBy, PricesRun, PricesSettings } from './prices-settings.js';
import type { WriteTally } from './write-meter.js';

export interface RunPlan {
  readonly run: PricesRun;
  readonly webhooks: boolean;
  /** The kill switch (mode suggest) at this share of the window; outcome and reaction are measured before it, recording cost after. */
  readonly killSwitchAt?: number;
  /** 5 % of calls 5xx, 2 s latency, 429 bursts, the key revoked and put back. */
  readonly faults?: boolean;
  /** This share of price writes (`POST /offers/batch`) answered 500, from the start-up to the window's end. */
  readonly writeFaults?: number;
  /** Write units of the price changes' items counted over the window and the drain (no kill switch cuts changes short). */
  readonly liveCost?: boolean;
}

/**
 * The safety limits the runs use: the stack's defaults, the circuit breaker aside. The start-up
 * moves every repriced price at once (many by more than its 10 %), which is what the breaker is
 * for; here it would pause the connection before anything is measured (it has tests of its own).
 */
export const BENCH_SAFETY = { breaker_drop_percent: 100, breaker_share_percent: 100 } as const;

export interface ReactionFigures {
  /** The tier's period in real seconds (2 minutes of the schedule, scaled with the tick length). */
  readonly tierSeconds: number;
  readonly changeToSeen: Spread;
  /** The read, to the decision the evaluator made from it (its price change's created_at). */
  readonly seenToDecided: Spread;
  readonly seenToApplied: Spread;
  readonly changeToApplied: Spread;
  readonly notNeeded: number;
  readonly missed: number;
  readonly unresolved: number;
  readonly afterNextRead: number;
}

export interface KillSwitchFigures {
  /** Seconds into the window when `PUT` with mode suggest answered. */
  readonly atSeconds: number;
  /** Prices that reached the simulator (the request's arrival) more than 1 s after. */
  readonly lateUpdates: number;
  /** Prices the simulator applied more than 1 s after (a batch sent before the switch is applied batchDelayMs after it arrived). */
  readonly appliedLate: number;
  readonly updatesAfter: number;
  /** Seconds from the switch to the last price accepted after it (NaN: none). */
  readonly lastUpdateAfterSeconds: number;
}

export interface RevokeFigures {
  readonly revokedAtSeconds: number;
  readonly restoredAtSeconds: number;
  /** The connection's status as the API showed it just before the key was put back. */
  readonly statusBeforeRestore: string;
  readonly lastErrorBeforeRestore: string | null;
  /** Prices that reached the simulator between the revoke and the new key (it refuses a revoked key: any here came with a key it took). */
  readonly acceptedWhileRevoked: number;
  readonly acceptedAfterRestore: number;
  /** Seconds from the `PUT` with the new key to the first price accepted after it (NaN: none). */
  readonly firstAfterRestoreSeconds: number;
  readonly burstsOf429: number;
  readonly refusedBursts: number;
}

/** What was written over a live window and its drain, and the changes applied meanwhile. */
export interface LiveCost {
  readonly tally: WriteTally;
  readonly applied: number;
}

/** What was written after the kill switch (once its own writes settled), and the decisions recorded then as suggested. */
export interface SuggestCost {
  readonly tally: WriteTally;
  readonly suggested: number;
}

export interface RunFigures {
  readonly run: PricesRun;
  readonly webhooks: boolean;
  readonly products: number;
  readonly windowSeconds: number;
  readonly setupSeconds: number;
  readonly startupDecisions: number;
  readonly drainSeconds: number;
  readonly botTicks: number;
  readonly scheduleTicks: number;
  readonly reaction: ReactionFigures;
  readonly prices: PriceChecks;
  readonly exactlyOnce: ExactlyOnce & {
    readonly logDuplicates: { request_id: number; within_batch: number; unchanged_price: number };
    readonly accepted: number;
  };
  readonly killSwitch?: KillSwitchFigures;
  readonly revoke?: RevokeFigures;
  readonly outcome?: GroupShare[];
  /** Per approach (and the unrepriced `static` baseline), sampled like `outcome`: the own offer's slots and margin over its floor. */
  readonly approaches?: ApproachShare[];
  readonly liveCost?: LiveCost;
  readonly suggestCost?: SuggestCost;
  /** Decisions still pending or sent after the drain: their faults so far and when the sender tries again. */
  readonly unfinished: readonly { readonly status: string; readonly attempts: number; readonly retryInSeconds: number | null }[];
  readonly connection: Record<string, unknown>;
  readonly traffic: TrafficSummary;
  readonly webhookDeliveries: ConvergenceFigures['webhooks'];
  /** From the price changes' own times: made -> sent, sent -> applied (the window's and the start-up's decisions). */
  readonly serviceTimes: { readonly createdToSent: Spread; readonly sentToApplied: Spread; readonly startupCreatedToApplied: Spread };
  /** A few reactions, for the eye. */
  readonly sample: readonly Reaction[];
}

const UNFINISHED = new Set(['pending', 'sent']);
/** Reads this close to the kill switch are not timed: their answer may fall after it. */
export const REACTION_MARGIN_MS = 20_000;

/** Lowest available competitor price per product now (the static seller included: the engine sees it too). */
const lowestNow = (product: Product): number | undefined => {
  const prices = product.competitors.filter((offer) => offer.available).map((offer) => offer.price);
  return prices.length === 0 ? undefined : Math.min(...prices);
};

/**
 * The runtime settled, or `ms` passed: while the schedule ticks, the storefront queue may never
 * be empty (a tick's reads arrive before the last ones are done), and a settle would not end.
 */
const settleWithin = (phase: Phase, ms: number): Promise<unknown> =>
  Promise.race([phase.harness.settle().catch((error: unknown) => say(`  settle: ${(error as Error).message}`)), sleep(ms)]);

/** Until no decision is pending or sent (or the bound): the runtime settled between looks. */
const drain = async (phase: Phase, codes: readonly string[], boundMs: number): Promise<{ decisions: ReadDecision[]; seconds: number }> => {
  const started = Date.now();
  for (;;) {
    await settleWithin(phase, 15_000);
    const decisions = await readDecisions(phase.clientId, codes);
    const open = decisions.filter((decision) => UNFINISHED.has(decision.status)).length;
    if (open === 0 || Date.now() - started > boundMs) {
      if (open > 0) say(`  ${open} decisions still pending or sent after ${(boundMs / 1000).toFixed(0)} s`);
      return { decisions, seconds: (Date.now() - started) / 1000 };
    }
    await sleep(2_000);
  }
};

const span = (decisions: readonly PriceChange[], start: (d: PriceChange) => string | null, end: (d: PriceChange) => string | null) =>
  spread(decisions.flatMap((d) => (start(d) !== null && end(d) !== null ? [Date.parse(end(d)!) - Date.parse(start(d)!)] : [])));

const serviceTimes = (all: readonly PriceChange[], startup: readonly PriceChange[], from: number): RunFigures['serviceTimes'] => {
  const window = all.filter((d) => Date.parse(d.created_at) >= from);
  return {
    createdToSent: span(
      window,
      (d) => d.created_at,
      (d) => d.sent_at,
    ),
    sentToApplied: span(
      window,
      (d) => d.sent_at,
      (d) => d.applied_at,
    ),
    startupCreatedToApplied: span(
      startup,
      (d) => d.created_at,
      (d) => d.applied_at,
    ),
  };
};

/** A `PUT` of the connection, tried again a few times: under the faults the key check itself may meet a 500 or a 429 burst. */
const putWithRetries = async (...args: Parameters<typeof putConnection>): Promise<Record<string, unknown>> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await putConnection(...args);
    } catch (error) {
      if (attempt >= 6) throw error;
      say(`  ${(error as Error).message}; again in 3 s`);
      await sleep(3_000);
    }
  }
};

/** Many seller-API requests with the seller's key at once, and more for 3 s: the bucket runs dry and the sender meets 429s. */
const burstOf429 = async (sellerApiUrl: string, apiKey: string): Promise<number> => {
  let refused = 0;
  const hit = async () => {
    try {
      const response = await fetch(`${sellerApiUrl}/offers/batch/999999999`, { headers: { 'X-API-Key': apiKey }, signal: AbortSignal.timeout(10_000) });
      if (response.status === 429) refused += 1;
      await response.arrayBuffer();
    } catch {
      // A timeout here is the latency fault; the burst is what matters.
    }
  };
  await Promise.all(Array.from({ length: 120 }, hit));
  for (let i = 0; i < 30; i++) {
    await Promise.all(Array.from({ length: 5 }, hit));
    await sleep(100);
  }
  return refused;
};

export const runPrices = async (context: MarketSyncContext, settings: PricesSettings, plan: RunPlan, seedOffset: number): Promise<RunFigures> => {
  say(`\n== prices, ${plan.run}: ${settings.products} products, webhooks ${plan.webhooks ? 'on' : 'off'}, window ${settings.seconds} s`);
  const setupStarted = Date.now();
  const phase = await startPhase(
    context,
    `prices-${plan.run}`,
    {
      seed: settings.seed + seedOffset,
      products: settings.products,
      competitors: 5,
      // With several approaches, each family of twins has one product per approach: they are compared on the same products.
      twins: settings.approaches.length,
      staticSeller: true,
      tickIntervalMs: 0,
      shapes: shapePreset(settings.shapes),
    },
    MARKET_SYNC.storefrontRequestsPerSecond,
    'LATEST',
    plan.webhooks,
  );
  const api = await localApi(phase.server);
  const { market } = phase;
  const sim = market.simulation;
  const products = sim.market.products;
  const codes = products.map((product) => product.own.sku);
  const background: Promise<unknown>[] = [];
  const timers: NodeJS.Timeout[] = [];
  try {
    let apiKey = market.apiKey;
    await putConnection(api.url, phase.auth, {
      apiKey,
      sellerId: market.options.sellerId,
      mode: 'live',
      ...(plan.webhooks ? { webhookSecret: market.webhookSecret } : {}),
      safety: BENCH_SAFETY,
    });
    const syncBound = (settings.products / MARKET_SYNC.storefrontRequestsPerSecond) * 3_000 + 120_000;
    const initial = await syncCycle(phase, syncBound);
    say(`  connected live, first sync ${initial.seconds.toFixed(0)} s${initial.unread ? ` (${initial.unread} pages unread)` : ''}`);

    if (plan.writeFaults !== undefined) {
      market.control.setFaults({ batchErrorRate: plan.writeFaults });
      say(`  write faults on: ${(plan.writeFaults * 100).toFixed(0)} % of price writes answered 500`);
    }
    let bursts = 0;
    let refusedBursts = 0;
    let burstsOn = false;
    if (plan.faults) {
      market.control.setFaults({ errorRate: 0.05, latencyMs: 2_000 });
      burstsOn = true;
      background.push(
        (async () => {
          while (burstsOn) {
            refusedBursts += await burstOf429(market.sellerApiUrl, apiKey);
            bursts += 1;
            await sleep(15_000);
          }
        })(),
      );
      say('  faults on: 5 % of calls 500, 2 s latency, a 429 burst every 15 s');
    }

    // Repricers as `npm start` makes them, a few at a time; the connection is live, so each decides at once.
    // The products take the approaches in turn, so each of a family's twins has its own; a `static` one gets no repricer (its floor is the one it would have had).
    const bounds = new Map<number, PriceBounds>();
    const groups = new Map<number, FloorGroup>();
    const pricedBy = new Map<number, { approach: PricedBy; floor: number }>();
    const owner = { clientId: phase.clientId, defaultConnector: phase.defaultConnector };
    for (let i = 0; i < products.length; i += 8) {
      await Promise.all(
        products.slice(i, i + 8).map(async (product, j) => {
          const bots = product.competitors.filter((offer) => !offer.key.endsWith(STATIC_OFFER_SUFFIX));
          const chosen = demoBounds(product.own.selling_price, product.own.rrp);
          if (!chosen) return;
          const approach = settings.approaches[(i + j) % settings.approaches.length]!;
          if (approach === 'static') {
            pricedBy.set(product.plid, { approach, floor: chosen.floor });
            return;
          }
          const created = await createRepricerFor(owner, {
            product_code: product.own.sku,
            preferred_price: chosen.ceiling,
            preferred_profit: chosen.ceiling - chosen.floor,
            min_profit: 0,
            connector: TAKEALOT_CONNECTOR_UID,
            enabled: true,
            buybox_approach: approach,
          });
          if (!created.created) throw new Error(`No repricer for ${product.own.sku}`);
          const { repricer } = created;
          bounds.set(product.own.offer_id, { floor: repricer.min_price, ceiling: repricer.preferred_price, rrp: product.own.rrp, step: DEFAULT_PRICE_STEP });
          groups.set(product.plid, floorGroup(repricer.min_price, bots));
          pricedBy.set(product.plid, { approach, floor: repricer.min_price });
        }),
      );
    }
    const startup = await drain(phase, codes, settings.drainSeconds * 1000);
    const setupSeconds = (Date.now() - setupStarted) / 1000;
    say(
      `  ${bounds.size} repricers; start-up: ${startup.decisions.length} decisions, drained in ${startup.seconds.toFixed(0)} s; set-up ${setupSeconds.toFixed(0)} s`,
    );

    // The window.
    const windowMs = settings.seconds * 1000;
    const from = Date.now();
    const killAt = plan.killSwitchAt === undefined ? undefined : from + windowMs * plan.killSwitchAt;
    const lowest = new Map<number, LowestPoint[]>(products.map((product) => [product.plid, [{ at: 0, price: lowestNow(product) }]]));
    const slots = new Map<number, SlotTally>(products.map((product) => [product.plid, { samples: 0, demo: 0, static: 0 }]));
    const byApproach = new Map<PricedBy, ApproachTally>(settings.approaches.map((approach) => [approach, emptyApproachTally()]));
    let botTicks = 0;
    const botTimer = setInterval(() => {
      const before = Date.now();
      sim.tick(1);
      botTicks += 1;
      // A read logged at `before` may predate the tick: later ones cannot, once the clock has moved on.
      while (Date.now() <= before) {
        /* a millisecond at most */
      }
      for (const product of products) {
        const points = lowest.get(product.plid)!;
        const price = lowestNow(product);
        if (points.at(-1)!.price !== price) points.push({ at: before, price });
      }
    }, settings.botTickSeconds * 1000);
    timers.push(botTimer);
    if (plan.killSwitchAt !== undefined) {
      timers.push(
        setInterval(() => {
          if (killAt !== undefined && Date.now() >= killAt) return;
          for (const product of products) {
            const box = sim.market.buyBox(product);
            const best = box.bestPrice?.id;
            const own = String(product.own.offer_id);
            const priced = pricedBy.get(product.plid);
            if (priced) {
              const moment = {
                bestPrice: best === own,
                fastestDelivery: box.fastestDelivery?.id === own,
                price: product.own.selling_price,
                floor: priced.floor,
              };
              sampleApproach(byApproach.get(priced.approach)!, moment);
            }
            // The repriced products against the static-price seller on their page (as before the approaches).
            if (priced?.approach === 'static') continue;
            const tally = slots.get(product.plid)!;
            tally.samples += 1;
            if (best === own) tally.demo += 1;
            else if (best?.endsWith(STATIC_OFFER_SUFFIX)) tally.static += 1;
          }
        }, 1_000),
      );
    }
    let scheduleTicks = 0;
    const firstTick = nextTick(phase);
    const tickTimer = () => {
      background.push(sendTick(phase, firstTick + scheduleTicks).catch((error: unknown) => context.onError(error as Error)));
      scheduleTicks += 1;
    };
    tickTimer();
    timers.push(setInterval(tickTimer, settings.tickSeconds * 1000));

    if (plan.liveCost) phase.harness.meter.begin();
    let killSwitch: { at: number } | undefined;
    let suggestFrom: number | undefined;
    let revoke: { revokedAt: number; restoredAt: number; status: string; lastError: string | null } | undefined;
    const at = (share: number) => sleep(from + windowMs * share - Date.now());
    if (killAt !== undefined) {
      await sleep(killAt - Date.now());
      await putConnection(api.url, phase.auth, { apiKey, mode: 'suggest', ...(plan.webhooks ? { webhookSecret: market.webhookSecret } : {}) });
      killSwitch = { at: Date.now() };
      say(`  kill switch: mode suggest at ${((killSwitch.at - from) / 1000).toFixed(0)} s`);
      // The switch's own writes (pending changes turned back to suggested) settle unmeasured: after them, only new decisions are recorded.
      await settleWithin(phase, 10_000);
      await sleep(killSwitch.at + 5_000 - Date.now());
      suggestFrom = Date.now();
      phase.harness.meter.begin();
    }
    if (plan.faults) {
      await at(0.35);
      market.control.setFaults({ latencyMs: 0 });
      await at(0.4);
      const newKey = market.control.revokeKey(true)!;
      const revokedAt = Date.now();
      say(`  key revoked at ${((revokedAt - from) / 1000).toFixed(0)} s`);
      await at(0.6);
      const before = await getConnection(api.url, phase.auth);
      apiKey = newKey;
      await putWithRetries(api.url, phase.auth, { apiKey, mode: 'live', ...(plan.webhooks ? { webhookSecret: market.webhookSecret } : {}) });
      revoke = { revokedAt, restoredAt: Date.now(), status: String(before.status), lastError: (before.last_error as string | null | undefined) ?? null };
      say(`  the connection showed ${revoke.status}; new key put in at ${((revoke.restoredAt - from) / 1000).toFixed(0)} s`);
    }
    await sleep(from + windowMs - Date.now());
    const to = Date.now();
    // The bots stop; the schedule goes on ticking through the drain (each tick sweeps the sender's retries and confirmations).
    clearInterval(botTimer);
    burstsOn = false;
    if (plan.faults) market.control.setFaults({ errorRate: 0, latencyMs: 0 });
    if (plan.writeFaults !== undefined) market.control.setFaults({ batchErrorRate: 0 });
    const drained = await drain(phase, codes, settings.drainSeconds * 1000);
    for (const timer of timers) clearInterval(timer);
    timers.length = 0;
    await Promise.allSettled(background);
    if (plan.liveCost || suggestFrom !== undefined) await settleWithin(phase, 10_000);
    const tally = plan.liveCost || suggestFrom !== undefined ? phase.harness.meter.end() : undefined;
    say(`  window ended; drained in ${drained.seconds.toFixed(0)} s`);

    // The simulator's logs against the decisions.
    const priceLog = market.control.prices();
    const reads = market.control.reads().products;
    const log = new Map<string, { at: number; price: number }[]>();
    const accepted: { offerId: number; price: number; at: number }[] = [];
    // When a price reached the simulator: its batch's submission (a batch is applied batchDelayMs later), or the PATCH.
    const arrivedAt = (entry: { at: number; batch_id?: number }) =>
      entry.batch_id === undefined ? entry.at : (sim.batches.get(entry.batch_id)?.submitted_at ?? entry.at);
    const arrivals: number[] = [];
    for (const offer of priceLog.offers) {
      const entries = offer.received.map((entry) => ({ at: entry.at, price: entry.selling_price }));
      log.set(String(offer.offer_id), entries);
      for (const entry of entries) accepted.push({ offerId: offer.offer_id, price: entry.price, at: entry.at });
      for (const entry of offer.received) arrivals.push(arrivedAt(entry));
    }
    const reactions: Reaction[] = [];
    const seenToDecided: number[] = [];
    let notNeeded = 0;
    let missed = 0;
    let unresolved = 0;
    let afterNextRead = 0;
    // Before the kill switch, reads late enough to be answered after it are left out.
    const reactionEnd = killSwitch ? killSwitch.at - REACTION_MARGIN_MS : to;
    for (const product of products) {
      const productBounds = bounds.get(product.own.offer_id);
      if (!productBounds) continue;
      const history = priceLog.offers.find((offer) => offer.offer_id === product.own.offer_id);
      const tally = reactionsOf(
        {
          lowest: lowest.get(product.plid)!,
          reads: reads[String(product.plid)] ?? [],
          applied: log.get(String(product.own.offer_id)) ?? [],
          startPrice: history?.received[0]?.previous_price ?? product.own.selling_price,
          bounds: productBounds,
        },
        { from, to: reactionEnd },
      );
      reactions.push(...tally.reactions);
      const made = drained.decisions
        .filter((decision) => decision.offer_id === String(product.own.offer_id))
        .map((decision) => Date.parse(decision.created_at))
        .sort((a, b) => a - b);
      for (const reaction of tally.reactions) {
        const decided = made.find((time) => time >= reaction.seenAt && time <= reaction.appliedAt);
        if (decided !== undefined) seenToDecided.push(decided - reaction.seenAt);
      }
      notNeeded += tally.notNeeded;
      missed += tally.missed;
      unresolved += tally.unresolved;
      afterNextRead += tally.afterNextRead;
    }
    const decisions = drained.decisions.map((decision) => ({
      offerId: decision.offer_id,
      status: decision.status,
      sentPrice: decision.sent_price,
      createdAt: Date.parse(decision.created_at),
    }));
    const inWindow = (time: string | null, start: number, end: number) => time !== null && Date.parse(time) >= start && Date.parse(time) < end;
    const tierSeconds = (MARKET_SYNC.repricedEverySeconds / MARKET_SYNC.tickSeconds) * settings.tickSeconds;
    const after = (time: number) => accepted.filter((entry) => entry.at > time);
    const arrivedAfter = (time: number) => arrivals.filter((arrival) => arrival > time);
    const figures: RunFigures = {
      run: plan.run,
      webhooks: plan.webhooks,
      products: settings.products,
      windowSeconds: (to - from) / 1000,
      setupSeconds,
      startupDecisions: startup.decisions.length,
      drainSeconds: drained.seconds,
      botTicks,
      scheduleTicks,
      reaction: {
        tierSeconds,
        changeToSeen: spread(reactions.map((r) => r.seenAt - r.changedAt)),
        seenToDecided: spread(seenToDecided),
        seenToApplied: spread(reactions.map((r) => r.appliedAt - r.seenAt)),
        changeToApplied: spread(reactions.map((r) => r.appliedAt - r.changedAt)),
        notNeeded,
        missed,
        unresolved,
        afterNextRead,
      },
      prices: checkPrices(accepted, bounds),
      exactlyOnce: { ...exactlyOnce(decisions, log), logDuplicates: priceLog.duplicates, accepted: priceLog.total },
      ...(killSwitch
        ? {
            killSwitch: {
              atSeconds: (killSwitch.at - from) / 1000,
              lateUpdates: arrivedAfter(killSwitch.at + 1_000).length,
              appliedLate: after(killSwitch.at + 1_000).length,
              updatesAfter: after(killSwitch.at).length,
              lastUpdateAfterSeconds: after(killSwitch.at).length ? (Math.max(...after(killSwitch.at).map((e) => e.at)) - killSwitch.at) / 1000 : NaN,
            },
          }
        : {}),
      ...(revoke
        ? {
            revoke: {
              revokedAtSeconds: (revoke.revokedAt - from) / 1000,
              restoredAtSeconds: (revoke.restoredAt - from) / 1000,
              statusBeforeRestore: revoke.status,
              lastErrorBeforeRestore: revoke.lastError,
              acceptedWhileRevoked: arrivals.filter((arrival) => arrival > revoke.revokedAt && arrival <= revoke.restoredAt).length,
              acceptedAfterRestore: after(revoke.restoredAt).length,
              firstAfterRestoreSeconds: after(revoke.restoredAt).length
                ? (Math.min(...after(revoke.restoredAt).map((e) => e.at)) - revoke.restoredAt) / 1000
                : NaN,
              burstsOf429: bursts,
              refusedBursts,
            },
          }
        : {}),
      ...(plan.killSwitchAt !== undefined
        ? {
            outcome: groupShares(
              products
                .filter((product) => pricedBy.get(product.plid)?.approach !== 'static')
                .map((product) => ({ group: groups.get(product.plid) ?? 'above', tally: slots.get(product.plid)! })),
            ),
            approaches: settings.approaches.map((approach) =>
              approachShare(approach, [...pricedBy.values()].filter((priced) => priced.approach === approach).length, byApproach.get(approach)!),
            ),
          }
        : {}),
      ...(tally && plan.liveCost ? { liveCost: { tally, applied: drained.decisions.filter((d) => inWindow(d.applied_at, from, Date.now())).length } } : {}),
      ...(tally && suggestFrom !== undefined
        ? {
            suggestCost: {
              tally,
              suggested: drained.decisions.filter((d) => d.status === 'suggested' && inWindow(d.created_at, suggestFrom!, Date.now())).length,
            },
          }
        : {}),
      unfinished: drained.decisions
        .filter((d) => UNFINISHED.has(d.status))
        .map((d) => ({
          status: d.status,
          attempts: d.sender.attempts ?? 0,
          retryInSeconds: d.sender.retryAt ? (Date.parse(d.sender.retryAt) - Date.now()) / 1000 : null,
        })),
      connection: await getConnection(api.url, phase.auth),
      traffic: market.control.traffic(),
      webhookDeliveries: webhookOutcomes(market),
      serviceTimes: serviceTimes(drained.decisions, startup.decisions, from),
      sample: reactions.slice(0, 5),
    };
    return figures;
  } finally {
    for (const timer of timers) clearInterval(timer);
    await api.close();
    await stopPhase(phase);
  }
};
