/**
 * The benchmark's measured operations, each through the code production runs: offers imported
 * with the import code and listed by the list maintainer from the change stream (the local
 * event runtime runs the deployed handlers), repricers written as the API's handlers write
 * them, pages read by the list functions. Loaded once the table is set up (bin/bench.ts).
 */
import { PutCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { importConnectorTypes, importRecords, type ImportRecord } from '../admin/import.js';
import { createClientAccount } from '../admin/clients.js';
import { createRepricerFor } from '../admin/repricers.js';
import { batchGet } from '../../lambdas/data/table/batch.js';
import { getClient } from '../../lambdas/data/clients/clients.js';
import { documentClient, tableName } from '../../lambdas/data/table/dynamo.js';
import { offerKey } from '../../lambdas/data/table/keys.js';
import { storedOffer, type StoredOffer } from '../../lambdas/data/offers/list.js';
import { listOffers } from '../../lambdas/data/offers/read.js';
import { readLookups } from '../../lambdas/data/offers/write.js';
import { getProduct } from '../../lambdas/data/offers/products.js';
import { deleteRepricer, updateRepricer } from '../../lambdas/data/repricers/write.js';
import { getRepricer, listRepricers } from '../../lambdas/data/repricers/read.js';
import { idKey } from '../../lambdas/data/table/sort-keys.js';
import { offerQueryParameters, planOfferQuery } from '../../lambdas/domain/offer-query.js';
import { planRepricerQuery, repricerQueryParameters } from '../../lambdas/domain/repricer-query.js';
import { applyRepricerPatch, updateRepricerBody } from '../../lambdas/domain/update-repricer.js';
import type { Harness, Measured } from './harness.js';
import type { ReadTally } from './instrument.js';
import { measureListQueries, OFFER_QUERIES, percentile, REPRICER_QUERIES, type PageRead, type ReadMeasurement } from './list-reads.js';
import { benchOfferId, changedLine, pickOffers, type ChangeKind } from './offer-changes.js';
import { BENCH_CONNECTOR_TYPES, benchRecords, prng } from './offer-generator.js';
import { addTallies, perOperation, type WriteTally } from './write-meter.js';

export const SELLER = 'bench-seller';
export const PAGE_SIZE = 100;

export interface Tenant {
  readonly size: number;
  readonly username: string;
  readonly clientId: string;
  readonly defaultConnector: string;
}

/** What one kind of operation cost, per operation, over `count` of them. */
export interface OperationFigures {
  readonly size: number;
  readonly operation: string;
  readonly count: number;
  /** Write units per operation, by item kind, table and indexes. */
  readonly writes: WriteTally;
  /** Read units (AWS model) per operation, the maintainer's included. */
  readonly readUnits: number;
  /** Fewest and most write units of one operation (single operations only). */
  readonly minWriteUnits?: number;
  readonly maxWriteUnits?: number;
  /** Median ms until the operation returned, and until it was listed and counted. */
  readonly operationMs: number;
  readonly settledMs: number;
  readonly refused: number;
}

export interface LoadFigures {
  readonly size: number;
  readonly date: string;
  readonly writers: number;
  /** The import was resumed after an interrupted run: the rates and units are not those of one import. */
  readonly resumed: boolean;
  readonly writerSeconds: number;
  readonly settledSeconds: number;
  readonly writerOffersPerSecond: number;
  readonly settledOffersPerSecond: number;
  readonly perOffer: WriteTally;
  readonly readUnitsPerOffer: number;
  readonly refused: number;
}

export interface TotalCheck {
  readonly size: number;
  readonly tenant: string;
  readonly params: string;
  readonly expected: number;
  readonly got: number;
}

export interface ThroughputFigures {
  readonly offers: number;
  readonly writers: number;
  readonly writerSeconds: number;
  readonly settledSeconds: number;
  readonly writerOffersPerSecond: number;
  readonly settledOffersPerSecond: number;
  readonly failedImports: number;
  readonly maintainerFailures: number;
  readonly checks: TotalCheck[];
  readonly perOffer: WriteTally;
}

export interface LagFigures {
  readonly size: number;
  readonly changes: number;
  readonly ratePerSecond: number;
  readonly measured: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly importP50Ms: number;
}

const say = (line: string) => process.stderr.write(`${line}\n`);
const median = (values: readonly number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

const LOAD_RECORD_PK = 'BENCH#LOAD';

/** The figures of the import that loaded a tenant, kept in the table so a later run on it can report them. */
const readLoadRecord = async (size: number): Promise<LoadFigures | undefined> => {
  const { Item } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: { pk: LOAD_RECORD_PK, sk: String(size) }, ConsistentRead: true }));
  return Item ? (JSON.parse(String(Item.figures)) as LoadFigures) : undefined;
};

