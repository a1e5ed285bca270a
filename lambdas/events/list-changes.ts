import * as z from 'zod';
import { offerStateChange } from '../domain/repricer-stats.js';

/**
 * A message to the list maintainer: what may have changed for one tenant. The maintainer reads
 * the current state itself, so a message delivered twice or late changes nothing.
 */
export const listChangesMessage = z.object({
  clientId: z.string().min(1),
  offers: z.array(
    z.object({
      offerId: z.string().min(1),
      productCode: z.string().min(1),
      id: z.int().positive().optional(),
      cells: z.array(z.string()),
    }),
  ),
  products: z.array(z.string().min(1)),
  priceChanges: z.array(
    z
      .object({
        productCode: z.string().min(1),
        sk: z.string().min(1),
        id: z.int().positive(),
        repricerId: z.int().positive(),
        cells: z.array(z.string()).optional(),
        /** A message of the version before statuses named the reason alone (its legacy cell). */
        reason: z.string().optional(),
      })
      .transform(({ reason, cells, ...hint }) => ({ ...hint, cells: cells ?? (reason === undefined ? [] : [reason]) })),
  ),
  rebuilds: z.array(z.string().min(1)),
  /** Own offers' states to record (data/offers/states.ts); a message of the version before them has none. */
  offerStates: z.array(offerStateChange).default([]),
  /** Products whose page watches to bring in line (lambdas/read-planning/watch-products.ts); a message of the version before them has none. */
  watches: z.array(z.string().min(1)).default([]),
});
export type ListChangesMessage = z.infer<typeof listChangesMessage>;

/** A message to the repricing evaluator: the products of one tenant whose repricers may have something to decide. */
export const repricingMessage = z.object({ clientId: z.string().min(1), products: z.array(z.string().min(1)) });
export type RepricingMessage = z.infer<typeof repricingMessage>;
