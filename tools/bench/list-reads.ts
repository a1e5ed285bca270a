import { idKey } from '../../lambdas/data/table/sort-keys.js';
import type { ReadStats } from '../../lambdas/data/table/read-stats.js';
import { readUnits } from './capacity-model.js';
import type { CallRecord, Instrument } from './instrument.js';

/**
 * List requests measured as a page of the API reads them: the data layer's list function with
 * the query the handler would plan from the parameters. Each (query, `_start`) is read once to
 * price it (every DynamoDB call priced with AWS's read model, a filtered Query also for what its
 * filter dropped), then timed over repetitions.
 */
export interface ListQuery {
  readonly name: string;
  readonly params: string;
  /** Only the first page (a list that is always short). */
  readonly firstOnly?: boolean;
}

export const OFFER_QUERIES: readonly ListQuery[] = [
  { name: 'no filter (id)', params: '' },
  { name: 'id DESC', params: '_sort=id:DESC' },
  { name: 'include other offers', params: '_include_other_offers=true' },
  { name: 'competitiveness', params: 'competitiveness=high' },
  { name: 'competitors >= 20', params: 'total_competitors_gte=20' },
  { name: 'both filters', params: 'competitiveness=high&total_competitors_gte=20' },
  { name: 'total_competitors ASC', params: '_sort=total_competitors' },
  { name: 'total_competitors DESC', params: '_sort=total_competitors:DESC' },
  { name: 'offer_price ASC', params: '_sort=offer_price' },
  { name: 'offer_price DESC', params: '_sort=offer_price:DESC' },
  { name: 'updated_at ASC', params: '_sort=updated_at' },
  { name: 'updated_at DESC', params: '_sort=updated_at:DESC' },
  { name: 'competitors >= 20, offer_price ASC', params: 'total_competitors_gte=20&_sort=offer_price' },
  { name: 'competitors >= 20, updated_at DESC', params: 'total_competitors_gte=20&_sort=updated_at:DESC' },
  { name: 'all filters, others, offer_price DESC', params: '_include_other_offers=true&competitiveness=high&total_competitors_gte=20&_sort=offer_price:DESC' },
];

export const REPRICER_QUERIES: readonly ListQuery[] = [
  { name: 'no filter (id)', params: '' },
  { name: 'id DESC', params: '_sort=id:DESC' },
  { name: 'enabled', params: 'enabled=true' },
  { name: 'disabled', params: 'enabled=false' },
  { name: 'updated_at DESC', params: '_sort=updated_at:DESC' },
  { name: 'created_at ASC', params: '_sort=created_at' },
  { name: 'enabled, updated_at DESC', params: 'enabled=true&_sort=updated_at:DESC' },
  { name: 'one product', params: 'product_code=BENCH-5', firstOnly: true },
];

export type Position = 'start' | 'middle' | 'end';

export interface ReadMeasurement {
  readonly size: number;
  readonly query: string;
  readonly params: string;
  readonly position: Position;
  readonly start: number;
  readonly total: number;
  readonly pageItems: number;
  readonly roundTrips: number;
  readonly calls: number;
  /** Read units as DynamoDB Local reported them (only the calls that ask for them). */
  readonly localUnits: number;
  /** Read units under AWS's published model, every call. */
  readonly awsUnits: number;
  /** One eventually consistent Query returning just the page's items as stored. */
  readonly idealUnits: number;
  readonly pageBytes: number;
  readonly medianMs: number;
  readonly p95Ms: number;
  readonly detail: readonly Omit<CallRecord, 'returned'>[];
}

export interface PageRead {
  readonly total: number;
  readonly ids: readonly number[];
  readonly stats: ReadStats;
}

export const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

/** `RCU <= 2.5 x ideal + 4`: what a page may cost above reading just itself. */
export const withinReadTarget = (m: Pick<ReadMeasurement, 'awsUnits' | 'idealUnits'>) => m.awsUnits <= 2.5 * m.idealUnits + 4;

/**
 * Every query at `_start` = start, middle and end of each tenant's list. The tenants' timed
 * repetitions are interleaved (one request of each in turn), so a slower moment of the machine
 * weighs on every size alike and the ratios between sizes stay fair.
 */
export const measureListQueries = async (options: {
  readonly tenants: readonly { readonly size: number; readonly read: (params: string) => Promise<PageRead> }[];
  readonly instrument: Instrument;
  readonly queries: readonly ListQuery[];
  /** The listing entity a page is made of. */
  readonly entity: string;
  /** What a page is made of when it is not read from listings (a product's repricers: the canonical items). */
  readonly canonicalEntity?: string;
  readonly limit: number;
  readonly repetitions: number;
}): Promise<ReadMeasurement[]> => {
  const { instrument } = options;
  const measurements: ReadMeasurement[] = [];
  for (const { name, params, firstOnly } of options.queries) {
    const positions: Position[] = firstOnly ? ['start'] : ['start', 'middle', 'end'];
    const starts = await Promise.all(
      options.tenants.map(async ({ read }) => {
        const { total } = await read(params);
        return { start: 0, middle: Math.floor(total / 2), end: Math.max(0, total - options.limit) };
      }),
    );
    const withStart = (start: number) => [params, `_start=${start}`].filter(Boolean).join('&');
    for (const position of positions) {
      const priced = [];
      for (const [t, { read }] of options.tenants.entries()) {
        instrument.priceFilteredReads = true;
        try {
          priced.push(await instrument.record(() => read(withStart(starts[t]![position]))));
        } finally {
          instrument.priceFilteredReads = false;
        }
      }
      const times: number[][] = options.tenants.map(() => []);
      for (let r = 0; r < options.repetitions; r++) {
        for (const [t, { read }] of options.tenants.entries()) {
          const began = performance.now();
          await read(withStart(starts[t]![position]));
          times[t]!.push(performance.now() - began);
        }
      }
      for (const [t, { size }] of options.tenants.entries()) {
        const { result, calls } = priced[t]!;
        const stored = new Map(
          calls.flatMap((call) => call.returned.filter((item) => item.entity === options.entity).map((item) => [item.sk, item.bytes] as const)),
        );
        let pageBytes = result.ids.reduce((sum, id) => sum + (stored.get(idKey(id)) ?? 0), 0);
        if (pageBytes === 0 && options.canonicalEntity) {
          pageBytes = calls
            .flatMap((call) => call.returned)
            .filter((item) => item.entity === options.canonicalEntity)
            .reduce((sum, item) => sum + item.bytes, 0);
        }
        const sorted = times[t]!.sort((a, b) => a - b);
        measurements.push({
          size,
          query: name,
          params,
          position,
          start: starts[t]![position],
          total: result.total,
          pageItems: result.ids.length,
          roundTrips: result.stats.roundTrips,
          calls: calls.length,
          localUnits: result.stats.capacityUnits,
          awsUnits: calls.reduce((sum, c) => sum + c.awsUnits, 0),
          idealUnits: result.ids.length > 0 ? readUnits(pageBytes, false) : 0,
          pageBytes,
          medianMs: percentile(sorted, 0.5),
          p95Ms: percentile(sorted, 0.95),
          detail: calls.map(({ returned: _, ...call }) => call),
        });
      }
    }
  }
  return measurements.sort((a, b) => a.size - b.size);
};
