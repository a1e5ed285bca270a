import { stepAgainst, type Strategy } from './strategy.js';

/**
 * `fastest_delivery`: the Fastest Delivery slot, which goes to the cheapest in-stock offer
 * (tools/market/buy-box.ts, market-snapshot.ts): one step under the cheapest in-stock rival,
 * leadtime rivals ignored (a rival whose mode is unknown counts as in stock). No in-stock rival:
 * alone, the ceiling. A leadtime own offer cannot take the slot from an in-stock one by price; it
 * is priced the same, so it holds the slot once its stock arrives.
 */
export const fastestDelivery: Strategy = {
  approach: 'fastest_delivery',
  steps: ({ rivals, stepCents }) => {
    const inStock = rivals.find((rival) => rival.stock_status !== 'lead_time');
    return inStock ? stepAgainst('undercut', inStock, null, stepCents) : [];
  },
};
