import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may point (SSRF defence, docs/webhooks.md): `https` on port 443 to a public address. The
 * local runtime (`npm start`, the integration tests) sets WEBHOOK_ALLOW_LOCAL_HTTP, which also
 * admits `http` and `https` to 127.0.0.1 on any port (and `localhost`, taken as 127.0.0.1 without asking
 * DNS); the stack never sets it. The name is checked on every address it resolves to, at
 * creation and again at each delivery, and the delivery connects to the address checked.
 */
export const ALLOW_LOCAL_HTTP_ENV = 'WEBHOOK_ALLOW_LOCAL_HTTP';

export const localHttpAllowed = (env: Readonly<Record<string, string | undefined>> = process.env): boolean => env[ALLOW_LOCAL_HTTP_ENV] === 'true';

/** Addresses no webhook may reach: private, loopback, link-local, metadata, reserved, multicast, and IPv6 forms that embed IPv4. */
const FORBIDDEN_V4 = new BlockList();
// Separate lists: a BlockList also matches an IPv4 address against its IPv6 rules in the mapped
// form (::ffff:a.b.c.d), so the mapped-range rule below would forbid every IPv4 address.
const FORBIDDEN_V6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, the instance metadata service among them
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24],
  ['192.88.99.0', 24], // 6to4 relays
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
] as const) {
  FORBIDDEN_V4.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 96], // IPv4-compatible (deprecated)
  ['::ffff:0:0', 96], // IPv4-mapped: would reach the IPv4 address it embeds
  ['64:ff9b::', 96], // NAT64, which embeds an IPv4 address too
  ['64:ff9b:1::', 48],
  ['100::', 64], // discard
  ['2001::', 23], // IETF special purpose (Teredo among them)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4, which embeds an IPv4 address
  ['fc00::', 7], // unique local (fd00:ec2::254 is the metadata service over IPv6)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  FORBIDDEN_V6.addSubnet(network, prefix, 'ipv6');
}

/** The one address the local setting admits. */
export const LOCAL_ADDRESS = '127.0.0.1';

export const isForbiddenAddress = (address: string, allowLocal = false): boolean => {
  const family = isIP(address);
  if (family === 0) return true;
  if (allowLocal && address === LOCAL_ADDRESS) return false;
  return family === 4 ? FORBIDDEN_V4.check(address, 'ipv4') : FORBIDDEN_V6.check(address, 'ipv6');
};

export type UrlCheck =
  { readonly ok: true; readonly url: URL; readonly host: string; readonly literal: boolean } | { readonly ok: false; readonly message: string };

/**
 * The syntactic checks: an absolute http(s) URL without credentials, whose scheme and host
 * (when it is an address literal) are allowed. Names are checked on what they resolve to.
 */
export const checkWebhookUrl = (text: string, allowLocal = localHttpAllowed()): UrlCheck => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: 'must be an absolute URL' };
  }
  if (url.username !== '' || url.password !== '') return { ok: false, message: 'must not contain credentials' };
  // URL keeps IPv6 literals in brackets.
  const bare = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const host = allowLocal && bare.toLowerCase() === 'localhost' ? LOCAL_ADDRESS : bare;
  const literal = isIP(host) !== 0;
  const local = allowLocal && host === LOCAL_ADDRESS;
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local)) {
    return { ok: false, message: allowLocal ? 'must use https (or http to 127.0.0.1 or localhost)' : 'must use https' };
  }
  // Port 443 only (URL drops a port equal to the scheme's default): a webhook is not a way to
  // probe other services' ports. The local run's own receivers listen on loopback ports of their own.
  if (url.port !== '' && !local) return { ok: false, message: 'must use the default https port (443)' };
  if (literal && isForbiddenAddress(host, allowLocal)) return { ok: false, message: 'must not point at a private, loopback, link-local or reserved address' };
  if (!literal && (host === '' || !host.includes('.'))) return { ok: false, message: 'must name a public host' };
  return { ok: true, url, host, literal };
};
