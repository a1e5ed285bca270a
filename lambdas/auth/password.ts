import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { promisify } from 'node:util';
import type { PasswordRecord, ScryptParameters } from '../domain/password-record.js';

export type { PasswordRecord, ScryptParameters } from '../domain/password-record.js';

/** About 50 ms and 16 MiB per verification on a Lambda of 1 GB; raise N as hardware gets faster. */
export const CURRENT_SCRYPT_PARAMETERS: ScryptParameters = { N: 16_384, r: 8, p: 1, keyLength: 32 };
export const SALT_BYTES = 16;

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keyLength: number, options: ScryptOptions) => Promise<Buffer>;

/**
 * Node refuses scrypt above `maxmem` (32 MiB by default). scrypt needs about 128 * N * r * p
 * bytes; twice that leaves headroom without allowing arbitrary memory use.
 */
const maxMemoryFor = ({ N, r, p }: ScryptParameters): number => 2 * 128 * N * r * p;

/**
 * Held in an object so that tests can spy on the one expensive call and check that every
 * failure path pays for it.
 */
export const keyDerivation = {
  deriveKey: (plain: string, salt: Buffer, parameters: ScryptParameters): Promise<Buffer> =>
    scryptAsync(plain.normalize('NFC'), salt, parameters.keyLength, {
      N: parameters.N,
      r: parameters.r,
      p: parameters.p,
      maxmem: maxMemoryFor(parameters),
    }),
};

export const hashPassword = async (plain: string): Promise<PasswordRecord> => {
  const salt = randomBytes(SALT_BYTES);
  const hash = await keyDerivation.deriveKey(plain, salt, CURRENT_SCRYPT_PARAMETERS);
  return { algorithm: 'scrypt', ...CURRENT_SCRYPT_PARAMETERS, salt: salt.toString('base64'), hash: hash.toString('base64') };
};

export const verifyPassword = async (plain: string, record: PasswordRecord): Promise<boolean> => {
  const expected = Buffer.from(record.hash, 'base64');
  const actual = await keyDerivation.deriveKey(plain, Buffer.from(record.salt, 'base64'), record);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
};

/**
 * Verified against when there is no usable record (unknown or locked username), so those
 * answers cost the same scrypt work as a wrong password. Its hash is not derived from any
 * password, so nothing verifies against it.
 */
export const DUMMY_PASSWORD_RECORD: PasswordRecord = {
  algorithm: 'scrypt',
  ...CURRENT_SCRYPT_PARAMETERS,
  salt: '6QixdYEktl/2OhJqmvHHJw==',
  hash: 'hQJ5uweThYQUyLMt220QAdBTRoVcTtVaQpnn8g+sHM8=',
};

/** Spends a wrong password's worth of work and always fails. */
export const verifyAgainstDummy = async (plain: string): Promise<false> => {
  await verifyPassword(plain, DUMMY_PASSWORD_RECORD);
  return false;
};