const writeLoadRecord = (figures: LoadFigures) =>
  documentClient.send(
    new PutCommand({ TableName: tableName(), Item: { pk: LOAD_RECORD_PK, sk: String(figures.size), entity: 'benchLoad', figures: JSON.stringify(figures) } }),
  );

const offerLines = (records: readonly ImportRecord[]) => records.filter((r) => r.type === 'offer');
const headLines = (records: readonly ImportRecord[]) => records.filter((r) => r.type !== 'offer');

/** The totals a tenant's lists must show once its offers are listed and counted. */
const expectedTotals = (records: readonly ImportRecord[], withCompetitors: boolean): { params: string; expected: number }[] => {
  const offers = offerLines(records).map((r) => r.data as { seller_id: string; competitiveness: string; total_competitors: number });
  const count = (test: (o: (typeof offers)[number]) => boolean) => offers.filter(test).length;
  const own = (o: (typeof offers)[number]) => o.seller_id === SELLER;
  const checks = [
    { params: '', expected: count(own) },
    { params: '_include_other_offers=true', expected: offers.length },
    { params: 'competitiveness=high', expected: count((o) => own(o) && o.competitiveness === 'high') },
    { params: '_include_other_offers=true&competitiveness=low', expected: count((o) => o.competitiveness === 'low') },
  ];
  if (withCompetitors) {
    checks.push(
      { params: 'total_competitors_gte=20&_sort=offer_price', expected: count((o) => own(o) && o.total_competitors >= 20) },
      {
        params: '_include_other_offers=true&competitiveness=high&total_competitors_gte=20&_sort=updated_at:DESC',
        expected: count((o) => o.competitiveness === 'high' && o.total_competitors >= 20),
      },
    );
  }
  return checks;
};

export const readOffers = async (clientId: string, params: string): Promise<PageRead> => {
  const page = await listOffers(clientId, planOfferQuery(offerQueryParameters.parse(Object.fromEntries(new URLSearchParams(params)))));
  return { total: page.total, ids: page.offers.map((offer) => offer.id), stats: page.stats };
};

export const readRepricers = async (clientId: string, params: string): Promise<PageRead> => {
  const page = await listRepricers(clientId, planRepricerQuery(repricerQueryParameters.parse(Object.fromEntries(new URLSearchParams(params)))));
  return { total: page.total, ids: page.repricers.map((repricer) => repricer.id), stats: page.stats };
};

export const checkTotals = async (tenant: Tenant, label: string, checks: readonly { params: string; expected: number }[]): Promise<TotalCheck[]> =>
  Promise.all(
    checks.map(async ({ params, expected }) => ({
      size: tenant.size,
      tenant: label,
      params,
      expected,
      got: (await readOffers(tenant.clientId, params)).total,
    })),
  );

const tenantOf = async (username: string, size: number): Promise<{ tenant: Tenant; existed: boolean }> => {
  // Reference data first: the operator's import, as `npm start` and a deployment load it.
  await importConnectorTypes(BENCH_CONNECTOR_TYPES);
  const existing = await getClient(username);
  const account = existing ?? (await createClientAccount({ username, sellerId: SELLER }));
  return { tenant: { size, username, clientId: account.clientId, defaultConnector: account.defaultConnector }, existed: existing !== undefined };
};

