/**
 * The demo seller's API key: one active key per seller, as on Takealot. The key is a secret
 * from the system's CSPRNG (not the seeded PRNG: a seed must not predict a credential), printed
 * once at startup and never logged per request. Revoking it makes every later request a 403.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type KeyCheck = 'ok' | 'missing' | 'invalid' | 'revoked';

const digest = (key: string): Buffer => createHash('sha256').update(key).digest();

export const generateSecret = (): string => randomBytes(24).toString('base64url');

export class ApiKeyring {
  private active: Buffer | undefined;
  private last4: string;
  private readonly revoked: Buffer[] = [];

  constructor(initialKey: string) {
    this.active = digest(initialKey);
    this.last4 = initialKey.slice(-4);
  }

  check(presented: string | undefined): KeyCheck {
    if (presented === undefined || presented === '') return 'missing';
    const candidate = digest(presented);
    if (this.active !== undefined && timingSafeEqual(candidate, this.active)) return 'ok';
    return this.revoked.some((old) => timingSafeEqual(candidate, old)) ? 'revoked' : 'invalid';
  }

  /** Revokes the active key; with `reissue`, a new one becomes active and is returned. */
  revoke(reissue: boolean): string | undefined {
    if (this.active !== undefined) this.revoked.push(this.active);
    this.active = undefined;
    if (!reissue) return undefined;
    const key = generateSecret();
    this.active = digest(key);
    this.last4 = key.slice(-4);
    return key;
  }

  describe(): { active: boolean; last4: string | null; revoked_count: number } {
    return { active: this.active !== undefined, last4: this.active === undefined ? null : this.last4, revoked_count: this.revoked.length };
  }
}
