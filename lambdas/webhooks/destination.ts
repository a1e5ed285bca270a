import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { checkWebhookUrl, isForbiddenAddress, localHttpAllowed } from '../domain/webhook-url.js';
import { DELIVERY_ERRORS, RESOLVE_TIMEOUT_MS } from '../domain/webhooks.js';

/** Every address a name resolves to (dns.lookup with `all`, as the system resolver answers). */
export type Resolver = (host: string) => Promise<readonly { address: string; family: number }[]>;

export const systemResolver: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

export type Destination =
  | { readonly ok: true; readonly url: URL; readonly address: string; readonly family: 4 | 6 }
  | { readonly ok: false; readonly message: string; readonly unresolved?: boolean };

/** The resolver's answer, or a rejection once `timeoutMs` has passed: a resolver that never answers holds no request. */
const resolveWithin = async (resolve: Resolver, host: string, timeoutMs: number): Promise<readonly { address: string; family: number }[]> => {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      resolve(host),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('DNS lookup timed out')), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
};

/**
 * The address a delivery to `text` connects to: the URL checked, then every address its name
 * resolves to (one forbidden address refuses the name: a resolver may answer in any order).
 */
export const resolveDestination = async (
  text: string,
  resolve: Resolver = systemResolver,
  allowLocal = localHttpAllowed(),
  timeoutMs = RESOLVE_TIMEOUT_MS,
): Promise<Destination> => {
  const checked = checkWebhookUrl(text, allowLocal);
  if (!checked.ok) return checked;
  let addresses: readonly { address: string; family: number }[];
  if (checked.literal) addresses = [{ address: checked.host, family: checked.host.includes(':') ? 6 : 4 }];
  else {
    try {
      addresses = await resolveWithin(resolve, checked.host, timeoutMs);
    } catch {
      return { ok: false, message: 'names a host that does not resolve', unresolved: true };
    }
  }
  const first = addresses[0];
  if (!first) return { ok: false, message: 'names a host that does not resolve', unresolved: true };
  if (addresses.some(({ address }) => isForbiddenAddress(address, allowLocal))) {
    return { ok: false, message: 'must not point at a private, loopback, link-local or reserved address' };
  }
  return { ok: true, url: checked.url, address: first.address, family: first.family === 6 ? 6 : 4 };
};

export interface PostOutcome {
  /** The response status, or undefined when none came (refused, timed out, reset). */
  readonly statusCode: number | undefined;
  /** One of DELIVERY_ERRORS' plain outcomes, never the socket's own error. */
  readonly error: string | undefined;
}

/**
 * POSTs to the checked address only: the request's `lookup` answers the one validated address,
 * so a name that resolves differently a moment later (DNS rebinding) cannot redirect it. The
 * host name still goes in `Host` and in TLS's SNI and certificate check. Redirects are not
 * followed. The timeout covers the whole exchange.
 */
export const postToDestination = (
  destination: Extract<Destination, { ok: true }>,
  body: string,
  headers: Readonly<Record<string, string>>,
  timeoutMs: number,
): Promise<PostOutcome> =>
  new Promise((resolvePost) => {
    const pinned: LookupFunction = (_host, options, callback) => {
      if ((options as { all?: boolean }).all)
        (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: destination.address, family: destination.family }]);
      else callback(null, destination.address, destination.family);
    };
    const send = destination.url.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolvePost(outcome);
    };
    const outgoing = send(
      destination.url,
      {
        method: 'POST',
        lookup: pinned,
        agent: false,
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), 'User-Agent': 'repricer-webhooks/1', ...headers },
      },
      (response) => {
        // Only the status matters; the body is read and dropped so the socket can close.
        response.resume();
        response.on('end', () => finish({ statusCode: response.statusCode, error: undefined }));
        response.on('error', () => finish({ statusCode: response.statusCode, error: undefined }));
      },
    );
    const timer = setTimeout(() => {
      finish({ statusCode: undefined, error: DELIVERY_ERRORS.timedOut });
      outgoing.destroy();
    }, timeoutMs);
    outgoing.on('error', () => finish({ statusCode: undefined, error: DELIVERY_ERRORS.connectionFailed }));
    outgoing.end(body);
  });
