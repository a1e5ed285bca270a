/**
 * HTTP Basic credentials (RFC 7617), parsed strictly: anything unusual is "no credentials",
 * which the authorizer answers with 401 without touching the table.
 */
export interface BasicCredentials {
  readonly username: string;
  readonly password: string;
}

/** Checked before any decoding, so oversized input costs nothing. */
export const MAX_AUTHORIZATION_HEADER_LENGTH = 1024;
/** Checked before any lookup or hashing. */
export const MAX_USERNAME_LENGTH = 128;
export const MAX_PASSWORD_LENGTH = 256;

const BASIC_HEADER = /^basic +([^ ]+) *$/i;
/** Canonical padded base64 only: no URL-safe alphabet, whitespace or missing padding. */
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** RFC 7617: user-id and password contain no control characters. */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const decodeBase64Utf8 = (token: string): string | undefined => {
  if (!STRICT_BASE64.test(token)) return undefined;
  const bytes = Buffer.from(token, 'base64');
  // Non-zero bits in the padding would let many tokens decode to one credential.
  if (bytes.toString('base64') !== token) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
};

export const parseBasicAuthorization = (header: string | null | undefined): BasicCredentials | undefined => {
  if (typeof header !== 'string' || header.length > MAX_AUTHORIZATION_HEADER_LENGTH) return undefined;
  const token = BASIC_HEADER.exec(header.trim())?.[1];
  if (token === undefined) return undefined;
  const decoded = decodeBase64Utf8(token);
  if (decoded === undefined) return undefined;
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  const username = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  if (username.length === 0 || username.length > MAX_USERNAME_LENGTH) return undefined;
  if (password.length === 0 || password.length > MAX_PASSWORD_LENGTH) return undefined;
  if (CONTROL_CHARACTER.test(username) || CONTROL_CHARACTER.test(password)) return undefined;
  return { username, password };
};

/** Builds a header value; used by the CLI output, the local runner and tests. */
export const basicAuthorization = (username: string, password: string): string => `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
