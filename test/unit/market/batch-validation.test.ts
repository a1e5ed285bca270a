import { ManualClock } from '../../../tools/market/clock.js';
import { checkOfferUpdate, MESSAGES } from '../../../tools/market/offer-updates.js';
import { Simulation } from '../../../tools/market/simulation.js';

const newSimulation = () => new Simulation({ seed: 3, products: 4, competitors: 2, batchDelayMs: 2_000, clock: new ManualClock(), tickIntervalMs: 1_000 });

describe('offer update validation', () => {
  const offer = newSimulation().market.ownOffers()[0]!;

  it.each([
    [{ selling_price: 10.5 }, MESSAGES.sellingPriceWhole],
    [{ selling_price: -1 }, MESSAGES.sellingPriceWhole],
    [{ selling_price: '100' }, MESSAGES.sellingPriceWhole],
    [{ selling_price: offer.rrp + 1 }, MESSAGES.sellingPriceAboveRrp],
    [{ rrp: offer.selling_price - 1 }, MESSAGES.sellingPriceAboveRrp],
    [{ selling_price: 50, rrp: 40 }, MESSAGES.sellingPriceAboveRrp],
    [{}, MESSAGES.nothingToUpdate],
  ])('refuses %j with "%s"', (request, message) => {
    const check = checkOfferUpdate(offer, request);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.errors.map((error) => error.message)).toContain(message);
  });

  it.each([[{ selling_price: 0 }], [{ selling_price: offer.rrp }], [{ selling_price: offer.rrp + 10, rrp: offer.rrp + 10 }]])('accepts %j', (request) => {
    expect(checkOfferUpdate(offer, request).ok).toBe(true);
  });
});

describe('batch price updates', () => {
  it('stays pending until the delay has passed, then applies the valid entries and reports each one', () => {
    const sim = newSimulation();
    const [a, b, c] = sim.market.ownOffers();
    const batch = sim.submitBatch(
      [
        { offer_id: a!.offer_id, selling_price: a!.selling_price - 5 },
        { sku: b!.sku, selling_price: 10.5 },
        { barcode: c!.barcode, selling_price: c!.rrp + 1 },
        { offer_id: 1, selling_price: 10 },
      ],
      undefined,
    );
    const expectedA = a!.selling_price - 5;
    expect(sim.settleDueBatches()).toHaveLength(0);
    (sim.clock as ManualClock).advance(1_999);
    sim.settleDueBatches();
    expect(sim.batches.get(batch.batch_id)!.status).toBe('pending');
    (sim.clock as ManualClock).advance(1);
    sim.settleDueBatches();
    const settled = sim.batches.get(batch.batch_id)!;
    expect(settled.status).toBe('FAILURE');
    expect(settled.results).toEqual([
      { offer_id: a!.offer_id, sku: a!.sku, status: 'SUCCESS' },
      { offer_id: b!.offer_id, sku: b!.sku, status: 'FAILURE', message: MESSAGES.sellingPriceWhole },
      { offer_id: c!.offer_id, sku: c!.sku, status: 'FAILURE', message: MESSAGES.sellingPriceAboveRrp },
      { offer_id: 1, sku: null, status: 'FAILURE', message: 'offer not found' },
    ]);
    expect(a!.selling_price).toBe(expectedA);
    expect(sim.priceLog.summary().total).toBe(1);
  });

  it('is SUCCESS when every entry is applied, and counts prices sent twice in one batch and repeated request ids', () => {
    const sim = newSimulation();
    const [a] = sim.market.ownOffers();
    expect(sim.priceLog.noteRequestId('req-1')).toBe(false);
    const batch = sim.submitBatch(
      [
        { offer_id: a!.offer_id, selling_price: 100 },
        { offer_id: a!.offer_id, selling_price: 100 },
      ],
      'req-1',
    );
    expect(sim.priceLog.noteRequestId('req-1')).toBe(true);
    sim.tick(2);
    expect(sim.batches.get(batch.batch_id)!.status).toBe('SUCCESS');
    const log = sim.priceLog.summary();
    expect(log.duplicates).toEqual({ request_id: 1, within_batch: 1, unchanged_price: 1 });
    expect(log.offers[0]).toMatchObject({ offer_id: a!.offer_id, count: 2, min: 100, max: 100 });
    expect(log.offers[0]!.received[0]).toMatchObject({ selling_price: 100, via: 'batch', batch_id: batch.batch_id, request_id: 'req-1' });
  });
});
