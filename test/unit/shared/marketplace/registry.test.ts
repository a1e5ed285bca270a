import { productionEnvironment, MARKETPLACES } from '../../../../lambdas/shared/marketplace/marketplaces.js';
import { marketplaceFor, marketplaceRegistry } from '../../../../lambdas/shared/marketplace/registry.js';
import { takealotMarketplace } from '../../../../lambdas/shared/marketplace/takealot/marketplace.js';
import { fakeMarketplace, fakePortsMade } from '../../../support/fake-marketplace/marketplace.js';

const TAKEALOT_ENV = { TAKEALOT_SELLER_API_URL: 'http://127.0.0.1:9/v1', TAKEALOT_STOREFRONT_URL: 'http://127.0.0.1:9' };
const FAKE_ENV = { FAKEMART_SELLER_API_URL: ' http://127.0.0.1:8/api ', FAKEMART_STOREFRONT_URL: 'http://127.0.0.1:8' };

describe('the marketplaces table', () => {
  it('serves Takealot by its uid once the stage has its two URLs, and nothing else', () => {
    expect(marketplaceFor('takealot', {})).toEqual({ kind: 'unconfigured' });
    expect(marketplaceFor('takealot', { ...TAKEALOT_ENV, TAKEALOT_STOREFRONT_URL: '  ' })).toEqual({ kind: 'unconfigured' });
    expect(marketplaceFor('takealot', TAKEALOT_ENV)).toMatchObject({ kind: 'adapter', marketplace: takealotMarketplace, storefrontUrl: 'http://127.0.0.1:9' });
    expect(marketplaceFor('fakemart', { ...TAKEALOT_ENV, ...FAKE_ENV })).toEqual({ kind: 'unsupported' });
  });

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
