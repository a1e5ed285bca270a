/**
 * The simulator without HTTP: the market, the clock, the PRNG streams and everything a request
 * can change (own offers, batches, the price log, the key, the faults, the shapes, a glitch).
 * Routes call into it; tests can drive it directly.
 */
import { ApiKeyring, generateSecret, type KeyCheck } from './api-key.js';
import { BatchStore, type Batch, type BatchEntryCheck, type BatchEntryResult } from './batches.js';
import { accountOffers, generateCatalogue, staticSellerOffer, twinProducts, variantLines, type OwnOffer } from './catalogue.js';
import { systemClock, ManualClock, type Clock } from './clock.js';
import { checkFaults, resolveOptions, type MarketOptions, type MarketOptionsInput } from './options.js';
import type { FaultSettings } from './faults.js';
import { StorefrontGlitch } from './glitch.js';
import { checkShapes, type ShapeSettings } from './shapes.js';
import { pageVariant, productDetails } from './storefront-route.js';
import { Market, type AccountSeat, type OwnOfferLookup, type OwnSeller } from './market.js';
import { applyOfferUpdate, checkOfferUpdate, type UpdateCheck, type ValuesChanged } from './offer-updates.js';
import { PriceLog } from './price-log.js';
import { SlotLog } from './slot-log.js';
import { createPrng, type Prng } from './prng.js';
import { TrafficLog } from './traffic.js';
import { WebhookSender } from './webhooks.js';
import type { Product } from './catalogue.js';

/** Ticks one control call may run: a bounded loop whatever the caller asks. */
export const MAX_TICKS_PER_CALL = 1_000;

/** One seller account: its seller, its key (one active at a time, as on Takealot) and the key it started with. */
export interface SellerAccount {
  readonly index: number;
  readonly sellerId: string;
  readonly displayName: string;
  readonly keys: ApiKeyring;
  readonly initialApiKey: string;
}

export interface OwnUpdateContext {
  via: 'patch' | 'batch';
  requestId?: string;
  batchId?: number;
}

export class Simulation {
  readonly options: MarketOptions;
  readonly clock: Clock;
  readonly market: Market;
  readonly priceLog = new PriceLog();
  /** Who held each buy-box slot, from when (slot-log.ts). */
  readonly slotLog = new SlotLog();
  readonly batches = new BatchStore();
  /** Politeness counters, requests by route and the storefront read log (traffic.ts). */
  readonly traffic = new TrafficLog();
  /** The first account's key (the demo seller's). */
  readonly keys: ApiKeyring;
  /** Every seller account, the demo seller first (options.ts, `sellers`). */
  readonly accounts: readonly SellerAccount[];
  readonly webhooks: WebhookSender;
  readonly initialApiKey: string;
  readonly webhookSecret: string;
  /** Independent streams forked from the seed's root (see prng.ts). */
  readonly streams: { bots: Prng; faults: Prng; storefront: Prng; pages: Prng };
  /** A wrong price on the storefront's pages, on request (glitch.ts). */
  readonly glitch: StorefrontGlitch;
  private faultSettings: FaultSettings;
  private shapeSettings: ShapeSettings;
  private emptyPages = 0;

  constructor(input: MarketOptionsInput = {}) {
    this.options = resolveOptions(input);
    this.clock = this.options.clock ?? systemClock;
    const root = createPrng(this.options.seed);
    const catalogue = root.fork();
    const [bots, faults, storefront, webhookIds] = [root.fork(), root.fork(), root.fork(), root.fork()];
    // Forked last: the streams before it, and so a seed's market, are what they were without it.
    this.streams = { bots, faults, storefront, pages: root.fork() };
    const { twins } = this.options;
    const families = Math.ceil(this.options.products / twins);
    const generated = generateCatalogue(catalogue, { products: families, competitors: this.options.competitors, epoch: Date.UTC(2026, 0, 1) });
    const copies = twins === 1 ? generated : twinProducts(generated, twins, this.options.products);
    if (this.options.staticSeller) for (const product of copies) product.competitors.push(staticSellerOffer(product));
    const products = this.options.variants === 1 ? copies : variantLines(copies, this.options.variants);
    // Forked after every other stream: with one seller the market is the seed's as it always was.
    accountOffers(products, this.options.sellers, this.options.sellersPerProduct, root.fork());
    const accountSellers: OwnSeller[] = Array.from({ length: this.options.sellers - 1 }, (_, n) => ({
      seller_id: Number(this.options.sellerId) + n + 1,
      display_name: `${this.options.sellerName} ${n + 2}`,
    }));
    // Twins' bots each draw from their family's seed; without twins, every bot draws from the one bots stream.
    const familySeeds = twins === 1 ? [] : generated.map(() => bots.int(0, 2 ** 32 - 1));
    const botStreams =
      twins === 1 ? undefined : new Map(products.map((product, index) => [product.own.tsin_id, createPrng(familySeeds[Math.floor(index / twins)]!)]));
    this.market = new Market(products, { seller_id: Number(this.options.sellerId), display_name: this.options.sellerName }, botStreams, accountSellers);
    this.faultSettings = { ...this.options.faults };
    this.shapeSettings = { ...this.options.shapes };
    if (this.shapeSettings.takealotRetail) this.market.setTakealotRetail(true);
    this.slotLog.observe(this.market, this.clock.now());
    this.glitch = new StorefrontGlitch(this.options.seed);
    this.initialApiKey = this.options.apiKey ?? generateSecret();
    this.keys = new ApiKeyring(this.initialApiKey);
    this.accounts = [
      { index: 0, sellerId: this.options.sellerId, displayName: this.options.sellerName, keys: this.keys, initialApiKey: this.initialApiKey },
      ...accountSellers.map((seller, n) => {
        const key = generateSecret();
        return { index: n + 1, sellerId: String(seller.seller_id), displayName: seller.display_name, keys: new ApiKeyring(key), initialApiKey: key };
      }),
    ];
    this.webhookSecret = this.options.webhook.secret ?? generateSecret();
    this.webhooks = new WebhookSender({ ...this.options.webhook, secret: this.webhookSecret }, () => this.faultSettings, webhookIds);
  }

