/**
 * Repricing evaluations (docs/performance.md, "Repricing evaluations"): what one evaluation of
 * a product's repricer costs and how many run per second, at products with 2, 20 and 200
 * competitor offers. Everything runs through the code production runs: offers imported with the
 * import code, repricers created as `POST /v1/repricers/` creates them, decisions made by the
 * evaluator the event runtime invokes from the table's stream (and, for the read cost and the
 * rate, by the same `evaluateProduct` called directly while nothing else runs).
 */
import { importConnectorTypes, importRecords, type ImportRecord } from '../admin/import.js';
import { createClientAccount } from '../admin/clients.js';
import { createRepricerFor } from '../admin/repricers.js';
import { evaluateProduct } from '../../lambdas/functions/evaluate-repricers/evaluate.js';
import { DEFAULT_PRICE_CHANGE_RETENTION_DAYS } from '../../lambdas/domain/repricing.js';
import type { Harness, Measured } from './harness.js';
import { percentile } from './list-reads.js';
import { BENCH_CONNECTOR_TYPES } from './offer-generator.js';
import { addTallies, perOperation, tallyOf, type ItemKind, type WriteTally } from './write-meter.js';

export const REPRICING_COMPETITORS = [2, 20, 200] as const;

export interface RepricingSettings {
  /** Products per competitor count, each with a repricer; one measured decision each. */
  readonly products: number;
  /** Timed evaluations per competitor count, one at a time and again 8 at a time. */
  readonly evaluations: number;
}

export interface RepricingFigures {
  readonly competitors: number;
  readonly products: number;
  /** One evaluation's reads (AWS read model): the consistent Query of the product's partition. */
  readonly evaluation: { readonly calls: number; readonly readUnits: number; readonly itemsRead: number; readonly bytesRead: number };
  /** Decisions recorded by the measured competitor changes (one is expected of each). */
  readonly decisions: number;
  /** Per decision, by who writes it: the evaluator (price change, decision state, id counter) and the list maintainer (the price change's two listings and their rank nodes). */
  readonly evaluatorWrites: WriteTally;
  readonly listingWrites: WriteTally;
  /** Per competitor change: the offer's own writes (canonical offer, its listing and nodes), for comparison. */
  readonly offerWrites: WriteTally;
  /** Read units of the whole path per change: import, list maintainer and evaluator. */
  readonly pathReadUnits: number;
  /** From the competitor offer's write to its price change's write (ms). */
  readonly decidedMs: { readonly p50: number; readonly p99: number; readonly max: number };
  /** Evaluations with nothing new to decide (read and decide), one at a time and 8 at a time. */
  readonly serial: { readonly perSecond: number; readonly p50Ms: number; readonly p99Ms: number };
  readonly concurrent: { readonly perSecond: number; readonly workers: number };
  /** One import of a change on every product: decisions recorded and listed per second. */
  readonly bulk: { readonly changes: number; readonly decisions: number; readonly settledSeconds: number; readonly perSecond: number };
}

const say = (line: string) => process.stderr.write(`${line}\n`);
const SELLER = 'bench-repricing-seller';
const CONNECTOR = 'amazon';
const CONCURRENCY = 8;
const RETENTION_DAYS = DEFAULT_PRICE_CHANGE_RETENTION_DAYS;
const EVALUATOR_KINDS: readonly ItemKind[] = ['priceChange', 'decision', 'counter'];
const LISTING_KINDS: readonly ItemKind[] = ['priceChangeListing', 'priceChangeNode'];

const productCode = (competitors: number, p: number) => `RP${competitors}-${p}`;
const competitorId = (code: string, c: number) => `${code}-C${c}`;
/** The lowest competitor starts at 95.00; the others are dearer, 0.10 apart. */
const competitorPrice = (c: number) => Math.round(9_500 + c * 10) / 100;

const offerLine = (code: string, offerId: string, price: number, own: boolean): ImportRecord => ({
  type: 'offer',
  data: {
    offer_id: offerId,
    product_code: code,
    offer_price: price,
    offer_status: 'buyable',
    stock_status: 'in_stock',
    competitiveness: 'medium',
    total_competitors: 0,
    winning: false,
    winning_delivery: false,
    winning_price: competitorPrice(0),
    rating_avg: 4.5,
    rating_count: '100',
    seller_id: own ? SELLER : `rival-${offerId}`,
    seller_name: own ? 'Benchmark seller' : 'Rival',
    url: `https://market.example/offers/${offerId}`,
    last_seen_at: null,
  },
});