const loadFiguresOf = (size: number, writers: number, resumed: boolean, measured: Measured<unknown>): LoadFigures => ({
  size,
  date: new Date().toISOString(),
  writers,
  resumed,
  writerSeconds: measured.operationMs / 1000,
  settledSeconds: measured.settledMs / 1000,
  writerOffersPerSecond: size / (measured.operationMs / 1000),
  settledOffersPerSecond: size / (measured.settledMs / 1000),
  perOffer: perOperation(measured.writes, size),
  readUnitsPerOffer: measured.reads.units / size,
  refused: measured.refused,
});

/**
 * The tenant of `size` offers: loaded with one writer through the import code (connector and
 * products first, not measured; then the offers, measured until listed and counted), or found
 * loaded by an earlier run on the same table.
 */
export const loadTenant = async (
  h: Harness,
  size: number,
): Promise<{ tenant: Tenant; load: LoadFigures | undefined; loadedNow: boolean; checks: TotalCheck[] }> => {
  const username = `bench-${size}`;
  const { tenant, existed } = await tenantOf(username, size);
  const records = benchRecords(size, SELLER);
  const previous = existed ? await readLoadRecord(size) : undefined;
  if (previous) {
    say(`tenant of ${size} offers: loaded by the run of ${previous.date}, reused`);
    await h.settle();
    return { tenant, load: previous, loadedNow: false, checks: await checkTotals(tenant, username, expectedTotals(records, false)) };
  }
  if (existed) say(`tenant of ${size} offers: an earlier load did not finish; importing again (unchanged offers are skipped)`);
  await importRecords(headLines(records), { username });
  const offers = offerLines(records);
  const measured = await h.measure(
    () =>
      importRecords(offers, {
        username,
        onProgress: (done, total) => process.stderr.write(`\rimporting ${size} offers: ${done}/${total}`),
      }),
    {
      progress: (ms) => process.stderr.write(`\r${size} offers: ${h.meter.live.get('offerListing') ?? 0} listed after ${(ms / 1000).toFixed(0)} s   `),
    },
  );
  process.stderr.write('\n');
  const load = loadFiguresOf(size, 1, existed, measured);
  say(
    `  ${load.writerOffersPerSecond.toFixed(0)} offers/s written, ${load.settledOffersPerSecond.toFixed(0)} offers/s listed; ${load.perOffer.total.toFixed(1)} write units per offer`,
  );
  await writeLoadRecord(load);
  return { tenant, load, loadedNow: true, checks: await checkTotals(tenant, username, expectedTotals(records, true)) };
};

/** A small import, listed, and a few pages read, before anything is measured: DynamoDB Local's JVM and this process warmed up. */
export const warmUp = async (h: Harness, runId: string): Promise<void> => {
  const username = `bench-warmup-${runId}`;
  const { tenant } = await tenantOf(username, 500);
  await importRecords(benchRecords(500, SELLER, 1), { username });
  await h.settle();
  for (const { params } of OFFER_QUERIES) await readOffers(tenant.clientId, params);
};

export const readStoredOffers = async (clientId: string, offerIds: readonly string[]): Promise<StoredOffer[]> => {
  const lookups = await readLookups(clientId, offerIds);
  const items = await batchGet([...lookups].map(([offerId, lookup]) => offerKey(clientId, lookup.productCode, offerId)));
  const byId = new Map(items.map((item) => [String(storedOffer.parse(item).fields.offer_id), storedOffer.parse(item)]));
  return offerIds.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
};

