import type { NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { offerStateChange, type OfferState, type OfferStateChange, type OfferTimeline, type StatsWindow } from '../../domain/repricer-stats.js';
import { batchWrite } from '../table/batch.js';
import { offerStatePartition, offerStateSortKey, part } from '../table/keys.js';
import { queryPages } from '../table/query-pages.js';
import { ReadStats } from '../table/read-stats.js';

/**
 * The recorded states of own offers (docs/data-model.md, "Own offer states"): what
 * `GET /v1/repricers/{id}/stats` measures time from. The list maintainer writes one small item
 * each time the change stream shows an own offer's `winning`, `winning_delivery` or price move
 * (or the offer appear or leave its product), from the stream's old and new images: no read.
 * Written again from a redelivered message, an item is the same item. Kept like price changes.
 */
export const OFFER_STATE_RETENTION_DAYS = 90;

const storedState = offerStateChange.extend({ entity: z.literal('offerState') });

const itemOf = (clientId: string, change: OfferStateChange): Record<string, NativeAttributeValue> => ({
  pk: offerStatePartition(clientId, change.productCode),
  sk: offerStateSortKey(change.offerId, change.at),
  entity: 'offerState',
  ...change,
  expiresAt: Math.floor(Date.parse(change.at) / 1000) + OFFER_STATE_RETENTION_DAYS * 86_400,
});

/** Puts the states (25 a call); one write unit each (an item is well under 1 KB). */
export const recordOfferStates = async (clientId: string, changes: readonly OfferStateChange[]): Promise<void> => {
  // One put per key: two changes of one offer at one time (a redelivery) are one state, the later one.
  const items = new Map(changes.map((change) => [`${change.productCode}\n${change.offerId}\n${change.at}`, itemOf(clientId, change)]));
  await batchWrite([...items.values()].map((put) => ({ put })));
};

const stateOf = (item: Record<string, unknown>): OfferState | undefined => {
  const parsed = storedState.safeParse(item);
  if (!parsed.success) return undefined;
  const { at, present, winning, winningDelivery, price } = parsed.data;
  return { at: Date.parse(at), present, winning, winningDelivery, price };
};

/**
 * One own offer's states for a window: the last one at or before its start (one item, read
 * backwards) and those inside it (paged). What is read grows with the states inside the window,
 * which the window's bound (domain/repricer-stats.ts) and the offer's rate of change bound.
 */
export const readOfferTimeline = async (
  clientId: string,
  code: string,
  offerId: string,
  window: StatsWindow,
  stats = new ReadStats(),
): Promise<OfferTimeline> => {
  const pk = offerStatePartition(clientId, code);
  const [fromKey, toKey] = [window.from, window.to].map((at) => offerStateSortKey(offerId, new Date(at).toISOString()));
  const [before, within] = await stats.together([
    (s) =>
      queryPages(s, {
        condition: 'pk = :pk AND sk BETWEEN :low AND :high',
        values: { ':pk': pk, ':low': `${part(offerId)}#`, ':high': fromKey! },
        forward: false,
        limit: 1,
      }),
    (s) => queryPages(s, { condition: 'pk = :pk AND sk BETWEEN :low AND :high', values: { ':pk': pk, ':low': fromKey!, ':high': toKey! }, forward: true }),
  ]);
  const states = (items: readonly Record<string, unknown>[]) => items.flatMap((item) => stateOf(item) ?? []);
  return {
    offerId,
    before: states(before!)[0],
    // A state exactly at the start is the one before (read above too).
    within: states(within!).filter((state) => state.at > window.from && state.at < window.to),
  };
};
