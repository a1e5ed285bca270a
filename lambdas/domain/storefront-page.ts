/**
 * What a storefront page shows, as the service reads it: the offers on a product's page and
 * its buy box. The marketplace adapters produce it (lambdas/marketplace/port.ts names it in the
 * port); the domain reasons over it, so it is declared here, below both.
 */

/**
 * The seller id of the marketplace's own retail offers, which name no seller (Takealot's
 * `is_takealot` items): real rivals with a price, told apart from every seller's numeric id.
 */
export const MARKETPLACE_ITSELF_SELLER_ID = 'marketplace';

/** One offer on a product's storefront page, the seller's own included. */
export interface MarketOffer {
  /**
   * One seller, one id, however the marketplace spelled it: decimal text for a numeric id
   * (Takealot's `M12345` and `12345` are both `12345`); MARKETPLACE_ITSELF_SELLER_ID for the
   * marketplace's own retail offers.
   */
  readonly sellerId: string;
  readonly sellerName: string;
  readonly sku?: string;
  readonly price: number;
  readonly inStock: boolean;
  readonly leadtimeDays?: number;
  readonly ratingAvg?: number;
  readonly ratingCount?: number;
  readonly isMarketplaceItself: boolean;
  /** Holds the Best Price slot of the buy box. */
  readonly bestPrice: boolean;
  /** Holds the Fastest Delivery slot of the buy box. */
  readonly fastestDelivery: boolean;
}

/** A product's storefront page at one moment. */
export interface ProductMarket {
  readonly productLineId: string;
  readonly offers: readonly MarketOffer[];
  readonly url?: string;
  /**
   * True only when at least one buy-box item of the page was read. An empty answer, a page
   * without a buy box, or one whose buy-box items could all not be read is false: such a page
   * says nothing about who competes, so its `offers` are no evidence that there is no rival.
   */
  readonly buyBoxShown: boolean;
  /** Entries of the page (buy box or other offers) left out: no seller id, no positive price, or not an object. */
  readonly skipped: number;
  /**
   * The variant whose buy box and offers the page shows (Takealot's `buybox.tsin`). Absent when
   * the page names none, and always on a page of several variants that shows no buy box: such a
   * page has shown no variant at all.
   */
  readonly variantId?: string;
  /**
   * The page offers a choice of variants (Takealot's `variants.selectors`): its offers are those
   * of `variantId` alone, and an own offer of another variant has not been seen. Absent: one variant.
   */
  readonly multiVariant?: boolean;
}
