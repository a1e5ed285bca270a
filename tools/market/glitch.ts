/**
 * A storefront glitch on request (`POST /_control/glitch`): for the next `reads` pages answered,
 * on `share` of the products, the page shows ONE competitor's price at `fraction` of what it
 * is. Only the page is wrong, as a real glitch's would be: the offers, the buy-box rule and the
 * seller API keep the market as it is. Which products and which competitor are fixed by the
 * seed and the product (never by the order of requests), and no PRNG stream is drawn from.
 */
import type { ListedOffer } from './buy-box.js';
import type { Product } from './catalogue.js';
import { MarketOptionError } from './option-error.js';
import { createPrng } from './prng.js';
import type { WrongPrice } from './storefront-route.js';

export interface GlitchSettings {
  /** The shown price as a share of the real one (0.3: 30 %), rounded to whole rand, at least R1. */
  fraction: number;
  /** Share of the products whose pages show the wrong price (0-1). */
  share: number;
  /** Pages answered (any product) before the glitch ends by itself. */
  reads: number;
}

export const DEFAULT_GLITCH = { share: 1, reads: 100 } as const;
const MAX_FRACTION = 10;
const MAX_READS = 1_000_000;

/** A glitch request from the control API, defaults filled in; throws MarketOptionError on a bad value. */
export const checkGlitch = (input: Record<string, unknown>): GlitchSettings => {
  const { fraction, share = DEFAULT_GLITCH.share, reads = DEFAULT_GLITCH.reads } = input;
  if (typeof fraction !== 'number' || !Number.isFinite(fraction) || fraction <= 0 || fraction > MAX_FRACTION)
    throw new MarketOptionError(`fraction must be a number above 0 and at most ${MAX_FRACTION}, got ${String(fraction)}`);
  if (typeof share !== 'number' || !Number.isFinite(share) || share < 0 || share > 1)
    throw new MarketOptionError(`share must be from 0 to 1, got ${String(share)}`);
  if (typeof reads !== 'number' || !Number.isInteger(reads) || reads < 1 || reads > MAX_READS)
    throw new MarketOptionError(`reads must be a whole number from 1 to ${MAX_READS}, got ${String(reads)}`);
  return { fraction, share, reads };
};

export interface GlitchState {
  active: boolean;
  fraction: number | null;
  share: number | null;
  reads_left: number;
  /** Pages shown with a wrong price, by every glitch so far. */
  glitched_pages: number;
}

export class StorefrontGlitch {
  private current: { settings: GlitchSettings; readsLeft: number } | undefined;
  private glitchedPages = 0;

  constructor(private readonly seed: number) {}

  start(settings: GlitchSettings): GlitchState {
    this.current = { settings, readsLeft: settings.reads };
    return this.describe();
  }

  clear(): GlitchState {
    this.current = undefined;
    return this.describe();
  }

  /** The competitor offer this product's page shows at a wrong price now, if the glitch touches the product. */
  wrongPriceOn(product: Product, listed: readonly ListedOffer[]): WrongPrice | undefined {
    if (this.current === undefined) return undefined;
    const { fraction, share } = this.current.settings;
    const draw = createPrng((Math.imul(this.seed | 0, 0x9e3779b1) ^ Math.imul(product.plid, 0x85ebca6b)) >>> 0);
    if (!(draw.next() < share)) return undefined;
    // No seller account's offer is shown wrong: each is some client's own.
    const own = new Set([product.own, ...(product.accounts ?? []).map((entry) => entry.offer)].map((offer) => String(offer.offer_id)));
    const rivals = listed.filter((offer) => !own.has(offer.id));
    if (rivals.length === 0) return undefined;
    const rival = draw.pick(rivals);
    return { offerId: rival.id, price: Math.max(1, Math.round(rival.price * fraction)) };
  }

  /** A page was answered: counts it against the glitch, which ends after its last read. */
  pageRead(showedWrongPrice: boolean): void {
    if (this.current === undefined) return;
    if (showedWrongPrice) this.glitchedPages += 1;
    this.current.readsLeft -= 1;
    if (this.current.readsLeft <= 0) this.current = undefined;
  }

  describe(): GlitchState {
    const settings = this.current?.settings;
    return {
      active: this.current !== undefined,
      fraction: settings?.fraction ?? null,
      share: settings?.share ?? null,
      reads_left: this.current?.readsLeft ?? 0,
      glitched_pages: this.glitchedPages,
    };
  }
}
