/** A setting the simulator refuses (at startup, or from the control API as a 400). Its own module: every settings check throws it. */
export class MarketOptionError extends Error {
  override name = 'MarketOptionError';
}
