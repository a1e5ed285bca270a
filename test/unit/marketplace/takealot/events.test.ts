import { createHmac } from 'node:crypto';
import { createTakealotAdapter } from '../../../../lambdas/marketplace/takealot/adapter.js';

const SECRET = 'whsec_marketplace_test_secret';
const URL_SIGNED = 'https://repricer.example/v1/marketplace-events/7d3c2f5e-1111-4a4a-8b8b-0123456789ab';
const port = createTakealotAdapter({ sellerApiUrl: 'http://127.0.0.1:1/v1', storefrontUrl: 'http://127.0.0.1:1' });

const hexBody = (body: string, secret = SECRET) => createHmac('sha256', secret).update(body).digest('hex');
const base64UrlBody = (body: string, url = URL_SIGNED) =>
  createHmac('sha256', SECRET)
    .update(url + body)
    .digest('base64');

const request = (body: string, signature: string, event = 'Offer Updated', delivery = 'f0e1d2c3-b4a5-4697-8899-aabbccddeeff') => ({
  url: URL_SIGNED,
  headers: { 'X-Takealot-Event': event, 'X-Takealot-Delivery': delivery, 'X-Takealot-Signature': signature, 'content-type': 'application/json' },
  body,
});

const offerUpdated = JSON.stringify({ seller_id: 1000001, offer_id: 90001, values_changed: { selling_price: { old: 120, new: 115 } }, batch_id: 12 });

describe('verifyEvent', () => {
  it('accepts the hex HMAC of the raw body', () => {
    expect(port.verifyEvent(SECRET, request(offerUpdated, hexBody(offerUpdated)))).toEqual({
      deliveryId: 'f0e1d2c3-b4a5-4697-8899-aabbccddeeff',
      type: 'offer_updated',
      offerId: '90001',
      batchId: '12',
      sellerId: '1000001',
      valuesChanged: { selling_price: { old: 120, new: 115 } },
    });
  });

  it('accepts the base64 HMAC of URL + body, and values_changed as a JSON string', () => {
    const body = JSON.stringify({ seller_id: 1, offer_id: 5, values_changed: JSON.stringify({ selling_price: { old: 10, new: 9 } }) });
    expect(port.verifyEvent(SECRET, request(body, base64UrlBody(body)))).toMatchObject({ offerId: '5', valuesChanged: { selling_price: { old: 10, new: 9 } } });
  });

  it('reads header names in any case and maps the event names', () => {
    const body = JSON.stringify({ seller_id: 1, batch_id: 77, status: 'SUCCESS' });
    const signed = request(body, hexBody(body), 'Batch Completed');
    const lower = { ...signed, headers: Object.fromEntries(Object.entries(signed.headers).map(([key, value]) => [key.toLowerCase(), value])) };
    expect(port.verifyEvent(SECRET, lower)).toMatchObject({ type: 'batch_completed', batchId: '77' });
    expect(port.verifyEvent(SECRET, request(body, hexBody(body), 'New Leadtime Order'))).toMatchObject({ type: 'other' });
  });

  it.each([
    [1000001, '1000001'],
    ['1000001', '1000001'],
    ['M1000001', '1000001'],
    ['m1000001', '1000001'],
  ])('reads seller_id %j as the seller %s', (sellerId, expected) => {
    const body = JSON.stringify({ seller_id: sellerId, batch_id: 77, status: 'SUCCESS' });
    expect(port.verifyEvent(SECRET, request(body, hexBody(body), 'Batch Completed'))).toMatchObject({ type: 'batch_completed', sellerId: expected });
  });

  it('leaves out a seller_id that is absent or of another shape, and still reads the event', () => {
    for (const sellerId of [undefined, null, { id: 1 }, '', -4]) {
      const body = JSON.stringify({ seller_id: sellerId, offer_id: 5 });
      const event = port.verifyEvent(SECRET, request(body, hexBody(body)));
      expect(event).toMatchObject({ type: 'offer_updated', offerId: '5' });
      expect(event).not.toHaveProperty('sellerId');
    }
  });

  it('refuses a wrong signature, another secret, a changed body and a base64 signature over another URL', () => {
    expect(port.verifyEvent(SECRET, request(offerUpdated, 'ab'.repeat(32)))).toBeUndefined();
    expect(port.verifyEvent(SECRET, request(offerUpdated, hexBody(offerUpdated, 'another-secret')))).toBeUndefined();
    expect(port.verifyEvent(SECRET, request(offerUpdated.replace('115', '1'), hexBody(offerUpdated)))).toBeUndefined();
    expect(port.verifyEvent(SECRET, request(offerUpdated, base64UrlBody(offerUpdated, 'https://elsewhere.example/hook')))).toBeUndefined();
    expect(port.verifyEvent('', request(offerUpdated, hexBody(offerUpdated, '')))).toBeUndefined();
  });

  it('refuses a request without the headers or with a body that is not JSON, without throwing', () => {
    const { 'X-Takealot-Delivery': _delivery, ...noDelivery } = request(offerUpdated, hexBody(offerUpdated)).headers;
    expect(port.verifyEvent(SECRET, { ...request(offerUpdated, hexBody(offerUpdated)), headers: noDelivery })).toBeUndefined();
    expect(port.verifyEvent(SECRET, request('not json', hexBody('not json')))).toBeUndefined();
    expect(port.verifyEvent(SECRET, request('[1]', hexBody('[1]')))).toBeUndefined();
  });

  it('verifies a replayed delivery again: ignoring repeats is the caller’s work', () => {
    const signed = request(offerUpdated, hexBody(offerUpdated));
    expect(port.verifyEvent(SECRET, signed)).toEqual(port.verifyEvent(SECRET, signed));
    expect(port.verifyEvent(SECRET, signed)).toBeDefined();
  });
});