const summarize = (size: number, operation: string, runs: readonly Measured<unknown>[], perRun = 1): OperationFigures => {
  const count = runs.length * perRun;
  return {
    size,
    operation,
    count,
    writes: perOperation(addTallies(...runs.map((r) => r.writes)), count),
    readUnits: runs.reduce((s, r) => s + r.reads.units, 0) / count,
    ...(perRun === 1 ? { minWriteUnits: Math.min(...runs.map((r) => r.writes.total)), maxWriteUnits: Math.max(...runs.map((r) => r.writes.total)) } : {}),
    operationMs: median(runs.map((r) => r.operationMs)),
    settledMs: median(runs.map((r) => r.settledMs)),
    refused: runs.reduce((s, r) => s + r.refused, 0),
  };
};

/** Single offer changes: one changed line imported alone, then settled, `count` times per kind. */
export const measureSingleChanges = async (h: Harness, tenant: Tenant, kinds: readonly ChangeKind[], count: number): Promise<OperationFigures[]> => {
  const figures: OperationFigures[] = [];
  for (const [k, kind] of kinds.entries()) {
    const random = prng(tenant.size * 7 + k);
    const stored = await readStoredOffers(tenant.clientId, pickOffers(tenant.size, count, tenant.size * 13 + k + (Date.now() % 1000)).map(benchOfferId));
    const runs: Measured<unknown>[] = [];
    for (const offer of stored) runs.push(await h.measure(() => importRecords([changedLine(offer, kind, random)], { username: tenant.username })));
    const summary = summarize(tenant.size, `single change: ${kind}`, runs);
    say(
      `  ${summary.operation}: ${summary.writes.total.toFixed(1)} write units (${summary.minWriteUnits}-${summary.maxWriteUnits}), ${summary.readUnits.toFixed(1)} read units`,
    );
    figures.push(summary);
  }
  return figures;
};

/** A bulk sync: `count` changed lines in one import, half price-and-competitor moves, half flag changes. */
export const measureBulkChanges = async (h: Harness, tenant: Tenant, count: number): Promise<OperationFigures> => {
  const random = prng(tenant.size * 11);
  const stored = await readStoredOffers(tenant.clientId, pickOffers(tenant.size, count, tenant.size * 17 + (Date.now() % 1000)).map(benchOfferId));
  const lines = stored.map((offer, i) => changedLine(offer, i % 2 === 0 ? 'realistic' : 'flags', random));
  const measured = await h.measure(() => importRecords(lines, { username: tenant.username }));
  const summary = summarize(tenant.size, `bulk sync of ${lines.length} changes`, [measured], lines.length);
  say(
    `  ${summary.operation}: ${summary.writes.total.toFixed(1)} write units per change, ${summary.readUnits.toFixed(1)} read units; ${(lines.length / (measured.settledMs / 1000)).toFixed(0)} changes/s listed`,
  );
  return { ...summary, operationMs: measured.operationMs, settledMs: measured.settledMs };
};

/** POST /v1/repricers/ as its handler does it, for a product of the benchmark catalogue. */
const postRepricer = (tenant: Tenant, code: string, enabled: boolean) =>
  createRepricerFor(tenant, {
    product_code: code,
    preferred_price: 49.99,
    preferred_profit: 8,
    min_profit: 0,
    buybox_approach: 'cheapest',
    repricer_approach: 'fixed',
    enabled,
  });

/** PATCH /v1/repricers/{id} as its handler does it: a new preferred price. */
const patchRepricer = (tenant: Tenant, id: number) =>
  updateRepricer(tenant.clientId, id, async (current) => {
    const product = (await getProduct(tenant.clientId, current.record.product.code)) ?? current.record.product;
    const patch = updateRepricerBody.parse({ preferred_price: Math.round((current.record.preferred_price + 1) * 100) / 100 });
    const next = applyRepricerPatch(current.record, patch, product, new Date().toISOString());
    if (!next.ok) throw new Error(next.reason);
    return next.record;
  });

