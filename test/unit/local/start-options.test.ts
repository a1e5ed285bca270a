import { MARKET_PORT_ENV, MAX_DEMO_SELLERS, parseStartOptions, START_FLAGS, StartOptionError, startUsage } from '../../../tools/local/start-options.js';
import { loopbackApiUrl, marketplaceEventsUrl } from '../../../tools/local/demo-connection.js';
import { isLoopbackUrl } from '../../../tools/market/options.js';

const urls = { TAKEALOT_SELLER_API_URL: 'http://127.0.0.1:4100/v1', TAKEALOT_STOREFRONT_URL: 'http://127.0.0.1:4100' };

describe('parseStartOptions', () => {
  it('starts the simulator by default, on port 4000 with seed 1', () => {
    expect(parseStartOptions([], {})).toEqual({ help: false, market: { kind: 'simulator', port: 4000, seed: 1, tickMs: 5000, shapes: 'default' } });
  });

  it('takes the port from MARKET_PORT and the seed from --market-seed (either form)', () => {
    expect(parseStartOptions(['--market-seed', '7'], { [MARKET_PORT_ENV]: '4010' }).market).toEqual({
      kind: 'simulator',
      port: 4010,
      seed: 7,
      tickMs: 5000,
      shapes: 'default',
    });
    expect(parseStartOptions(['--market-seed=42'], {}).market).toEqual({ kind: 'simulator', port: 4000, seed: 42, tickMs: 5000, shapes: 'default' });
    expect(parseStartOptions(['--market-tick-ms', '500'], {}).market).toEqual({ kind: 'simulator', port: 4000, seed: 1, tickMs: 500, shapes: 'default' });
    expect(() => parseStartOptions(['--market-tick-ms', '5'], {})).toThrow(/--market-tick-ms must be a whole number from 100/);
    expect(parseStartOptions(['--market-shapes', 'reported'], {}).market).toMatchObject({ kind: 'simulator', shapes: 'reported' });
    expect(() => parseStartOptions(['--market-shapes', 'odd'], {})).toThrow(/--market-shapes must be one of default, reported/);
  });

  it('--sellers N: N seller accounts on the simulator (one when not given), at most MAX_DEMO_SELLERS', () => {
    expect(parseStartOptions(['--sellers', '3'], {}).market).toEqual({ kind: 'simulator', port: 4000, seed: 1, tickMs: 5000, shapes: 'default', sellers: 3 });
    expect(parseStartOptions([], {}).market).not.toHaveProperty('sellers');
    expect(() => parseStartOptions(['--sellers', '0'], {})).toThrow(/--sellers must be a whole number from 1 to 10/);
    expect(() => parseStartOptions(['--sellers', String(MAX_DEMO_SELLERS + 1)], {})).toThrow(StartOptionError);
    expect(startUsage()).toContain('--sellers N');
  });

  it('uses both Takealot URLs when set, and starts nothing', () => {
    expect(parseStartOptions([], urls).market).toEqual({
      kind: 'given',
      sellerApiUrl: urls.TAKEALOT_SELLER_API_URL,
      storefrontUrl: urls.TAKEALOT_STOREFRONT_URL,
    });
  });

  it('starts the simulator when the URLs are blank', () => {
    expect(parseStartOptions([], { TAKEALOT_SELLER_API_URL: ' ', TAKEALOT_STOREFRONT_URL: '' }).market.kind).toBe('simulator');
  });

  it('--no-market wins over the URLs', () => {
    expect(parseStartOptions(['--no-market'], urls)).toEqual({ help: false, market: { kind: 'none' } });
  });

  it('--help', () => {
    expect(parseStartOptions(['--help'], {}).help).toBe(true);
  });

  it.each([
    [['--market'], /unknown option/],
    [['no-market'], /unknown option/],
    [['--market-seed'], /needs a value/],
    [['--market-seed', 'x'], /whole number/],
    [['--market-seed', '1.5'], /whole number/],
    [['--no-market=yes'], /takes no value/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseStartOptions(argv, {})).toThrow(StartOptionError);
    expect(() => parseStartOptions(argv, {})).toThrow(message);
  });

  it.each(['0', '65536', 'abc', '40.5'])('refuses MARKET_PORT=%s', (port) => {
    expect(() => parseStartOptions([], { [MARKET_PORT_ENV]: port })).toThrow(/MARKET_PORT must be a whole number/);
  });

  it('refuses one Takealot URL without the other, rather than half-using it', () => {
    expect(() => parseStartOptions([], { TAKEALOT_SELLER_API_URL: urls.TAKEALOT_SELLER_API_URL })).toThrow(/set both/);
  });

  it('lists every flag and the environment in --help', () => {
    const usage = startUsage();
    for (const flag of START_FLAGS) expect(usage).toContain(`--${flag.name}`);
    expect(usage).toContain('MARKET_PORT');
    expect(usage).toContain('TAKEALOT_SELLER_API_URL');
  });
});

describe("the webhooks' target", () => {
  it('is the API on loopback, where the simulator may send', () => {
    expect(loopbackApiUrl('127.0.0.1', 3000)).toBe('http://127.0.0.1:3000');
    expect(loopbackApiUrl('0.0.0.0', 3000)).toBe('http://127.0.0.1:3000');
    expect(loopbackApiUrl('::1', 3001)).toBe('http://[::1]:3001');
    expect(loopbackApiUrl('192.168.1.20', 3000)).toBeUndefined();
    expect(loopbackApiUrl('localhost', 3000)).toBeUndefined();
  });

  it("names the connection's uid in the marketplace-events route, a URL the simulator accepts", () => {
    const url = marketplaceEventsUrl('http://127.0.0.1:3000', '9b2e7c4a-3d1f-4e5a-8b6c-7d8e9f0a1b2c');
    expect(url).toBe('http://127.0.0.1:3000/v1/marketplace-events/9b2e7c4a-3d1f-4e5a-8b6c-7d8e9f0a1b2c');
    expect(isLoopbackUrl(url)).toBe(true);
  });
});
