import { MARKETPLACES, productionEnvironment } from '../../../lambdas/marketplace/marketplaces.js';
import {
  marketplaceFor,
  marketplaceRegistry,
  TAKEALOT_CONNECTOR_UID,
  TAKEALOT_SELLER_API_URL_ENV,
  TAKEALOT_STOREFRONT_URL_ENV,
} from '../../../lambdas/marketplace/registry.js';
import { takealotMarketplace } from '../../../lambdas/marketplace/takealot/marketplace.js';
import { fakeMarketplace, fakePortsMade } from '../../support/fake-marketplace/marketplace.js';

const TAKEALOT_ENV = { TAKEALOT_SELLER_API_URL: 'http://127.0.0.1:9/v1', TAKEALOT_STOREFRONT_URL: 'http://127.0.0.1:9' };
const FAKE_ENV = { FAKEMART_SELLER_API_URL: ' http://127.0.0.1:8/api ', FAKEMART_STOREFRONT_URL: 'http://127.0.0.1:8' };
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

describe('the marketplaces table', () => {
  it('keeps one adapter per marketplace and URLs', () => {
    const first = marketplaceFor('takealot', TAKEALOT_ENV);
    const again = marketplaceFor('takealot', { ...TAKEALOT_ENV });
    const elsewhere = marketplaceFor('takealot', { ...TAKEALOT_ENV, TAKEALOT_STOREFRONT_URL: 'http://127.0.0.1:10' });
    expect(first.kind === 'adapter' && again.kind === 'adapter' && first.port === again.port).toBe(true);
    expect(first.kind === 'adapter' && elsewhere.kind === 'adapter' && first.port !== elsewhere.port).toBe(true);
  });

  it('takes a second marketplace by its folder and one entry: its settings, its adapter, its production URLs', () => {
    // Prepare: the table with one more entry, as marketplaces.ts would list it
    const table = [...MARKETPLACES, fakeMarketplace];
    const lookup = marketplaceRegistry(table);

    // Act
    const unconfigured = lookup('fakemart', TAKEALOT_ENV);
    const fake = lookup('fakemart', { ...TAKEALOT_ENV, ...FAKE_ENV });
    const takealot = lookup('takealot', { ...TAKEALOT_ENV, ...FAKE_ENV });

    // Assess
    expect(unconfigured).toEqual({ kind: 'unconfigured' });
    expect(fake).toMatchObject({ kind: 'adapter', marketplace: { uid: 'fakemart', maxBatchUpdates: 2, signatureHeader: 'x-fakemart-signature' } });
    expect(fakePortsMade.map((made) => made.urls)).toEqual([{ sellerApiUrl: 'http://127.0.0.1:8/api', storefrontUrl: 'http://127.0.0.1:8' }]);
    expect(fake.kind === 'adapter' && fake.port).toBe(fakePortsMade[0]?.port);
    expect(takealot).toMatchObject({ kind: 'adapter', marketplace: takealotMarketplace });
    expect(productionEnvironment(table)).toEqual({
      TAKEALOT_SELLER_API_URL: 'https://marketplace-api.takealot.com/v1',
      TAKEALOT_STOREFRONT_URL: 'https://api.takealot.com',
      FAKEMART_SELLER_API_URL: 'https://seller.fakemart.example/api',
      FAKEMART_STOREFRONT_URL: 'https://www.fakemart.example',
    });
  });
});
