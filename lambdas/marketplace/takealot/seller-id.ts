import { isStorableText } from '../../domain/text.js';

/**
 * Takealot names one seller in more than one way (docs/takealot.md section 2, reported): as a
 * number or as text, with or without a leading `M` (`M12345` and `12345` are one seller). Every
 * id the adapter hands on goes through here, so a page, a webhook and the seller id a client
 * states on a connection compare equal when they mean the same seller.
 */
const MAX_SELLER_ID_LENGTH = 100;

/** The seller id as decimal text (one leading `M`/`m` dropped before digits); undefined when it is no usable id. */
export const normalizeTakealotSellerId = (raw: unknown): string | undefined => {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw >= 0 ? String(raw) : undefined;
  if (typeof raw !== 'string') return undefined;
  const trimmed = raw.trim();
  if (trimmed === '' || trimmed.length > MAX_SELLER_ID_LENGTH || !isStorableText(trimmed)) return undefined;
  return /^[Mm]\d+$/.test(trimmed) ? trimmed.slice(1) : trimmed;
};
