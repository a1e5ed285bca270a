import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue as LambdaAttributeValue } from 'aws-lambda';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { connectionRecord, type Connection, type ConnectionStatus } from '../domain/connections.js';
import { IMPORT_STATUSES, importJobRecord, type ImportJob, type ImportStatus } from '../domain/import-jobs.js';
import type { PriceChange } from '../domain/records.js';
import { clientIdOfKey, offerIdOfSortKey, OFFER_SK_PREFIX, SLOT_SK_PREFIX } from './keys.js';
import { storedMarketplaceEvent, type StoredMarketplaceEvent } from './marketplace-events.js';
import { priceChangeCellsOfItem, storedPriceChange } from './price-change-list.js';
import { OFFER_LIST, storedOffer } from './offer-list.js';
import type { OfferHint } from './offer-maintenance.js';

/**
 * What one item change on the table's stream means for the event handlers: an offer, product
 * or price change whose lists may need work, a repricer slot whose product needs a repricing
 * decision, a rebuild request, an import job, a connection whose status moved, or a marketplace
 * event just received. Everything else (listings and nodes the maintainer writes itself,
 * decision states, clients) means nothing here.
 */
export interface PriceChangeHint {
  readonly productCode: string;
  readonly sk: string;
  readonly id: number;
  readonly repricerId: number;
  /** The tenant-list cells the item was in before this change and is in after it (its status may have moved). */
  readonly cells: readonly string[];
}

export type StreamChange =
  | { readonly kind: 'offer'; readonly clientId: string; readonly hint: OfferHint; readonly products: readonly string[] }
  | { readonly kind: 'product'; readonly clientId: string; readonly code: string }
  | { readonly kind: 'slot'; readonly clientId: string; readonly code: string }
  | {
      readonly kind: 'priceChange';
      readonly clientId: string;
      readonly hint: PriceChangeHint;
      /** The record, when this change created it (what webhooks announce); undefined for updates and expiries. */
      readonly created: PriceChange | undefined;
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
  /** A verified marketplace event, recorded just now (its repeats never are; its expiry is no news). */
  | { readonly kind: 'marketplaceEvent'; readonly clientId: string; readonly event: StoredMarketplaceEvent };

const importStatus = z.object({ id: z.int().positive(), status: z.enum(IMPORT_STATUSES) });

type Image = Record<string, LambdaAttributeValue> | undefined;

const plain = (image: Image): Record<string, unknown> | undefined => (image ? unmarshall(image as Record<string, AttributeValue>) : undefined);

export const streamChangeOf = (keys: Image, oldImage: Image, newImage: Image): StreamChange | undefined => {
  const key = plain(keys);
  const pk = typeof key?.pk === 'string' ? key.pk : undefined;
  const sk = typeof key?.sk === 'string' ? key.sk : undefined;
  if (!pk || !sk) return undefined;
  const clientId = clientIdOfKey(pk);
  if (!clientId) return undefined;
  const [, , kind, code] = pk.split('#');
  if (kind === 'REBUILD') return { kind: 'rebuild', clientId, requestId: sk };
  if (kind === 'IMP' && code === undefined) {
    const [before, after] = [oldImage, newImage].map((image) => importStatus.safeParse(plain(image)?.record).data?.status);
    const id = importStatus.safeParse(plain(newImage)?.record ?? plain(oldImage)?.record).data?.id;
    if (id === undefined) return undefined;
    const ended = before !== after && (after === 'completed' || after === 'failed') ? importJobRecord.safeParse(plain(newImage)?.record).data : undefined;
    return { kind: 'import', clientId, id, ...(before ? { before } : {}), ...(after ? { after } : {}), ...(ended ? { ended } : {}) };
  }
  if (kind === 'CONN' && code === undefined) {
    if (!oldImage || !newImage) return undefined;
    const [before, after] = [oldImage, newImage].map((image) => connectionRecord.safeParse(plain(image)?.record).data);
    if (!before || !after || before.status === after.status) return undefined;
    return { kind: 'connectionStatus', clientId, record: after, previous: before.status };
  }
  if (kind === 'MEVT' && code !== undefined) {
    if (oldImage || !newImage) return undefined;
    const event = storedMarketplaceEvent.safeParse(plain(newImage));
    return event.success ? { kind: 'marketplaceEvent', clientId, event: event.data } : undefined;
  }
  if (kind === 'PC' && code !== undefined) {
    const image = storedPriceChange.safeParse(plain(newImage) ?? plain(oldImage));
    if (!image.success) return undefined;
    const { record } = image.data;
    const created = newImage && !oldImage ? record : undefined;
    return {
      kind: 'priceChange',
      clientId,
      created,
      hint: {
        productCode: record.product_code,
        sk,
        id: record.id,
        repricerId: record.repricer_id,
        cells: [...new Set([oldImage, newImage].flatMap((image) => priceChangeCellsOfItem(plain(image) ?? {})))],
      },
    };
  }
  if (kind !== 'P' || code === undefined) return undefined;
  if (sk === 'PRODUCT') return { kind: 'product', clientId, code: decodeURIComponent(code) };
  if (sk.startsWith(SLOT_SK_PREFIX)) return { kind: 'slot', clientId, code: decodeURIComponent(code) };
  if (!sk.startsWith(OFFER_SK_PREFIX)) return undefined;
  const images = [oldImage, newImage].map(plain).flatMap((image) => {
    const parsed = storedOffer.safeParse(image);
    return parsed.success ? [parsed.data] : [];
  });
  return {
    kind: 'offer',
    clientId,
    // The product the offer left needs a decision too, when it moved.
    products: [...new Set([decodeURIComponent(code), ...images.map((offer) => offer.product_code)])],
    hint: {
      offerId: offerIdOfSortKey(sk),
      productCode: decodeURIComponent(code),
      ...(images[0] ? { id: images[0].id } : {}),
      cells: [...new Set(images.map((offer) => OFFER_LIST.cellOf(offer)))],
    },
  };
};
