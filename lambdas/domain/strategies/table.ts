import type { BuyboxApproach } from '../approaches.js';
import { buybox } from './buybox.js';
import { cheapest } from './cheapest.js';
import { fastestDelivery } from './fastest-delivery.js';
import { match } from './match.js';
import type { Strategy } from './strategy.js';

/** One strategy per `buybox_approach`: the type requires an entry for every value of BUYBOX_APPROACHES. */
export const STRATEGIES: { readonly [Approach in BuyboxApproach]: Strategy } = {
  cheapest,
  match,
  buybox,
  fastest_delivery: fastestDelivery,
};

export const strategyOf = (approach: BuyboxApproach): Strategy => STRATEGIES[approach];
