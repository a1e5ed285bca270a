/**
 * The market's state in memory: the products with their offers, lookups by the identifiers the
 * seller API accepts, the buy box of each product, and the tick that lets the bots move.
 */
import { actBot } from './bots.js';
import { decideBuyBox, type BuyBoxOutcome, type ListedOffer } from './buy-box.js';
import { ownInStock, TAKEALOT_RETAIL_SUFFIX, takealotRetailOffer, type OwnOffer, type Product } from './catalogue.js';

/** One offer of a seller account, with the product (the variant) it is on. */
export interface AccountSeat {
  product: Product;
  offer: OwnOffer;
}
import type { Prng } from './prng.js';

export type OwnOfferLookup = 'offer_id' | 'sku' | 'barcode';

export interface OwnSeller {
  seller_id: number;
  display_name: string;
}

export class Market {
  readonly products: readonly Product[];
  private readonly lookups: Record<OwnOfferLookup, Map<string, Product>>;
  /** Each product line's variants, its default variant (the one its page shows) first. */
  private readonly byPlid = new Map<number, Product[]>();
  private tickCount = 0;

  /** Per seller account after the first: its offers by each identifier the seller API accepts, and in offer_id order. */
  private readonly accountLookups: Array<{ byKey: Record<OwnOfferLookup, Map<string, AccountSeat>>; seats: AccountSeat[] }> = [];

  /**
   * @param botStreams per product (by tsin), the stream its bots draw from instead of the tick's:
   *   twins share a seed, so their bots draw the same moves (options.ts, `twins`).
   * @param accountSellers the sellers of the accounts after the first, by account index from 1 (options.ts, `sellers`).
   */
  constructor(
    products: Product[],
    private readonly ownSeller: OwnSeller,
    private readonly botStreams?: ReadonlyMap<number, Prng>,
    private readonly accountSellers: readonly OwnSeller[] = [],
  ) {
    // Offers are listed in offer_id order: the seller API's pages follow it.
    this.products = [...products].sort((a, b) => a.own.offer_id - b.own.offer_id);
    this.lookups = { offer_id: new Map(), sku: new Map(), barcode: new Map() };
    for (const product of this.products) {
      this.lookups.offer_id.set(String(product.own.offer_id), product);
      this.lookups.sku.set(product.own.sku, product);
      this.lookups.barcode.set(product.own.barcode, product);
      this.byPlid.set(product.plid, [...(this.byPlid.get(product.plid) ?? []), product]);
    }
    for (let account = 1; account <= accountSellers.length; account++) {
      const seats = this.products.flatMap((product) =>
        (product.accounts ?? []).filter((entry) => entry.account === account).map((entry) => ({ product, offer: entry.offer })),
      );
      const byKey: Record<OwnOfferLookup, Map<string, AccountSeat>> = { offer_id: new Map(), sku: new Map(), barcode: new Map() };
      for (const seat of seats) {
        byKey.offer_id.set(String(seat.offer.offer_id), seat);
        byKey.sku.set(seat.offer.sku, seat);
        byKey.barcode.set(seat.offer.barcode, seat);
      }
      this.accountLookups[account] = { byKey, seats };
    }
  }

  /** The seller accounts: 1 unless the `sellers` option names more. */
  get accountCount(): number {
    return this.accountSellers.length + 1;
  }

  /** The seller of an account (0: the first, the demo seller). */
  sellerOf(account: number): OwnSeller {
    return account === 0 ? this.ownSeller : this.accountSellers[account - 1]!;
  }

  /** An account's offers, in offer_id order (its seller API's pages follow it). */
  accountSeats(account: number): AccountSeat[] {
    if (account === 0) return this.products.map((product) => ({ product, offer: product.own }));
    return this.accountLookups[account]?.seats ?? [];
  }

  /** One of an account's offers by offer id, SKU or barcode: never another account's. */
  findSeat(account: number, by: OwnOfferLookup, value: string): AccountSeat | undefined {
    if (account === 0) {
      const product = this.lookups[by].get(value);
      return product === undefined ? undefined : { product, offer: product.own };
    }
    return this.accountLookups[account]?.byKey[by].get(value);
  }

