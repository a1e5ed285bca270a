import { stepAgainst, type Strategy } from './strategy.js';

/** `cheapest`: one step under the lowest rival, whatever its stock (the seed's rule, unchanged). */
export const cheapest: Strategy = {
  approach: 'cheapest',
  steps: ({ rivals, stepCents }) => (rivals[0] ? stepAgainst('undercut', rivals[0], null, stepCents) : []),
};
