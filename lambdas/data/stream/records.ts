import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue as LambdaAttributeValue } from 'aws-lambda';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { connectionRecord, type Connection, type ConnectionStatus } from '../../domain/connections.js';
import { IMPORT_STATUSES, importJobRecord, type ImportJob, type ImportStatus } from '../../domain/import-jobs.js';
import type { PriceChange, PriceChangeStatus } from '../../domain/records.js';
import type { PriceWarDetectedData } from '../../domain/webhooks.js';
import type { OfferStateChange } from '../../domain/repricer-stats.js';
import { entityOfKey, type EntityName } from '../table/entities.js';
import { clientIdOfKey, offerIdOfSortKey } from '../table/keys.js';
import { storedMarketplaceEvent, type StoredMarketplaceEvent } from '../market/marketplace-events.js';
import { priceChangeCellsOfItem, storedPriceChange } from '../price-changes/list.js';
import { OFFER_LIST, storedOffer, type StoredOffer } from '../offers/list.js';
import { storedWarState } from '../price-changes/price-wars.js';
import type { OfferHint } from '../offers/maintenance.js';
import type { PriceChangeHint } from '../price-changes/maintenance.js';
import { nowIso } from '../../config/clock.js';

/**
 * A price change whose status moved (what PRICE_CHANGE_APPLIED and PRICE_CHANGE_FAILED
 * announce): the record as it is now, and the status it left.
 */
export interface PriceChangeStatusMove {
  readonly record: PriceChange;
  readonly previous: PriceChangeStatus;
}

/**
 * The client's own offer started or stopped winning the buy box (what BUYBOX_WON and
 * BUYBOX_LOST announce): the offer as it is now; `offer.fields.winning` says which.
 */
export interface BuyboxMove {
  readonly offer: StoredOffer;
}

/**
 * What one item change on the table's stream means for the event handlers: an offer, product
 * or price change whose lists may need work, a repricer slot whose product needs a repricing
 * decision, a rebuild request, an import job, a connection whose status moved, or a marketplace
 * event just received. Everything else (listings and nodes the maintainer writes itself,
 * decision states, clients) means nothing here: `CLASSIFIERS` says it kind by kind.
 */
export type StreamChange =
  | {
      readonly kind: 'offer';
      readonly clientId: string;
      readonly hint: OfferHint;
      readonly products: readonly string[];
      /** Only when an own offer was modified and its `winning` flipped; never for a new, moved or removed offer. */
      readonly buybox?: BuyboxMove;
      /** Only when an own offer appeared, left, or moved its buy-box slots or price: the state to record (stats). */
      readonly offerState?: OfferStateChange;
    }
  /** `watch`: the product's page watches may have moved (its product line id came, went or changed: read-planning/watch-products.ts). */
  | { readonly kind: 'product'; readonly clientId: string; readonly code: string; readonly watch: boolean }
  /** `watch`: the slot came, went, or its connector or `enabled` changed, so whether the product is repriced there may have. */
  | { readonly kind: 'slot'; readonly clientId: string; readonly code: string; readonly watch: boolean }
  /** A product's market view recorded (a read that changed it, a heartbeat, the read after a confirmed price): its repricers decide again. */
  | { readonly kind: 'market'; readonly clientId: string; readonly code: string }
  | {
      readonly kind: 'priceChange';
      readonly clientId: string;
      readonly hint: PriceChangeHint;
      /** The record, when this change created it (what webhooks announce); undefined for updates and expiries. */
      readonly created: PriceChange | undefined;
      /** Its connector, when it has just become `pending` (created so, applied, or a next step): the sender's work. */
      readonly queuedFor?: string;
      /** Only when a modify moved the record's status (never for a new record or an expiry). */
      readonly statusMove?: PriceChangeStatusMove;
    }
  | { readonly kind: 'rebuild'; readonly clientId: string; readonly requestId: string }
  /**
   * An import job changed: the statuses before (none for a new job) and after (none once it
   * expired), and the job's record once it ended (what IMPORT_COMPLETED announces).
   */
  | {
      readonly kind: 'import';
      readonly clientId: string;
      readonly id: number;
      readonly before?: ImportStatus;
      readonly after?: ImportStatus;
      readonly ended?: ImportJob;
    }
  /**
   * A connection's status moved (what CONNECTION_STATUS_CHANGED announces): the record as it is
   * now, and the status it had. A new connection, a delete, and a write that kept the status
   * (a sync's progress) are no change here.
   */
  | { readonly kind: 'connectionStatus'; readonly clientId: string; readonly record: Connection; readonly previous: ConnectionStatus }
  /** A connection's mode moved (the kill switch, or live again) or it was deleted: what its sender must look at now. */
  | { readonly kind: 'connectionSending'; readonly clientId: string; readonly connector: string }
  /** A repricer's price-war guard detected a war (what PRICE_WAR_DETECTED announces): its hold is new in this write. */
  | { readonly kind: 'priceWar'; readonly clientId: string; readonly detected: PriceWarDetectedData }
  /** A verified marketplace event, recorded just now (its repeats never are; its expiry is no news). */
  | { readonly kind: 'marketplaceEvent'; readonly clientId: string; readonly event: StoredMarketplaceEvent };

