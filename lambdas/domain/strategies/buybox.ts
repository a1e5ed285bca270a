import { stepAgainst, type Strategy } from './strategy.js';

/**
 * `buybox`: the Best Price slot as Takealot awards it. Rivals of the own offer's stock mode (and
 * those whose mode is unknown) are undercut by a step; against the cheapest rival of the other
 * mode the in-stock premium counts. An in-stock own offer counts on the premium's low end (it
 * stays dearer than a cheaper leadtime rival by no more than surely allowed), a leadtime own
 * offer on its high end (it gets under an in-stock rival by all the premium could be). The own
 * offer's mode unknown: no premium, as `cheapest`.
 */
export const buybox: Strategy = {
  approach: 'buybox',
  steps: ({ rivals, ownStock, stepCents, premium }) => {
    if (ownStock === null) return rivals[0] ? stepAgainst('undercut', rivals[0], null, stepCents) : [];
    const other = ownStock === 'in_stock' ? 'lead_time' : 'in_stock';
    const alike = rivals.find((rival) => rival.stock_status !== other);
    const across = rivals.find((rival) => rival.stock_status === other);
    const percent = ownStock === 'in_stock' ? premium.low_percent : premium.high_percent;
    return [...(alike ? stepAgainst('undercut', alike, null, stepCents) : []), ...(across ? stepAgainst('in_stock_premium', across, percent, stepCents) : [])];
  },
};
