/**
 * Two clients with look-alike catalogues for tenancy tests: A is the caller, B the neighbour
 * whose data must never show. B's strings are distinctive so a response can be searched for them.
 */
import { connectorRecord, offerRecord, productRecord } from './fixtures.js';
import type { TestApi } from './local-api.js';

export interface SeededTenant {
  readonly username: string;
  readonly auth: readonly [string, string];
  readonly clientId: string;
  readonly sellerId: string;
  readonly productCodes: readonly string[];
  readonly marketplaceOfferIds: readonly string[];
  /** API ids of every offer the client can read (its own and competitors' on its products). */
  readonly offerIds: readonly number[];
  readonly repricerIds: readonly number[];
}

/** Strings only B's data contains: none may appear in a response to A. */
export const B_MARKERS = ['ZZB-SECRET', 'Zebra secret', 'seller-zzb', 'Zebra Seller', 'ZZB-MKT', 'tenant-b'] as const;

interface TenantPlan {
  readonly username: string;
  readonly password: string;
  readonly sellerId: string;
  readonly codes: readonly string[];
  readonly title: (code: string) => string;
  readonly offerPrefix: string;
  readonly sellerName: string;
}

const PLANS = {
  a: {
    username: 'tenant-a',
    password: 'tenant-a-password',
    sellerId: 'seller-a',
    codes: ['A-P1', 'A-P2', 'A-P3'],
    title: (c: string) => `Alpha product ${c}`,
    offerPrefix: 'A-MKT',
    sellerName: 'Alpha Seller',
  },
  b: {
    username: 'tenant-b',
    password: 'tenant-b-password',
    sellerId: 'seller-zzb',
    codes: ['ZZB-SECRET-1', 'ZZB-SECRET-2', 'ZZB-SECRET-3'],
    title: (c: string) => `Zebra secret ${c}`,
    offerPrefix: 'ZZB-MKT',
    sellerName: 'Zebra Seller',
  },
} satisfies Record<string, TenantPlan>;

const importCatalogue = async (api: TestApi, plan: TenantPlan): Promise<string[]> => {
  const offers = plan.codes.flatMap((code, i) => [
    offerRecord(`${plan.offerPrefix}-${i}-own`, code, { seller_id: plan.sellerId, seller_name: plan.sellerName, total_competitors: i + 1 }),
    offerRecord(`${plan.offerPrefix}-${i}-rival`, code, {
      seller_id: `${plan.sellerId}-rival`,
      seller_name: `${plan.sellerName} rival`,
      competitiveness: 'low',
    }),
  ]);
  await api.importRecords(plan.username, [connectorRecord('amazon'), ...plan.codes.map((code) => productRecord(code, { title: plan.title(code) })), ...offers]);
  return offers.map((offer) => (offer.data as { offer_id: string }).offer_id);
};

const offerIdsOf = async (api: TestApi, auth: readonly [string, string]): Promise<number[]> => {
  const response = await api.request<{ offers: { id: number }[] }>('GET', '/v1/offers?_include_other_offers=true&_limit=100', {
    auth: [...auth] as [string, string],
  });
  if (response.status !== 200) throw new Error(`Listing offers answered ${response.status}: ${response.text}`);
  return response.body.offers.map((offer) => offer.id);
};

const createRepricer = async (api: TestApi, auth: readonly [string, string], code: string): Promise<number> => {
  const response = await api.request<{ id: number }>('POST', '/v1/repricers/', {
    auth: [...auth] as [string, string],
    body: { product_code: code, preferred_price: 100, preferred_profit: 20 },
  });
  if (response.status !== 201) throw new Error(`Creating a repricer answered ${response.status}: ${response.text}`);
  return response.body.id;
};

/**
 * Seeds both clients with `products` products each (at most 3) and two offers per product.
 * Their repricers are created alternately, so (ids coming from one global counter) each of B's
 * ids sits between two of A's: the ids A would guess first.
 */
export const seedTwoTenants = async (api: TestApi, { products = 3 }: { products?: number } = {}): Promise<{ a: SeededTenant; b: SeededTenant }> => {
  const plans = {
    a: { ...PLANS.a, codes: PLANS.a.codes.slice(0, products) },
    b: { ...PLANS.b, codes: PLANS.b.codes.slice(0, products) },
  };
  const accounts = {
    a: await api.createClient(PLANS.a.username, { password: PLANS.a.password, sellerId: PLANS.a.sellerId, connector: 'amazon' }),
    b: await api.createClient(PLANS.b.username, { password: PLANS.b.password, sellerId: PLANS.b.sellerId, connector: 'amazon' }),
  };
  const offers = { a: await importCatalogue(api, plans.a), b: await importCatalogue(api, plans.b) };
  const auth = { a: [PLANS.a.username, PLANS.a.password] as const, b: [PLANS.b.username, PLANS.b.password] as const };
  const repricers = { a: [] as number[], b: [] as number[] };
  for (let i = 0; i < Math.min(2, products); i++) {
    repricers.a.push(await createRepricer(api, auth.a, plans.a.codes[i]!));
    repricers.b.push(await createRepricer(api, auth.b, plans.b.codes[i]!));
  }
  // The repricers' first decisions, and their listings, are recorded before a test looks at the table.
  await api.settle();
  const tenant = (key: 'a' | 'b', offerIds: number[]): SeededTenant => ({
    username: PLANS[key].username,
    auth: auth[key],
    clientId: accounts[key].clientId,
    sellerId: PLANS[key].sellerId,
    productCodes: plans[key].codes,
    marketplaceOfferIds: offers[key],
    offerIds,
    repricerIds: repricers[key],
  });
  return { a: tenant('a', await offerIdsOf(api, auth.a)), b: tenant('b', await offerIdsOf(api, auth.b)) };
};