  get ticks(): number {
    return this.tickCount;
  }

  ownOffers(): OwnOffer[] {
    return this.products.map((product) => product.own);
  }

  findOwn(by: OwnOfferLookup, value: string): Product | undefined {
    return this.lookups[by].get(value);
  }

  /** The product line's default variant: the one its page shows. */
  product(plid: number): Product | undefined {
    return this.byPlid.get(plid)?.[0];
  }

  /** Every variant of the product's line, the default one first. */
  lineOf(product: Product): readonly Product[] {
    return this.byPlid.get(product.plid) ?? [product];
  }

  /** The product's name in per-product logs: its plid, with its tsin on a line of several variants. */
  variantKey(product: Product): string {
    return this.lineOf(product).length > 1 ? `${product.plid}~${product.own.tsin_id}` : String(product.plid);
  }

  /** The offers a shopper sees on the product page now. */
  listedOffers(product: Product): ListedOffer[] {
    const listed: ListedOffer[] = [];
    const { own } = product;
    if (own.status === 'buyable') {
      listed.push({
        id: String(own.offer_id),
        sku: own.sku,
        price: own.selling_price,
        in_stock: ownInStock(own),
        leadtime_days: own.minimum_leadtime_days,
        listed_at: own.listed_at,
        seller: { ...this.ownSeller, rating_avg: 4.5, rating_count: 120, is_takealot: false },
      });
    }
    for (const { account, offer } of product.accounts ?? []) {
      if (offer.status !== 'buyable') continue;
      listed.push({
        id: String(offer.offer_id),
        sku: offer.sku,
        price: offer.selling_price,
        in_stock: ownInStock(offer),
        leadtime_days: offer.minimum_leadtime_days,
        listed_at: offer.listed_at,
        seller: { ...this.sellerOf(account), rating_avg: 4.5, rating_count: 120, is_takealot: false },
      });
    }
    for (const offer of product.competitors) {
      if (!offer.available) continue;
      listed.push({
        id: offer.key,
        sku: offer.sku,
        price: offer.price,
        in_stock: offer.in_stock,
        leadtime_days: offer.leadtime_days,
        listed_at: offer.listed_at,
        seller: offer.seller,
      });
    }
    return listed;
  }

  /** Adds Takealot's retail offer to every product that has none of Takealot's, or takes the added ones away again. */
  setTakealotRetail(on: boolean): void {
    for (const product of this.products) {
      const key = `${product.plid}-${TAKEALOT_RETAIL_SUFFIX}`;
      const added = product.competitors.findIndex((offer) => offer.key === key);
      if (on && added < 0 && !product.competitors.some((offer) => offer.seller.is_takealot)) product.competitors.push(takealotRetailOffer(product));
      if (!on && added >= 0) product.competitors.splice(added, 1);
    }
  }

  buyBox(product: Product): BuyBoxOutcome {
    return decideBuyBox(this.listedOffers(product), product.in_stock_premium_pct);
  }

  /** One step of the simulated clock: every bot acts once. Returns how many offers changed. */
  tick(prng: Prng): number {
    let changed = 0;
    for (const product of this.products) {
      for (const offer of product.competitors) {
        const otherPrices = this.listedOffers(product)
          .filter((listed) => listed.id !== offer.key)
          .map((listed) => listed.price);
        if (actBot(offer, { otherPrices, rrp: product.own.rrp }, this.botStreams?.get(product.own.tsin_id) ?? prng)) changed += 1;
      }
    }
    this.tickCount += 1;
    return changed;
  }

  /** Everything that defines the market now, as plain data (control API, determinism checks). */
  snapshot(): { ticks: number; products: Array<Product & { buy_box: { best_price: string | null; fastest_delivery: string | null } }> } {
    return {
      ticks: this.tickCount,
      products: this.products.map((product) => {
        const box = this.buyBox(product);
        return { ...structuredClone(product), buy_box: { best_price: box.bestPrice?.id ?? null, fastest_delivery: box.fastestDelivery?.id ?? null } };
      }),
    };
  }
}
