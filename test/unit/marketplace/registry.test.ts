import {
  marketplaceFor,
  TAKEALOT_CONNECTOR_UID,
  TAKEALOT_SELLER_API_URL_ENV,
  TAKEALOT_STOREFRONT_URL_ENV,
} from '../../../lambdas/shared/marketplace/registry.js';

const configured = { [TAKEALOT_SELLER_API_URL_ENV]: 'http://127.0.0.1:4000/v1', [TAKEALOT_STOREFRONT_URL_ENV]: 'http://127.0.0.1:4000' };

describe('marketplaceFor', () => {
  it('gives the Takealot adapter for the takealot connector when the stage has both URLs', () => {
    const found = marketplaceFor(TAKEALOT_CONNECTOR_UID, configured);
    expect(found.kind).toBe('adapter');
    // One adapter per pair of URLs, reused across requests.
    expect(marketplaceFor(TAKEALOT_CONNECTOR_UID, configured)).toEqual(found);
  });

  it('is unconfigured without both URLs: nothing defaults to a real host', () => {
    expect(marketplaceFor(TAKEALOT_CONNECTOR_UID, {}).kind).toBe('unconfigured');
    expect(marketplaceFor(TAKEALOT_CONNECTOR_UID, { [TAKEALOT_SELLER_API_URL_ENV]: configured[TAKEALOT_SELLER_API_URL_ENV] }).kind).toBe('unconfigured');
    expect(marketplaceFor(TAKEALOT_CONNECTOR_UID, { ...configured, [TAKEALOT_STOREFRONT_URL_ENV]: '  ' }).kind).toBe('unconfigured');
  });

  it('has no adapter for any other connector', () => {
    expect(marketplaceFor('amazon', configured).kind).toBe('unsupported');
    expect(marketplaceFor('Takealot', configured).kind).toBe('unsupported');
  });
});