const importStatus = z.object({ id: z.int().positive(), status: z.enum(IMPORT_STATUSES) });

type Image = Record<string, LambdaAttributeValue> | undefined;

const plain = (image: Image): Record<string, unknown> | undefined => (image ? unmarshall(image as Record<string, AttributeValue>) : undefined);

/** A modify that moved a price change's status: both images are needed, so a new record or an expiry is none. */
const statusMoveOf = (oldImage: Image, newImage: Image): { statusMove?: PriceChangeStatusMove } => {
  if (!oldImage || !newImage) return {};
  const [before, after] = [oldImage, newImage].map((image) => storedPriceChange.safeParse(plain(image)).data?.record);
  if (!before || !after || before.status === after.status) return {};
  return { statusMove: { record: after, previous: before.status } };
};

/**
 * A modify of the client's own offer that flipped `winning`. A new offer that wins from the
 * start has no old image (it never lost), so it is none; so is a removal, and an offer that
 * moved product (a delete under the old product and a new item under the new one).
 */
const buyboxOf = (oldImage: Image, newImage: Image): { buybox?: BuyboxMove } => {
  if (!oldImage || !newImage) return {};
  const [before, after] = [oldImage, newImage].map((image) => storedOffer.safeParse(plain(image)).data);
  if (!before || !after || before.scope !== 'own' || after.scope !== 'own' || before.fields.winning === after.fields.winning) return {};
  return { buybox: { offer: after } };
};

/** A war state whose write started a hold (a new `since`): the war it detected; nothing for any other write. */
const priceWarOf = (clientId: string, oldImage: Image, newImage: Image): StreamChange | undefined => {
  const after = storedWarState.safeParse(plain(newImage)).data;
  const hold = after?.state.hold;
  if (!after || !hold) return undefined;
  const before = storedWarState.safeParse(plain(oldImage)).data?.state.hold;
  if (before?.since === hold.since) return undefined;
  return {
    kind: 'priceWar',
    clientId,
    detected: {
      repricer_id: after.repricerId,
      product_code: after.productCode,
      connector: after.connector,
      offer_id: after.offerId,
      rival_offer_id: hold.rivalOfferId,
      rival_seller_id: hold.rivalSellerId,
      undercuts: hold.undercuts,
      reason: 'price_war_hold',
      detected_at: new Date(hold.since).toISOString(),
      hold_until: new Date(hold.until).toISOString(),
    },
  };
};

/**
 * The state to record when an own offer appeared, left its product, or moved `winning`,
 * `winning_delivery` or its price: stamped with the offer's `updated_at` (when the service saw
 * it), or, for a removal, with the stream's time of the change (`removedAt`).
 */
