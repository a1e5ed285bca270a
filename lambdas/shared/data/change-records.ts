import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue as LambdaAttributeValue } from 'aws-lambda';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { clientIdOfKey, offerIdOfSortKey, OFFER_SK_PREFIX } from './keys.js';
import { OFFER_LIST, storedOffer } from './offer-list.js';
import type { OfferHint } from './offer-maintenance.js';

/**
 * What one item change on the table's stream means for derived lists: an offer or a product
 * that may have changed, or a rebuild request. Everything else (listings and nodes the
 * maintainer writes itself, clients, repricers) means nothing here.
 */
export type ListChange =
  | { readonly kind: 'offer'; readonly clientId: string; readonly hint: OfferHint }
  | { readonly kind: 'product'; readonly clientId: string; readonly code: string }
  | { readonly kind: 'rebuild'; readonly clientId: string; readonly requestId: string };

type Image = Record<string, LambdaAttributeValue> | undefined;

const plain = (image: Image): Record<string, unknown> | undefined =>
  image ? unmarshall(image as Record<string, AttributeValue>) : undefined;

export const listChangeOf = (keys: Image, oldImage: Image, newImage: Image): ListChange | undefined => {
  const key = plain(keys);
  const pk = typeof key?.pk === 'string' ? key.pk : undefined;
  const sk = typeof key?.sk === 'string' ? key.sk : undefined;
  if (!pk || !sk) return undefined;
  const clientId = clientIdOfKey(pk);
  if (!clientId) return undefined;
  const [, , kind, code] = pk.split('#');
  if (kind === 'REBUILD') return { kind: 'rebuild', clientId, requestId: sk };
  if (kind !== 'P' || code === undefined) return undefined;
  if (sk === 'PRODUCT') return { kind: 'product', clientId, code: decodeURIComponent(code) };
  if (!sk.startsWith(OFFER_SK_PREFIX)) return undefined;
  const images = [oldImage, newImage].map(plain).flatMap((image) => {
    const parsed = storedOffer.safeParse(image);
    return parsed.success ? [parsed.data] : [];
  });
  return {
    kind: 'offer',
    clientId,
    hint: {
      offerId: offerIdOfSortKey(sk),
      productCode: decodeURIComponent(code),
      ...(images[0] ? { id: images[0].id } : {}),
      cells: [...new Set(images.map((offer) => OFFER_LIST.cellOf(offer)))],
    },
  };
};
