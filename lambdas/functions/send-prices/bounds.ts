import { readProductBounds, type ProductBounds } from '../../data/price-changes/send-bounds.js';
import { priceStepOf } from '../../data/connections/connectors.js';
import { checkSendable, type SendBounds } from '../../domain/price-push.js';
import type { Push } from './safety.js';

/**
 * Each push attempt (the first and every retry) checks its prices against the repricer's floor
 * and ceiling and the rrp as they are at that moment, not as they were when the change was
 * planned: a floor raised a minute ago is never pushed under. A price no longer inside is left
 * out of the attempt, and the rest of the batch goes:
 *  - the target itself is outside now: the change is `failed` with the reason;
 *  - only this step of a capped move is: the change is planned again (a new step, inside).
 */
export type Screened =
  | { readonly push: Push; readonly to: 'failed'; readonly reason: string }
  /** Released (still `pending`) for the next run to plan again. */
  | { readonly push: Push; readonly to: 'pending' };

export interface Screening {
  readonly inside: Push[];
  readonly outside: Screened[];
}

const boundsOf = (found: ProductBounds, step: number): SendBounds | undefined =>
  found.slot ? { min_price: found.slot.min_price, preferred_price: found.slot.preferred_price, rrp: found.rrp, step } : undefined;

/** Pure: sorts pushes by the bounds read for their products now. */
export const screenPushes = (pushes: readonly Push[], fresh: ReadonlyMap<string, ProductBounds>, step: number): Screening => {
  const inside: Push[] = [];
  const outside: Screened[] = [];
  for (const push of pushes) {
    const { record } = push.change.stored;
    const found = fresh.get(record.product_code);
    const bounds = found && found.slot?.repricerId === record.repricer_id ? boundsOf(found, step) : undefined;
    if (!bounds) {
      outside.push({ push, to: 'failed', reason: 'The repricer was deleted before this price was sent.' });
      continue;
    }
    if (checkSendable(push.price, bounds).ok) {
      inside.push(push);
      continue;
    }
    const target = checkSendable(record.new_price, bounds);
    if (!target.ok) outside.push({ push, to: 'failed', reason: `Not sent: ${target.reason} (the repricer changed just before the push).` });
    else outside.push({ push, to: 'pending' });
  }
  return { inside, outside };
};

/** The pushes' bounds read again now (one batched read for all their products), and the pushes sorted by them. */
export const screenNow = async (clientId: string, connector: string, pushes: readonly Push[]): Promise<Screening> => {
  const fresh = await readProductBounds(
    clientId,
    connector,
    pushes.map((push) => push.change.stored.record.product_code),
  );
  return screenPushes(pushes, fresh, await priceStepOf(connector));
};