const offerStateOf = (code: string, oldImage: Image, newImage: Image, removedAt: string): { offerState?: OfferStateChange } => {
  const [before, after] = [oldImage, newImage].map((image) => storedOffer.safeParse(plain(image)).data);
  const own = (offer: StoredOffer | undefined) => (offer?.scope === 'own' ? offer : undefined);
  const [was, is] = [own(before), own(after)];
  const stateOf = (offer: StoredOffer, present: boolean, at: string): OfferStateChange => ({
    productCode: code,
    offerId: offer.fields.offer_id,
    connector: offer.connector,
    at,
    present,
    winning: present && offer.fields.winning,
    winningDelivery: present && offer.fields.winning_delivery,
    price: offer.fields.offer_price,
  });
  if (is) {
    const moved =
      !was ||
      was.fields.winning !== is.fields.winning ||
      was.fields.winning_delivery !== is.fields.winning_delivery ||
      was.fields.offer_price !== is.fields.offer_price;
    return moved ? { offerState: stateOf(is, true, is.updated_at) } : {};
  }
  return was && !newImage ? { offerState: stateOf(was, false, removedAt) } : {};
};

/** Whether an item came, went, or changed any of `fields` (what a change must move to concern the page watches). */
const moved = (oldImage: Image, newImage: Image, fields: readonly string[]): boolean => {
  const [before, after] = [plain(oldImage), plain(newImage)];
  if (!before || !after) return true;
  return fields.some((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]));
};

interface StreamRecord {
  readonly clientId: string;
  /** The product code a key of a product-named partition names (decoded). */
  readonly code: string;
  readonly sk: string;
  readonly oldImage: Image;
  readonly newImage: Image;
  readonly changedAt: string;
}

type Classifier = (record: StreamRecord) => StreamChange | undefined;

const importChange: Classifier = ({ clientId, oldImage, newImage }) => {
  const [before, after] = [oldImage, newImage].map((image) => importStatus.safeParse(plain(image)?.record).data?.status);
  const id = importStatus.safeParse(plain(newImage)?.record ?? plain(oldImage)?.record).data?.id;
  if (id === undefined) return undefined;
  const ended = before !== after && (after === 'completed' || after === 'failed') ? importJobRecord.safeParse(plain(newImage)?.record).data : undefined;
  return { kind: 'import', clientId, id, ...(before ? { before } : {}), ...(after ? { after } : {}), ...(ended ? { ended } : {}) };
};

const connectionChange: Classifier = ({ clientId, oldImage, newImage }) => {
  const [before, after] = [oldImage, newImage].map((image) => connectionRecord.safeParse(plain(image)?.record).data);
  if (before && after && before.status !== after.status) return { kind: 'connectionStatus', clientId, record: after, previous: before.status };
  if (before && (!after || before.mode !== after.mode)) return { kind: 'connectionSending', clientId, connector: before.connector };
  return undefined;
};

const marketplaceEventChange: Classifier = ({ clientId, oldImage, newImage }) => {
  if (oldImage || !newImage) return undefined;
  const event = storedMarketplaceEvent.safeParse(plain(newImage));
  return event.success ? { kind: 'marketplaceEvent', clientId, event: event.data } : undefined;
};

const priceChangeChange: Classifier = ({ clientId, sk, oldImage, newImage }) => {
  const image = storedPriceChange.safeParse(plain(newImage) ?? plain(oldImage));
  if (!image.success) return undefined;
  const { record } = image.data;
  const created = newImage && !oldImage ? record : undefined;
  const before = oldImage ? storedPriceChange.safeParse(plain(oldImage)).data?.record.status : undefined;
  // Pending anew: created or moved so, or a capped move's step confirmed (its next step is due).
  const stepConfirmed = plain(newImage)?.confirmedPrice !== plain(oldImage)?.confirmedPrice;
  const queued = newImage !== undefined && record.status === 'pending' && (before !== 'pending' || stepConfirmed);
  return {
    kind: 'priceChange',
    clientId,
    ...statusMoveOf(oldImage, newImage),
    created,
    ...(queued ? { queuedFor: record.connector } : {}),
    hint: {
      productCode: record.product_code,
      sk,
      id: record.id,
      repricerId: record.repricer_id,
      cells: [...new Set([oldImage, newImage].flatMap((image) => priceChangeCellsOfItem(plain(image) ?? {})))],
    },
  };
};

