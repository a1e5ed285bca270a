import { sourceDigest, sourcePrefix, UNKNOWN_SOURCE } from '../../../lambdas/auth/source-address.js';

describe('sourcePrefix', () => {
  it.each<[string | undefined, string]>([
    ['203.0.113.66', '203.0.113.66'],
    [' 203.0.113.66 ', '203.0.113.66'],
    ['::ffff:203.0.113.66', '203.0.113.66'],
    ['::FFFF:cb00:7142', '203.0.113.66'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:ffff:ffff:fffe', '2001:db8:1:2::/64'],
    ['2001:db8::', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::203.0.113.66', '64:ff9b:0:0::/64'],
    ['', UNKNOWN_SOURCE],
    [undefined, UNKNOWN_SOURCE],
    ['not an address', UNKNOWN_SOURCE],
    ['999.1.1.1', UNKNOWN_SOURCE],
  ])('%s counts as %s', (address, prefix) => {
    expect(sourcePrefix(address)).toBe(prefix);
  });
});

describe('sourceDigest', () => {
  it('is 16 hex digits, the same within a source and different between sources', () => {
    expect(sourceDigest('2001:db8:1:2::1')).toMatch(/^[0-9a-f]{16}$/);
    expect(sourceDigest('2001:db8:1:2::1')).toBe(sourceDigest('2001:db8:1:2:abcd::9'));
    expect(sourceDigest('203.0.113.66')).not.toBe(sourceDigest('203.0.113.67'));
  });
});
