/**
 * The reported shapes (docs/takealot.md section 2, "not known, so read tolerantly"): what the
 * real marketplace may send where only third-party reports exist. Each form can be switched on
 * its own, at startup or at runtime (`POST /_control/shapes`), so a connector is tested against
 * every form, not only the one it was written with. The defaults are the simulator's first forms.
 */
import { MarketOptionError } from './option-error.js';

export interface ShapeSettings {
  /** A storefront seller's rating: `{ average, count }`, a bare number (the average), or absent. */
  rating: 'object' | 'number' | 'absent';
  /** A storefront entry's `sku`: the seller's own SKU text, a marketplace number, or absent. */
  storefrontSku: 'seller' | 'number' | 'absent';
  /**
   * `item`: each buy-box item carries its `seller`. `detail`: buy-box items carry none; the
   * selected one's seller is the page's top-level `seller_detail`, the other's is named by
   * `sponsored_ads_seller_id`.
   */
  buyboxSeller: 'item' | 'detail';
  /** Seller ids on the storefront as `M<id>` text instead of numbers. */
  sellerIdPrefix: boolean;
  /** Takealot's own retail offer on every product: `is_takealot: true` and no seller object. */
  takealotRetail: boolean;
  /** Probability that a storefront page is answered 200 with `{}` (a soft block or a glitch). */
  emptyPageRate: number;
  /** The buy box's `tsin` (the variant it shows): a number, text, or absent. */
  buyboxTsin: 'number' | 'string' | 'absent';
  /**
   * What the page of a product line of several variants (the `variants` option) shows: the
   * default variant's buy box, none until a variant is chosen, or, per line, one or the other
   * (`mixed`: a stable hash of the plid, so a line's page always does the same).
   */
  variantPage: 'default' | 'none' | 'mixed';
  /** `GET /offers/batch/{id}`: `v1` `results[{offer_id, sku, status, message}]`, `v2` `result[{offer, validation_errors}]`. */
  batchStatus: 'v1' | 'v2';
}

export const DEFAULT_SHAPES: ShapeSettings = {
  rating: 'object',
  storefrontSku: 'seller',
  buyboxSeller: 'item',
  sellerIdPrefix: false,
  takealotRetail: false,
  emptyPageRate: 0,
  buyboxTsin: 'number',
  variantPage: 'default',
  batchStatus: 'v1',
};

/** Every reported form at once (`--shapes reported`): what a connector must read besides the defaults. */
export const REPORTED_SHAPES: ShapeSettings = {
  rating: 'number',
  storefrontSku: 'number',
  buyboxSeller: 'detail',
  sellerIdPrefix: true,
  takealotRetail: true,
  emptyPageRate: 0.02,
  buyboxTsin: 'string',
  variantPage: 'mixed',
  batchStatus: 'v2',
};

export const SHAPE_PRESETS: Readonly<Record<string, ShapeSettings>> = { default: DEFAULT_SHAPES, reported: REPORTED_SHAPES };

/** The settings of a named preset; none when no name is given. */
export const shapePreset = (name: unknown): Partial<ShapeSettings> => {
  if (name === undefined) return {};
  const preset = typeof name === 'string' && Object.hasOwn(SHAPE_PRESETS, name) ? SHAPE_PRESETS[name] : undefined;
  if (preset === undefined) throw new MarketOptionError(`shapes preset must be one of ${Object.keys(SHAPE_PRESETS).join(', ')}, got ${JSON.stringify(name)}`);
  return { ...preset };
};

const oneOf = <T extends string>(name: string, value: unknown, allowed: readonly T[]): void => {
  if (!allowed.includes(value as T)) throw new MarketOptionError(`${name} must be one of ${allowed.join(', ')}, got ${String(value)}`);
};

/** Checks the shape settings alone: the control API applies them at runtime through this too. */
export const checkShapes = (shapes: ShapeSettings): ShapeSettings => {
  oneOf('rating', shapes.rating, ['object', 'number', 'absent']);
  oneOf('storefrontSku', shapes.storefrontSku, ['seller', 'number', 'absent']);
  oneOf('buyboxSeller', shapes.buyboxSeller, ['item', 'detail']);
  oneOf('batchStatus', shapes.batchStatus, ['v1', 'v2']);
  oneOf('buyboxTsin', shapes.buyboxTsin, ['number', 'string', 'absent']);
  oneOf('variantPage', shapes.variantPage, ['default', 'none', 'mixed']);
  if (typeof shapes.sellerIdPrefix !== 'boolean') throw new MarketOptionError('sellerIdPrefix must be true or false');
  if (typeof shapes.takealotRetail !== 'boolean') throw new MarketOptionError('takealotRetail must be true or false');
  if (typeof shapes.emptyPageRate !== 'number' || !Number.isFinite(shapes.emptyPageRate) || shapes.emptyPageRate < 0 || shapes.emptyPageRate > 1) {
    throw new MarketOptionError(`emptyPageRate must be a probability from 0 to 1, got ${String(shapes.emptyPageRate)}`);
  }
  const unknown = Object.keys(shapes).filter((key) => !(key in DEFAULT_SHAPES));
  if (unknown.length > 0) throw new MarketOptionError(`unknown shape setting ${unknown.join(', ')}`);
  return shapes;
};