/** A product with the client's own offer at 100.00 and `competitors` other sellers' offers from 95.00 up. */
const productRecords = (competitors: number, p: number): ImportRecord[] => {
  const code = productCode(competitors, p);
  return [
    {
      type: 'product',
      data: {
        code,
        title: `Repricing benchmark product ${code}`,
        description: 'A product of the repricing benchmark.',
        brand: 'Acme',
        colour: 'red',
        barcode: String(5_100_000_000_000 + competitors * 1_000 + p),
        type: null,
        material: null,
        parent_code: null,
        images: null,
        main_image: `https://images.example/bench/${code}.jpg`,
        retail_price: 100,
        soh: 10,
        height_cm: 10,
        length_cm: 20,
        width_cm: 5,
        weight_g: 300,
        fee_estimates: {
          [CONNECTOR]: {
            instock: { commission: 15, fulfilment: 3.2, commission_percentage: 15 },
            leadtime: { commission: 15, fulfilment: 4.1, commission_percentage: 15 },
          },
        },
      },
    },
    offerLine(code, `${code}-OWN`, 100, true),
    ...Array.from({ length: competitors }, (_, c) => offerLine(code, competitorId(code, c), competitorPrice(c), false)),
  ];
};

/** NaN when nothing was measured, rather than a figure made up. */
const pct = (sorted: readonly number[], p: number) => (sorted.length === 0 ? NaN : percentile(sorted, p));
const median = (values: readonly number[]) =>
  pct(
    [...values].sort((a, b) => a - b),
    0.5,
  );

/** The repricing tenant: a new client, its products and their repricers, settled (their first decisions made). */
const loadTenant = async (h: Harness, runId: string, settings: RepricingSettings) => {
  const username = `bench-repricing-${runId}`;
  await importConnectorTypes(BENCH_CONNECTOR_TYPES);
  const account = await createClientAccount({ username, sellerId: SELLER, connector: CONNECTOR });
  for (const competitors of REPRICING_COMPETITORS) {
    const records = Array.from({ length: settings.products }, (_, p) => productRecords(competitors, p)).flat();
    await importRecords(records, {
      username,
      onProgress: (done, total) => process.stderr.write(`\rrepricing tenant, ${competitors} competitors: offers ${done}/${total}`),
    });
    process.stderr.write('\n');
    for (let p = 0; p < settings.products; p++) {
      // Floor 120 - 30 / 0.85 = 84.71: the repricer undercuts every competitor price used here.
      const result = await createRepricerFor(account, { product_code: productCode(competitors, p), preferred_price: 120, preferred_profit: 30 });
      if (!result.created) throw new Error(`The product ${productCode(competitors, p)} already had a repricer`);
    }
  }
  await h.settle();
  return { username, clientId: account.clientId };
};

const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
};