/** How many repricers a tenant keeps (for the list reads), and how many are created, changed and deleted per run. */
export const repricerCounts = (size: number, measured: number) => {
  const products = Math.ceil(size / 20);
  return { kept: Math.max(0, Math.min(300, products - measured)), measured: Math.min(measured, products) };
};

/**
 * Repricer writes: the tenant keeps `kept` repricers (two in three enabled) for the list reads;
 * `measured` more are created, updated and deleted, each measured.
 */
export const measureRepricerWrites = async (
  h: Harness,
  tenant: Tenant,
  measuredCount: number,
): Promise<{ figures: OperationFigures[]; kept: number; getReadUnits: number }> => {
  const { kept, measured } = repricerCounts(tenant.size, measuredCount);
  const existing = (await readRepricers(tenant.clientId, '')).total;
  if (existing < kept) {
    say(`  creating ${kept - existing} repricers to list`);
    for (let i = 0; i < kept; i++) await postRepricer(tenant, `BENCH-${i}`, i % 3 !== 0);
  }
  const creates: Measured<unknown>[] = [];
  const updates: Measured<unknown>[] = [];
  const deletes: Measured<unknown>[] = [];
  const ids: number[] = [];
  for (let i = kept; i < kept + measured; i++) {
    const code = `BENCH-${i}`;
    let run = await h.measure(() => postRepricer(tenant, code, true));
    if (!run.result.created) {
      // Left by an interrupted run: remove it and measure again.
      await deleteRepricer(tenant.clientId, run.result.existingId, () => undefined);
      run = await h.measure(() => postRepricer(tenant, code, true));
    }
    if (!run.result.created) throw new Error(`Could not create a repricer for ${code}`);
    creates.push(run);
    ids.push(run.result.repricer.id);
  }
  for (const id of ids) updates.push(await h.measure(() => patchRepricer(tenant, id)));
  const get = await h.instrument.record(() => getRepricer(tenant.clientId, ids[0]!));
  for (const id of ids) deletes.push(await h.measure(() => deleteRepricer(tenant.clientId, id, () => undefined)));
  const figures = [
    summarize(tenant.size, 'repricer create', creates),
    summarize(tenant.size, 'repricer update', updates),
    summarize(tenant.size, 'repricer delete', deletes),
  ];
  for (const f of figures) say(`  ${f.operation}: ${f.writes.total.toFixed(1)} write units, ${f.readUnits.toFixed(1)} read units`);
  return { figures, kept, getReadUnits: get.calls.reduce((s, c) => s + c.awsUnits, 0) };
};

/**
 * Change-stream lag: `count` single changes at `ratePerSecond`, each from the moment its
 * canonical item was written to the moment the maintainer wrote its listing (after its counts).
 */
export const measureLag = async (h: Harness, tenant: Tenant, count: number, ratePerSecond: number): Promise<LagFigures> => {
  const random = prng(tenant.size * 19);
  const stored = await readStoredOffers(tenant.clientId, pickOffers(tenant.size, count, tenant.size * 23 + (Date.now() % 1000)).map(benchOfferId));
  const lines = stored.map((offer) => changedLine(offer, 'realistic', random));
  const pending = new Map(stored.map((offer) => [idKey(offer.id), {} as { written?: number; listed?: number }]));
  h.instrument.onWritten = (items, at) => {
    for (const item of items) {
      if (item.entity === 'offer') {
        const entry = pending.get(idKey(Number(item.id)));
        if (entry && entry.written === undefined) entry.written = at;
      } else if (item.entity === 'offerListing') {
        const entry = pending.get(String(item.sk));
        if (entry?.written !== undefined && entry.listed === undefined) entry.listed = at;
      }
    }
  };
  const importMs: number[] = [];
  try {
    await h.settle();
    const started = performance.now();
    await Promise.all(
      lines.map(async (line, i) => {
        await sleep(started + (i * 1000) / ratePerSecond - performance.now());
        const t = performance.now();
        await importRecords([line], { username: tenant.username });
        importMs.push(performance.now() - t);
      }),
    );
    await h.settle();
  } finally {
    h.instrument.onWritten = undefined;
  }
  const lags = [...pending.values()].flatMap((e) => (e.written !== undefined && e.listed !== undefined ? [e.listed - e.written] : [])).sort((a, b) => a - b);
  const figures: LagFigures = {
    size: tenant.size,
    changes: lines.length,
    ratePerSecond,
    measured: lags.length,
    p50Ms: percentile(lags, 0.5),
    p99Ms: percentile(lags, 0.99),
    maxMs: lags.at(-1) ?? NaN,
    importP50Ms: median(importMs),
  };
  say(`  lag over ${figures.measured} changes at ${ratePerSecond}/s: p50 ${figures.p50Ms.toFixed(0)} ms, p99 ${figures.p99Ms.toFixed(0)} ms`);
  return figures;
};

