import { stepAgainst, type Strategy } from './strategy.js';

/**
 * `match`: the lowest rival's price (rounded down to the grid). A tie for Best Price goes to the
 * older listing, so this holds the slot only against newer offers; it gives up no margin to win.
 */
export const match: Strategy = {
  approach: 'match',
  steps: ({ rivals, stepCents }) => (rivals[0] ? stepAgainst('match', rivals[0], null, stepCents) : []),
};