const offerChange: Classifier = ({ clientId, code, sk, oldImage, newImage, changedAt }) => {
  const images = [oldImage, newImage].map(plain).flatMap((image) => {
    const parsed = storedOffer.safeParse(image);
    return parsed.success ? [parsed.data] : [];
  });
  return {
    kind: 'offer',
    clientId,
    ...buyboxOf(oldImage, newImage),
    ...offerStateOf(code, oldImage, newImage, changedAt),
    // The product the offer left needs a decision too, when it moved.
    products: [...new Set([code, ...images.map((offer) => offer.product_code)])],
    hint: {
      offerId: offerIdOfSortKey(sk),
      productCode: code,
      ...(images[0] ? { id: images[0].id } : {}),
      cells: [...new Set(images.map((offer) => OFFER_LIST.cellOf(offer)))],
    },
  };
};

/**
 * What a change of each kind of item (table/entities.ts) means; `null`: nothing. Every kind is
 * named, so a new kind of item is a decision here before it compiles.
 */
const CLASSIFIERS: Readonly<Record<EntityName, Classifier | null>> = {
  client: null,
  loginAttempts: null,
  counter: null,
  connectorType: null,
  product: ({ clientId, code, oldImage, newImage }) => ({ kind: 'product', clientId, code, watch: moved(oldImage, newImage, ['productLineId']) }),
  productWatch: null,
  offer: offerChange,
  offerLookup: null,
  repricer: null,
  repricerSlot: ({ clientId, code, oldImage, newImage }) => ({ kind: 'slot', clientId, code, watch: moved(oldImage, newImage, ['enabled', 'connector']) }),
  repricerDecision: null,
  productMarket: ({ clientId, code, newImage }) => (newImage ? { kind: 'market', clientId, code } : undefined),
  priceWar: ({ clientId, oldImage, newImage }) => priceWarOf(clientId, oldImage, newImage),
  priceChange: priceChangeChange,
  offerState: null,
  pushCount: null,
  breakerWindow: null,
  sentBatch: null,
  pushedBatch: null,
  offerListing: null,
  offerRankNode: null,
  repricerListing: null,
  repricerRankNode: null,
  priceChangeListing: null,
  priceChangeRankNode: null,
  productPriceChangeListing: null,
  productPriceChangeRankNode: null,
  rebuildRequest: ({ clientId, sk }) => ({ kind: 'rebuild', clientId, requestId: sk }),
  import: importChange,
  importBody: null,
  webhook: null,
  webhookCount: null,
  webhookDelivery: null,
  connection: connectionChange,
  connectionUid: null,
  marketplaceEvent: marketplaceEventChange,
  pushStop: null,
  pageWatch: null,
  readBudget: null,
  hostHold: null,
  idempotencyRecord: null,
};

/** The product code of a key in a partition named after a product (`T#<c>#<kind>#<code>`), decoded. */
const codeOfKey = (pk: string): string => {
  const code = pk.split('#')[3];
  return code === undefined ? '' : decodeURIComponent(code);
};

export const streamChangeOf = (
  keys: Image,
  oldImage: Image,
  newImage: Image,
  /** The stream's time of the change (ISO); the time of reading it when the record carries none. */
  changedAt: string = nowIso(),
): StreamChange | undefined => {
  const key = plain(keys);
  const pk = typeof key?.pk === 'string' ? key.pk : undefined;
  const sk = typeof key?.sk === 'string' ? key.sk : undefined;
  if (!pk || !sk) return undefined;
  const clientId = clientIdOfKey(pk);
  const entity = entityOfKey(pk, sk);
  if (!clientId || !entity) return undefined;
  return CLASSIFIERS[entity]?.({ clientId, code: codeOfKey(pk), sk, oldImage, newImage, changedAt });
};
