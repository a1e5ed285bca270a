import type { ImportRecord } from '../../lambdas/domain/import-records.js';

/** Deterministic pseudo-random numbers (mulberry32): the same seed gives the same data. */
export const prng = (seed: number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

export const COMPETITIVENESS = ['high', 'medium', 'low'] as const;

/** The connector type the benchmark catalogue is priced for: reference data, loaded by the operator's import. */
export const BENCH_CONNECTOR_TYPES: ImportRecord[] = [
  { type: 'connector_type', data: { uid: 'amazon', name: 'Amazon', logo: 'https://logos.example/amazon.png', website: 'https://amazon.example' } },
];

/**
 * A tenant's catalogue for the benchmark: one product per 20 offers, offers spread over
 * competitiveness values, 0-40 competitors and prices from 1.00 to 1,000.00; 60 % own.
 */
export const benchRecords = (offers: number, ownSellerId: string, seed = offers): ImportRecord[] => {
  const random = prng(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;
  const products = Math.max(1, Math.ceil(offers / 20));
  const records: ImportRecord[] = [];
  for (let p = 0; p < products; p++) {
    records.push({
      type: 'product',
      data: {
        code: `BENCH-${p}`,
        title: `Benchmark product ${p}`,
        description: 'A product of the benchmark catalogue.\nSecond line of its description.',
        brand: pick(['Acme', 'Globex', 'Initech']),
        colour: pick(['red', 'blue', 'green']),
        barcode: String(5_000_000_000_000 + p),
        type: null,
        material: null,
        parent_code: null,
        images: null,
        main_image: `https://images.example/bench/${p}.jpg`,
        retail_price: Math.round(100 + random() * 99_900) / 100,
        soh: Math.floor(random() * 50),
        height_cm: 10,
        length_cm: 20,
        width_cm: 5,
        weight_g: 300,
        fee_estimates: {
          amazon: {
            instock: { commission: 1.5, fulfilment: 3.2, commission_percentage: 15 },
            leadtime: { commission: 1.5, fulfilment: 4.1, commission_percentage: 15 },
          },
        },
      },
    });
  }
  for (let o = 0; o < offers; o++) {
    const own = random() < 0.6;
    records.push({
      type: 'offer',
      data: {
        offer_id: `bench-offer-${o}`,
        product_code: `BENCH-${o % products}`,
        offer_price: Math.round(100 + random() * 99_900) / 100,
        offer_status: 'buyable',
        stock_status: random() < 0.8 ? 'in_stock' : 'lead_time',
        competitiveness: pick(COMPETITIVENESS),
        total_competitors: Math.floor(random() * 41),
        winning: random() < 0.3,
        winning_delivery: random() < 0.5,
        winning_price: Math.round(100 + random() * 99_900) / 100,
        rating_avg: Math.round(random() * 50) / 10,
        rating_count: String(Math.floor(random() * 5000)),
        seller_id: own ? ownSellerId : `competitor-${Math.floor(random() * 25)}`,
        seller_name: own ? 'Benchmark seller' : 'Competitor',
        url: `https://market.example/offers/${o}`,
        last_seen_at: null,
      },
    });
  }
  return records;
};
