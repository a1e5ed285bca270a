import type { Repricer } from '../../../lambdas/domain/records.js';
import { repricer, repricerItem as canonicalItem, storedRepricer } from '../data/fixtures.js';

/** The stored item of a repricer of client c1, as the handlers read it back. */
export const REPRICER_KEY = { pk: 'T#c1#R#7', sk: 'REPRICER' };
export const repricerItem = (record: Repricer = repricer(), version = 1) => canonicalItem({ ...storedRepricer({}, version), record });
