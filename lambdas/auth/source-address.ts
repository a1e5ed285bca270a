/**
 * The source a login attempt is counted against: the caller's address as API Gateway saw it
 * (`requestContext.identity.sourceIp`, the TCP peer; request headers cannot set it).
 *
 * An IPv6 client usually holds a whole /64 and can pick any address in it, so IPv6 addresses
 * count per /64 prefix; IPv4 (also written IPv4-mapped, `::ffff:a.b.c.d`) per address.
 */
import { createHash } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

/** Events without a source address (tests, a gateway change) share one source. */
export const UNKNOWN_SOURCE = 'unknown';

/** The eight 16-bit groups of an IPv6 address, or undefined when it is not one. */
const ipv6Groups = (address: string): number[] | undefined => {
  if (!isIPv6(address)) return undefined;
  const withoutZone = address.split('%', 1)[0] ?? '';
  // A trailing dotted quad stands for the last two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(withoutZone)?.[1];
  let text = withoutZone;
  if (dotted) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted.split('.').map(Number);
    text = `${withoutZone.slice(0, -dotted.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  const zeros = tail === undefined ? [] : new Array<number>(8 - front.length - back.length).fill(0);
  return [...front, ...zeros, ...back];
};

/** The part of an address that identifies one source: the IPv4 address or the IPv6 /64. */
export const sourcePrefix = (sourceIp: string | null | undefined): string => {
  const address = (sourceIp ?? '').trim().toLowerCase();
  if (isIPv4(address)) return address;
  const groups = ipv6Groups(address);
  if (groups === undefined) return UNKNOWN_SOURCE;
  const isMappedIpv4 = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  if (isMappedIpv4) {
    const [high = 0, low = 0] = groups.slice(6);
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
};

/**
 * 16 hex digits of SHA-256 of the prefix: fixed width and free of `#` for the key. It keeps
 * addresses out of plain sight in the table and the logs, but is no anonymization: the IPv4
 * space is small enough to search.
 */
export const sourceDigest = (sourceIp: string | null | undefined): string =>
  createHash('sha256')
    .update(`source:${sourcePrefix(sourceIp)}`, 'utf8')
    .digest('hex')
    .slice(0, 16);
