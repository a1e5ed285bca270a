import { FLAGS, helpText, parseMarketArgs } from '../../../tools/market/cli-args.js';
import { isLoopbackUrl, MarketOptionError, resolveOptions } from '../../../tools/market/options.js';

describe('simulator options', () => {
  it.each(['http://127.0.0.1:3000/hooks', 'http://[::1]:8080/x', 'https://127.0.0.1/x'])('accepts the loopback webhook URL %s', (url) => {
    expect(resolveOptions({ webhook: { url } }).webhook.url).toBe(url);
  });

  it.each(['http://example.com/hook', 'http://10.0.0.5/hook', 'http://localhost:3000/x', 'http://127.0.0.1.nip.io/x', 'ftp://127.0.0.1/x', 'not a url'])(
    'refuses the webhook URL %s at startup',
    (url) => {
      expect(isLoopbackUrl(url)).toBe(false);
      expect(() => resolveOptions({ webhook: { url } })).toThrow(MarketOptionError);
    },
  );

  it('refuses to bind anywhere but loopback', () => {
    expect(() => resolveOptions({ host: '0.0.0.0' as '127.0.0.1' })).toThrow('host must be 127.0.0.1 or ::1');
  });

  it.each([{ errorRate: 2 }, { hangMs: 600_000 }, { latencyMs: -1 }])('refuses the fault setting %j', (faults) => {
    expect(() => resolveOptions({ faults })).toThrow(MarketOptionError);
  });

  it('has the documented defaults', () => {
    const options = resolveOptions();
    expect(options).toMatchObject({ host: '127.0.0.1', basePath: '/v1', competitors: 5, storefrontRateLimit: { capacity: 10, refillPerSecond: 10 } });
  });
});

describe('market CLI arguments', () => {
  it('parses flags into options', () => {
    const { options } = parseMarketArgs([
      '--port',
      '4100',
      '--seed=9',
      '--products',
      '12',
      '--page2-bug',
      '--error-rate',
      '0.1',
      '--signature',
      'base64-url-body',
    ]);
    const resolved = resolveOptions(options);
    expect(resolved).toMatchObject({
      port: 4100,
      seed: 9,
      products: 12,
      faults: { page2Bug: true, errorRate: 0.1 },
      webhook: { signature: 'base64-url-body' },
    });
  });

  it('refuses an unknown flag and a missing value', () => {
    expect(() => parseMarketArgs(['--prot', '1'])).toThrow('unknown option --prot');
    expect(() => parseMarketArgs(['--port'])).toThrow('--port needs a value');
    expect(() => parseMarketArgs(['--port', 'x'])).toThrow('--port needs a number');
  });

  it('lists every flag in --help', () => {
    expect(parseMarketArgs(['--help']).help).toBe(true);
    const help = helpText();
    for (const flag of FLAGS) expect(help).toContain(`--${flag.name}`);
  });
});