  get faults(): FaultSettings {
    return { ...this.faultSettings };
  }

  /** Merges and checks new fault settings; a bad value changes nothing. */
  setFaults(changes: Partial<FaultSettings>): FaultSettings {
    this.faultSettings = checkFaults({ ...this.faultSettings, ...changes });
    return this.faults;
  }

  get shapes(): ShapeSettings {
    return { ...this.shapeSettings };
  }

  /** Merges and checks new shape settings; a bad value changes nothing. Takealot's retail offers join or leave the market with the switch. */
  setShapes(changes: Partial<ShapeSettings>): ShapeSettings {
    this.shapeSettings = checkShapes({ ...this.shapeSettings, ...changes });
    this.market.setTakealotRetail(this.shapeSettings.takealotRetail);
    this.slotLog.observe(this.market, this.clock.now());
    return this.shapes;
  }

  /** Storefront pages answered `{}` (the `emptyPageRate` shape). */
  get emptyPageCount(): number {
    return this.emptyPages;
  }

  /**
   * The body of one storefront page answered 200: `{}` at the `emptyPageRate` (drawn from its
   * own stream), else the product's page in the current shapes, a glitch's wrong price included.
   * `shown`: the page showed the product (an empty one is not a read of it).
   */
  storefrontPage(product: Product): { body: Record<string, unknown>; shown: boolean } {
    if (this.streams.pages.chance(this.shapeSettings.emptyPageRate)) {
      this.emptyPages += 1;
      return { body: {}, shown: false };
    }
    // The page is its line's: a glitch touches the variant it shows.
    const shown = pageVariant(this.market, product, this.shapeSettings);
    const wrongPrice = shown === undefined ? undefined : this.glitch.wrongPriceOn(shown, this.market.listedOffers(shown));
    const body = productDetails(this.market, product, { shapes: this.shapeSettings, wrongPrice });
    this.glitch.pageRead(wrongPrice !== undefined);
    return { body, shown: true };
  }

  /** Points the webhooks at a loopback URL, or turns them off; anything else throws MarketOptionError. */
  setWebhookUrl(url: string | undefined): void {
    this.webhooks.setUrl(url);
  }

  findOwn(by: OwnOfferLookup, value: string): Product | undefined {
    return this.market.findOwn(by, value);
  }

  /**
   * Whose key was presented: the account whose active key it is, else what the first check that
   * is not `invalid` says (a revoked key of any account is `revoked`).
   */
  accountFor(presented: string | undefined): { check: KeyCheck; account?: number } {
    let found: KeyCheck = presented === undefined || presented === '' ? 'missing' : 'invalid';
    for (const account of this.accounts) {
      const check = account.keys.check(presented);
      if (check === 'ok') return { check, account: account.index };
      if (check === 'revoked') found = 'revoked';
    }
    return { check: found };
  }

  /** One of the account's offers by offer id, SKU or barcode; never another account's. */
  findSeat(account: number, by: OwnOfferLookup, value: string): AccountSeat | undefined {
    return this.market.findSeat(account, by, value);
  }

