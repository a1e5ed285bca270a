/**
 * The demo's repricers on the marketplace (`npm start` with the simulator): which synced products
 * get one, and their floor and ceiling, chosen from the market as the simulator's control state
 * shows it (`GET /_control/state`). Pure: the start sequence fetches, this decides.
 */
import * as z from 'zod';

/** The connector type of the marketplace the demo client is connected to. */
export const DEMO_MARKET_CONNECTOR = 'takealot';
/** Enough to watch, few enough that every product's page is read every 2 minutes at the storefront's pace. */
export const DEMO_MARKET_REPRICER_COUNT = 20;
/**
 * The floor: this percentage of the own price, room for the bots' undercutting to be followed.
 * Sharp drops that follow rivals are the market to the circuit breaker, so the demo runs on; a
 * storefront glitch (one rival read at a fraction of its price, `POST /_control/glitch` on the
 * simulator) makes sharp drops the market does not explain, and the breaker pauses the demo.
 */
const FLOOR_PERCENT = 70;
/** The ceiling: this percentage of the own price, within the RRP (the marketplace refuses a price above it). */
const CEILING_PERCENT = 110;

/** A percentage of a whole amount, in integers (110 % of 100 is 110, not 110.00000000000001). */
const percentOf = (amount: number, percent: number, round: (x: number) => number): number => round((amount * percent) / 100);

/** What the control state says of each product (only what the choice reads; the rest is ignored). */
const controlState = z.object({
  products: z.array(
    z.object({
      own: z.object({ sku: z.string(), selling_price: z.number(), rrp: z.number(), status: z.string() }),
      competitors: z.array(z.object({ price: z.number(), available: z.boolean() })),
    }),
  ),
});
export type MarketControlState = z.infer<typeof controlState>;

/** The control state's products, or undefined when the body is not the simulator's (e.g. a marketplace without a control API). */
export const readControlState = (body: unknown): MarketControlState | undefined => {
  const parsed = controlState.safeParse(body);
  return parsed.success ? parsed.data : undefined;
};

export interface MarketRepricerRequest {
  readonly product_code: string;
  /** The ceiling. */
  readonly preferred_price: number;
  /** The ceiling less the floor: with no fees (a synced product has no fee estimates) the floor is `preferred_price - preferred_profit`. */
  readonly preferred_profit: number;
  readonly connector: typeof DEMO_MARKET_CONNECTOR;
  readonly enabled: true;
}

export interface DemoBounds {
  readonly floor: number;
  readonly ceiling: number;
}

/**
 * Floor below and ceiling at or above the current price, in whole rand (Takealot's price step):
 * the floor 30 % under the price (one step under it for the smallest prices), the ceiling
 * leaving room to rise when winning, up to the RRP. Undefined when there is no room below the
 * price (a price of 1 rand).
 */
export const demoBounds = (price: number, rrp: number): DemoBounds | undefined => {
  if (!Number.isInteger(price) || price < 2) return undefined;
  const floor = Math.max(1, Math.min(price - 1, percentOf(price, FLOOR_PERCENT, Math.ceil)));
  const ceiling = Math.max(price, Math.min(Math.floor(rrp), percentOf(price, CEILING_PERCENT, Math.ceil)));
  return { floor, ceiling };
};

/**
 * The repricers to create: on the first products (in the market's order) that the client's
 * offers already show (`syncedCodes`), buyable, with at least one competitor on the page.
 */
export const demoMarketRepricers = (
  state: MarketControlState,
  syncedCodes: ReadonlySet<string>,
  count: number = DEMO_MARKET_REPRICER_COUNT,
): MarketRepricerRequest[] => {
  const chosen: MarketRepricerRequest[] = [];
  for (const { own, competitors } of state.products) {
    if (chosen.length >= count) break;
    const prices = competitors.filter((c) => c.available).map((c) => c.price);
    if (own.status !== 'buyable' || prices.length === 0 || !syncedCodes.has(own.sku)) continue;
    const bounds = demoBounds(own.selling_price, own.rrp);
    if (!bounds) continue;
    chosen.push({
      product_code: own.sku,
      preferred_price: bounds.ceiling,
      preferred_profit: bounds.ceiling - bounds.floor,
      connector: DEMO_MARKET_CONNECTOR,
      enabled: true,
    });
  }
  return chosen;
};
