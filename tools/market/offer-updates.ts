/**
 * Validating and applying a change to the demo seller's own offer (PATCH and batch entries
 * alike), with Takealot's reported messages: a price is whole rand, not negative, not above RRP.
 */
import type { OwnOffer } from './catalogue.js';

export const MESSAGES = {
  sellingPriceWhole: 'selling price must be a whole number >= 0',
  sellingPriceAboveRrp: 'selling price must be <= RRP',
  rrpWhole: 'rrp must be a whole number >= 0',
  leadtimeWhole: 'minimum leadtime days must be a whole number from 0 to 365',
  statusAction: 'status_action must be one of: Disable, Re-enable',
  nothingToUpdate: 'no field to update: selling_price, rrp, minimum_leadtime_days or status_action',
} as const;

export interface ValidationError {
  message: string;
  code: string;
}

export interface OfferChanges {
  selling_price?: number;
  rrp?: number;
  minimum_leadtime_days?: number;
  status?: OwnOffer['status'];
}

export type ValuesChanged = Partial<Record<keyof OfferChanges, { old: number | string; new: number | string }>>;

export type UpdateCheck = { ok: true; changes: OfferChanges } | { ok: false; errors: ValidationError[] };

const isWhole = (value: unknown, max = Number.MAX_SAFE_INTEGER): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= max;

/** Checks a requested change against the offer as it is; unknown fields are ignored, as identifiers in a batch entry are. */
export const checkOfferUpdate = (offer: OwnOffer, request: Record<string, unknown>): UpdateCheck => {
  const errors: ValidationError[] = [];
  const changes: OfferChanges = {};
  if ('rrp' in request) {
    if (isWhole(request.rrp)) changes.rrp = request.rrp;
    else errors.push({ message: MESSAGES.rrpWhole, code: 'invalid_rrp' });
  }
  if ('selling_price' in request) {
    if (!isWhole(request.selling_price)) errors.push({ message: MESSAGES.sellingPriceWhole, code: 'invalid_selling_price' });
    else if (request.selling_price > (changes.rrp ?? offer.rrp)) errors.push({ message: MESSAGES.sellingPriceAboveRrp, code: 'selling_price_above_rrp' });
    else changes.selling_price = request.selling_price;
  }
  if ('minimum_leadtime_days' in request) {
    if (isWhole(request.minimum_leadtime_days, 365)) changes.minimum_leadtime_days = request.minimum_leadtime_days;
    else errors.push({ message: MESSAGES.leadtimeWhole, code: 'invalid_leadtime' });
  }
  if ('status_action' in request) {
    if (request.status_action === 'Disable') changes.status = 'disabled_by_seller';
    else if (request.status_action === 'Re-enable') changes.status = 'buyable';
    else errors.push({ message: MESSAGES.statusAction, code: 'invalid_status_action' });
  }
  if (errors.length > 0) return { ok: false, errors };
  if (Object.keys(changes).length === 0) return { ok: false, errors: [{ message: MESSAGES.nothingToUpdate, code: 'nothing_to_update' }] };
  // A lowered RRP must still hold the price (the one sent with it, or the current one).
  if (changes.rrp !== undefined && (changes.selling_price ?? offer.selling_price) > changes.rrp) {
    return { ok: false, errors: [{ message: MESSAGES.sellingPriceAboveRrp, code: 'selling_price_above_rrp' }] };
  }
  return { ok: true, changes };
};

/** Applies checked changes; returns what actually changed (fields set to their current value are left out). */
export const applyOfferUpdate = (offer: OwnOffer, changes: OfferChanges): ValuesChanged => {
  const changed: ValuesChanged = {};
  for (const field of ['rrp', 'selling_price', 'minimum_leadtime_days', 'status'] as const) {
    const next = changes[field];
    if (next === undefined || next === offer[field]) continue;
    changed[field] = { old: offer[field], new: next };
    (offer as unknown as Record<string, unknown>)[field] = next;
  }
  return changed;
};