  /**
   * Checks and applies a change to an account's offer (the first account's own offer unless
   * named): counts the price, sends Offer Updated when something changed.
   */
  updateOwnOffer(
    product: Product,
    request: Record<string, unknown>,
    context: OwnUpdateContext,
    offer: OwnOffer = product.own,
    account = 0,
  ): UpdateCheck & { valuesChanged?: ValuesChanged } {
    const check = checkOfferUpdate(offer, request);
    if (!check.ok) return check;
    const previousPrice = offer.selling_price;
    const valuesChanged = applyOfferUpdate(offer, check.changes);
    this.slotLog.observe(this.market, this.clock.now(), [product]);
    if (check.changes.selling_price !== undefined) {
      this.priceLog.record(offer.offer_id, {
        selling_price: check.changes.selling_price,
        previous_price: previousPrice,
        at: this.clock.now(),
        via: context.via,
        ...(context.requestId === undefined ? {} : { request_id: context.requestId }),
        ...(context.batchId === undefined ? {} : { batch_id: context.batchId }),
      });
    }
    if (Object.keys(valuesChanged).length > 0) {
      this.webhooks.send('Offer Updated', {
        seller_id: this.accounts[account]?.sellerId ?? this.options.sellerId,
        offer_id: offer.offer_id,
        values_changed: valuesChanged,
        ...(context.batchId === undefined ? {} : { batch_id: context.batchId }),
      });
    }
    return { ...check, valuesChanged };
  }

  submitBatch(entries: Record<string, unknown>[], requestId: string | undefined, account = 0): Batch {
    return this.batches.submit(entries, this.clock.now(), this.options.batchDelayMs, requestId, account);
  }

  /** Settles every batch whose delay has passed; called on a timer, on reads and on ticks. */
  settleDueBatches(): Batch[] {
    const due = this.batches.due(this.clock.now());
    for (const batch of due) this.settle(batch);
    return due;
  }

  /** Runs `count` bot ticks (bounded); a manual clock moves one tick interval per tick. */
  tick(count = 1): { ticks: number; changed: number } {
    const runs = Math.max(0, Math.min(MAX_TICKS_PER_CALL, Math.floor(count)));
    let changed = 0;
    for (let i = 0; i < runs; i++) {
      if (this.clock instanceof ManualClock) this.clock.advance(this.options.tickIntervalMs);
      changed += this.market.tick(this.streams.bots);
      this.slotLog.observe(this.market, this.clock.now());
      this.settleDueBatches();
    }
    return { ticks: this.market.ticks, changed };
  }

  private settle(batch: Batch): void {
    const seen = new Set<number>();
    const checks: BatchEntryCheck[] = [];
    const results: BatchEntryResult[] = batch.entries.map((entry) => {
      const seat = this.entrySeat(batch.account, entry);
      if (seat === undefined) {
        checks.push({ selling_price: null, validation_errors: [{ message: 'offer not found', code: 'offer_not_found' }] });
        return {
          offer_id: typeof entry.offer_id === 'number' ? entry.offer_id : null,
          sku: typeof entry.sku === 'string' ? entry.sku : null,
          status: 'FAILURE',
          message: 'offer not found',
        };
      }
      const { product, offer } = seat;
      const ids = { offer_id: offer.offer_id, sku: offer.sku };
      if (seen.has(offer.offer_id)) this.priceLog.noteDuplicateInBatch();
      seen.add(offer.offer_id);
      const context = { via: 'batch' as const, batchId: batch.batch_id, ...(batch.request_id === undefined ? {} : { requestId: batch.request_id }) };
      const outcome = this.updateOwnOffer(product, entry, context, offer, batch.account);
      checks.push({ selling_price: offer.selling_price, validation_errors: outcome.ok ? [] : outcome.errors });
      return outcome.ok ? { ...ids, status: 'SUCCESS' } : { ...ids, status: 'FAILURE', message: outcome.errors.map((error) => error.message).join('; ') };
    });
    batch.results = results;
    batch.checks = checks;
    batch.status = results.every((result) => result.status === 'SUCCESS') ? 'SUCCESS' : 'FAILURE';
    batch.completed_at = this.clock.now();
    const sellerId = this.accounts[batch.account]?.sellerId ?? this.options.sellerId;
    this.webhooks.send('Batch Completed', { seller_id: sellerId, batch_id: batch.batch_id, status: batch.status });
  }

  /** A batch entry names one of its account's offers by offer_id, sku or barcode (the first one given). */
  private entrySeat(account: number, entry: Record<string, unknown>): AccountSeat | undefined {
    if (typeof entry.offer_id === 'number' || typeof entry.offer_id === 'string') return this.market.findSeat(account, 'offer_id', String(entry.offer_id));
    if (typeof entry.sku === 'string') return this.market.findSeat(account, 'sku', entry.sku);
    if (typeof entry.barcode === 'string') return this.market.findSeat(account, 'barcode', entry.barcode);
    return undefined;
  }
}