const measureCompetitors = async (
  h: Harness,
  tenant: { username: string; clientId: string },
  competitors: number,
  settings: RepricingSettings,
): Promise<RepricingFigures> => {
  const codes = Array.from({ length: settings.products }, (_, p) => productCode(competitors, p));
  await h.settle();

  // One evaluation's reads, alone: its inputs are decided already, so it reads and writes nothing new.
  // The one before it reads the connector's price step, which is then cached for a minute, as in a warm container.
  await evaluateProduct(tenant.clientId, codes[0]!, RETENTION_DAYS);
  const alone = await h.instrument.record(() => evaluateProduct(tenant.clientId, codes[0]!, RETENTION_DAYS));
  if (alone.result.length > 0) throw new Error(`An evaluation of ${codes[0]} decided again with nothing changed`);
  const evaluation = {
    calls: alone.calls.length,
    readUnits: alone.calls.reduce((s, c) => s + c.awsUnits, 0),
    itemsRead: alone.calls.reduce((s, c) => s + c.items, 0),
    bytesRead: alone.calls.reduce((s, c) => s + c.readBytes, 0),
  };

  // The rate: the same evaluations, timed one at a time, then 8 at a time.
  const times: number[] = [];
  const [, serialMs] = await timed(async () => {
    for (let i = 0; i < settings.evaluations; i++)
      times.push((await timed(() => evaluateProduct(tenant.clientId, codes[i % codes.length]!, RETENTION_DAYS)))[1]);
  });
  times.sort((a, b) => a - b);
  let next = 0;
  const [, concurrentMs] = await timed(() =>
    Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < settings.evaluations) {
          const i = next++;
          await evaluateProduct(tenant.clientId, codes[i % codes.length]!, RETENTION_DAYS);
        }
      }),
    ),
  );

  // A decision: the lowest competitor of each product moves down 1.50, one product at a time, each settled.
  const written = new Map<string, { offer?: number; decided?: number }>();
  h.instrument.onWritten = (items, at) => {
    for (const item of items) {
      if (item.entity === 'offer') {
        const entry = written.get(String(item.product_code ?? ''));
        if (entry && entry.offer === undefined) entry.offer = at;
      }
      if (item.entity === 'priceChange') {
        const code = (item.record as { product_code?: string } | undefined)?.product_code ?? '';
        const entry = written.get(code);
        if (entry && entry.decided === undefined) entry.decided = at;
      }
    }
  };
  const runs: Measured<unknown>[] = [];
  try {
    for (const code of codes) {
      written.set(code, {});
      runs.push(await h.measure(() => importRecords([offerLine(code, competitorId(code, 0), competitorPrice(0) - 1.5, false)], { username: tenant.username })));
    }
  } finally {
    h.instrument.onWritten = undefined;
  }
  const total = addTallies(...runs.map((r) => r.writes));
  const decisions = total.byKind.priceChange?.writes ?? 0;
  const lags = [...written.values()].flatMap((e) => (e.offer !== undefined && e.decided !== undefined ? [e.decided - e.offer] : [])).sort((a, b) => a - b);

  // In bulk: one import moves the lowest competitor of every product back up.
  const bulk = await h.measure(() =>
    importRecords(
      codes.map((code) => offerLine(code, competitorId(code, 0), competitorPrice(0), false)),
      { username: tenant.username },
    ),
  );
  const bulkDecisions = bulk.writes.byKind.priceChange?.writes ?? 0;

  const per = (tally: WriteTally) => perOperation(tally, Math.max(1, decisions));
  const figures: RepricingFigures = {
    competitors,
    products: codes.length,
    evaluation,
    decisions,
    evaluatorWrites: per(tallyOf(total, EVALUATOR_KINDS)),
    listingWrites: per(tallyOf(total, LISTING_KINDS)),
    offerWrites: perOperation(tallyOf(total, [...EVALUATOR_KINDS, ...LISTING_KINDS], true), runs.length),
    pathReadUnits: runs.reduce((s, r) => s + r.reads.units, 0) / runs.length,
    decidedMs: { p50: pct(lags, 0.5), p99: pct(lags, 0.99), max: lags.at(-1) ?? NaN },
    serial: { perSecond: settings.evaluations / (serialMs / 1000), p50Ms: median(times), p99Ms: pct(times, 0.99) },
    concurrent: { perSecond: settings.evaluations / (concurrentMs / 1000), workers: CONCURRENCY },
    bulk: { changes: codes.length, decisions: bulkDecisions, settledSeconds: bulk.settledMs / 1000, perSecond: bulkDecisions / (bulk.settledMs / 1000) },
  };
  say(
    `  ${competitors} competitors: evaluation ${evaluation.readUnits} RU (${evaluation.calls} call, ${evaluation.itemsRead} items, ${(evaluation.bytesRead / 1024).toFixed(1)} KB); ` +
      `decision ${figures.evaluatorWrites.total.toFixed(1)} WU + ${figures.listingWrites.total.toFixed(1)} WU listed (${decisions} of ${runs.length}); ` +
      `${figures.serial.perSecond.toFixed(0)} evaluations/s (${figures.concurrent.perSecond.toFixed(0)} with ${CONCURRENCY}); decided p50 ${figures.decidedMs.p50.toFixed(0)} ms, p99 ${figures.decidedMs.p99.toFixed(0)} ms`,
  );
  return figures;
};

export const measureRepricing = async (h: Harness, runId: string, settings: RepricingSettings): Promise<RepricingFigures[]> => {
  say(`\n== repricing evaluations (${settings.products} products per competitor count, ${settings.evaluations} timed evaluations)`);
  const tenant = await loadTenant(h, runId, settings);
  const figures: RepricingFigures[] = [];
  for (const competitors of REPRICING_COMPETITORS) figures.push(await measureCompetitors(h, tenant, competitors, settings));
  return figures;
};
