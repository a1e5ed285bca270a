/** What a client item stores of its password: the scrypt hash with its salt and cost, never the password (lambdas/auth/password.ts derives it). */

/** The scrypt cost parameters, stored with every hash so they can be raised for new hashes later. */
export interface ScryptParameters {
  readonly N: number;
  readonly r: number;
  readonly p: number;
  readonly keyLength: number;
}

/** What a client item stores instead of the password. */
export interface PasswordRecord extends ScryptParameters {
  readonly algorithm: 'scrypt';
  /** Base64 of the per-user random salt. */
  readonly salt: string;
  /** Base64 of the derived key. */
  readonly hash: string;
}
