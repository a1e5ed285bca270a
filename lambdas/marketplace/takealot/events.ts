import { createHmac, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';
import { isStorableText } from '../../domain/text.js';
import type { MarketplaceEvent } from '../port.js';
import { normalizeTakealotSellerId } from './seller-id.js';

/**
 * Takealot's webhooks (docs/takealot.md section 3, all reported): `X-Takealot-Event`,
 * `X-Takealot-Delivery` (a UUID) and `X-Takealot-Signature`. Sources disagree on the signature,
 * so both reported schemes are accepted: the hex HMAC-SHA256 of the raw body, and the base64
 * HMAC-SHA256 of the URL the marketplace posted to followed by the raw body. Compared in
 * constant time. A repeat of a delivery verifies again: ignoring repeats is the caller's work.
 */
const EVENT_TYPES: Readonly<Record<string, MarketplaceEvent['type']>> = {
  offer_updated: 'offer_updated',
  offer_created: 'offer_created',
  batch_completed: 'batch_completed',
};

/** "Offer Updated", "offer.updated", "OFFER_UPDATED" -> offer_updated. */
const eventTypeOf = (name: string): MarketplaceEvent['type'] =>
  EVENT_TYPES[
    name
      .trim()
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
  ] ?? 'other';

const headerOf = (headers: Readonly<Record<string, string>>, name: string): string | undefined => {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
};

const sameText = (presented: string, expected: string): boolean => {
  const a = Buffer.from(presented, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
};

/** Whether the signature is one of the two reported schemes' (a `sha256=` prefix tolerated). */
export const signatureHolds = (secret: string, url: string, body: string, signature: string): boolean => {
  const presented = signature.trim().replace(/^sha256=/i, '');
  const hexBody = createHmac('sha256', secret).update(body, 'utf8').digest('hex');
  const base64UrlBody = createHmac('sha256', secret)
    .update(url + body, 'utf8')
    .digest('base64');
  // Both are compared, always: the time taken does not tell which scheme came close.
  const hexMatch = sameText(presented.toLowerCase(), hexBody);
  const base64Match = sameText(presented, base64UrlBody);
  return hexMatch || base64Match;
};

const reference = z.union([z.int().nonnegative(), z.string().min(1).max(100).refine(isStorableText)]).transform(String);
const eventBody = z.looseObject({
  offer_id: reference.nullish(),
  batch_id: reference.nullish(),
  values_changed: z.unknown().optional(),
  // Read when it is an id of either form; of any other shape it is left out, never a reason to drop the event.
  seller_id: z.unknown().optional(),
});

/** `values_changed` as an object, or as a JSON string holding one (both reported); anything else: absent. */
const valuesChangedOf = (raw: unknown): Readonly<Record<string, unknown>> | undefined => {
  let value = raw;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return undefined;
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
};

const DELIVERY_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** The header Takealot's webhooks carry their signature in. */
export const TAKEALOT_SIGNATURE_HEADER = 'x-takealot-signature';

export const verifyTakealotEvent = (
  secret: string,
  request: { readonly url: string; readonly headers: Readonly<Record<string, string>>; readonly body: string },
): MarketplaceEvent | undefined => {
  try {
    const signature = headerOf(request.headers, TAKEALOT_SIGNATURE_HEADER);
    const deliveryId = headerOf(request.headers, 'x-takealot-delivery')?.trim();
    const eventName = headerOf(request.headers, 'x-takealot-event');
    if (secret === '' || signature === undefined || deliveryId === undefined || eventName === undefined) return undefined;
    if (!DELIVERY_ID.test(deliveryId)) return undefined;
    if (!signatureHolds(secret, request.url, request.body, signature)) return undefined;
    const parsed = eventBody.safeParse(JSON.parse(request.body));
    if (!parsed.success) return undefined;
    const { offer_id, batch_id, values_changed, seller_id } = parsed.data;
    const valuesChanged = valuesChangedOf(values_changed);
    const sellerId = normalizeTakealotSellerId(seller_id);
    return {
      deliveryId,
      type: eventTypeOf(eventName),
      ...(offer_id == null ? {} : { offerId: offer_id }),
      ...(batch_id == null ? {} : { batchId: batch_id }),
      ...(sellerId === undefined ? {} : { sellerId }),
      ...(valuesChanged === undefined ? {} : { valuesChanged }),
    };
  } catch {
    // A body that is not JSON, or anything else unexpected: not a verified event.
    return undefined;
  }
};
