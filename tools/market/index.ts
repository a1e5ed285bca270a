/** The marketplace simulator: what tests, `npm start`, benchmarks and `npm run market` import. */
export { createMarketSimulator, type MarketSimulator } from './server.js';
export { Simulation } from './simulation.js';
export { ManualClock, systemClock, type Clock } from './clock.js';
export { resolveOptions, isLoopbackUrl, MarketOptionError, DEFAULT_OPTIONS, type MarketOptions, type MarketOptionsInput } from './options.js';
export { decideBuyBox, type ListedOffer, type BuyBoxOutcome } from './buy-box.js';
export { signWebhook } from './webhooks.js';
export type { FaultSettings } from './faults.js';
export { DEFAULT_SHAPES, REPORTED_SHAPES, type ShapeSettings } from './shapes.js';
export type { GlitchSettings, GlitchState } from './glitch.js';