export const measureOfferReads = (h: Harness, tenants: readonly Tenant[], repetitions: number): Promise<ReadMeasurement[]> =>
  measureListQueries({
    tenants: tenants.map((tenant) => ({ size: tenant.size, read: (params: string) => readOffers(tenant.clientId, params) })),
    instrument: h.instrument,
    queries: OFFER_QUERIES,
    entity: 'offerListing',
    limit: PAGE_SIZE,
    repetitions,
  });

export const measureRepricerReads = (h: Harness, tenants: readonly Tenant[], repetitions: number): Promise<ReadMeasurement[]> =>
  measureListQueries({
    tenants: tenants.map((tenant) => ({ size: tenant.size, read: (params: string) => readRepricers(tenant.clientId, params) })),
    instrument: h.instrument,
    queries: REPRICER_QUERIES,
    entity: 'repricerListing',
    canonicalEntity: 'repricer',
    limit: PAGE_SIZE,
    repetitions,
  });

/**
 * Import throughput into one new tenant: `writers` concurrent imports of disjoint offers, until
 * they return and until every offer is listed and counted; then the totals must match.
 */
export const measureThroughput = async (h: Harness, offers: number, writers: number, runId: string): Promise<ThroughputFigures> => {
  const username = `bench-tp${writers}-${runId}`;
  const { tenant } = await tenantOf(username, offers);
  const records = benchRecords(offers, SELLER);
  await importRecords(headLines(records), { username });
  const lines = offerLines(records);
  const slices = Array.from({ length: writers }, (_, w) => lines.filter((_, i) => i % writers === w));
  const failuresBefore = h.failures();
  const measured = await h.measure(
    async () => (await Promise.allSettled(slices.map((slice) => importRecords(slice, { username })))).filter((r) => r.status === 'rejected').length,
    {
      progress: (ms) =>
        process.stderr.write(`\r${writers} writer(s): ${h.meter.live.get('offerListing') ?? 0}/${offers} listed after ${(ms / 1000).toFixed(0)} s   `),
    },
  );
  process.stderr.write('\n');
  const figures: ThroughputFigures = {
    offers,
    writers,
    writerSeconds: measured.operationMs / 1000,
    settledSeconds: measured.settledMs / 1000,
    writerOffersPerSecond: offers / (measured.operationMs / 1000),
    settledOffersPerSecond: offers / (measured.settledMs / 1000),
    failedImports: measured.result,
    maintainerFailures: h.failures() - failuresBefore,
    checks: await checkTotals(tenant, username, expectedTotals(records, true)),
    perOffer: perOperation(measured.writes, offers),
  };
  const mismatched = figures.checks.filter((c) => c.got !== c.expected).length;
  say(
    `  ${writers} writer(s): ${figures.writerOffersPerSecond.toFixed(0)} offers/s written, ${figures.settledOffersPerSecond.toFixed(0)} offers/s listed; ` +
      `${figures.failedImports} failed imports, ${figures.maintainerFailures} maintainer failures, ${mismatched} totals off`,
  );
  return figures;
};

export type { ReadTally };
