import { checkWebhookUrl, isForbiddenAddress } from '../../../../lambdas/domain/webhook-url.js';
import { resolveDestination, type Resolver } from '../../../../lambdas/webhooks/destination.js';

const resolving =
  (answers: Record<string, string[]>): Resolver =>
  async (host) => {
    const addresses = answers[host];
    if (!addresses) throw new Error('ENOTFOUND');
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describe('isForbiddenAddress', () => {
  it.each([
    '169.254.169.254',
    '10.0.0.1',
    '172.16.5.4',
    '172.31.255.255',
    '192.168.1.1',
    '127.0.0.1',
    '127.8.8.8',
    '0.0.0.0',
    '100.64.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '198.18.0.1',
    '::1',
    '::',
    'fd00:ec2::254',
    'fc00::1',
    'fe80::1',
    '::ffff:169.254.169.254',
    '::ffff:10.0.0.1',
    '::ffff:127.0.0.1',
    '64:ff9b::a00:1',
    '2002:a00:1::1',
    '2001:db8::1',
    'ff02::1',
    'not an address',
  ])('forbids %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each(['93.184.216.34', '8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'])('allows the public %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });

  it('allows 127.0.0.1 alone, and only with the local setting', () => {
    expect([isForbiddenAddress('127.0.0.1', true), isForbiddenAddress('127.0.0.2', true), isForbiddenAddress('::1', true)]).toEqual([false, true, true]);
  });
});

describe('checkWebhookUrl', () => {
  it.each([
    ['http://hooks.example.com/x', false, 'must use https'],
    ['ftp://hooks.example.com/x', false, 'must use https'],
    ['https://user:secret@hooks.example.com/', false, 'must not contain credentials'],
    ['https://169.254.169.254/', false, 'must not point at a private, loopback, link-local or reserved address'],
    ['https://[::1]/', true, 'must not point at a private, loopback, link-local or reserved address'],
    ['https://2130706433/', false, 'must not point at a private, loopback, link-local or reserved address'],
    ['http://127.0.0.1:3000/', false, 'must use https'],
    ['https://intranet/', false, 'must name a public host'],
    ['https://hooks.example.com:8443/x', false, 'must use the default https port (443)'],
    ['https://hooks.example.com:22/x', true, 'must use the default https port (443)'],
    ['https://93.184.216.34:6379/', false, 'must use the default https port (443)'],
    ['not a url', false, 'must be an absolute URL'],
  ])('refuses %s (local setting %s)', (url, local, message) => {
    expect(checkWebhookUrl(url, local)).toEqual({ ok: false, message: expect.stringContaining(message) });
  });

  it.each([
    ['https://hooks.example.com/x', false],
    ['https://hooks.example.com:443/x', false],
    ['https://127.0.0.1:8443/hooks', true],
    ['http://127.0.0.1:3000/hooks', true],
    ['http://localhost:3000/hooks', true],
  ])('accepts %s (local setting %s)', (url, local) => {
    expect(checkWebhookUrl(url, local).ok).toBe(true);
  });
});

describe('resolveDestination', () => {
  const resolver = resolving({
    'ok.test': ['93.184.216.34'],
    'meta.test': ['169.254.169.254'],
    'mixed.test': ['93.184.216.34', '10.0.0.1'],
    'six.test': ['::1'],
  });

  it('pins the resolved public address', async () => {
    await expect(resolveDestination('https://ok.test/x', resolver, false)).resolves.toMatchObject({ ok: true, address: '93.184.216.34', family: 4 });
  });

  it.each(['https://meta.test/', 'https://mixed.test/', 'https://six.test/', 'https://nowhere.test/'])('refuses %s by what it resolves to', async (url) => {
    await expect(resolveDestination(url, resolver, false)).resolves.toMatchObject({ ok: false });
  });

  it('gives up on a resolver that does not answer within the time limit', async () => {
    const silent: Resolver = () => new Promise(() => undefined);
    const started = Date.now();
    await expect(resolveDestination('https://slow.test/', silent, false, 100)).resolves.toMatchObject({ ok: false, unresolved: true });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('takes localhost as 127.0.0.1 with the local setting, without asking the resolver', async () => {
    const never: Resolver = () => Promise.reject(new Error('asked'));
    await expect(resolveDestination('http://localhost:8080/', never, true)).resolves.toMatchObject({ ok: true, address: '127.0.0.1' });
    await expect(resolveDestination('http://localhost:8080/', never, false)).resolves.toMatchObject({ ok: false });
  });
});
