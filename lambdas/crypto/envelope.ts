import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import * as z from 'zod';

/**
 * Envelope encryption for secrets kept in the table (webhook signing secrets; marketplace keys
 * next): each value is encrypted here, in Node, with AES-256-GCM under a fresh data key, and
 * the data key itself is kept only encrypted, beside the ciphertext. A key provider makes and
 * unwraps data keys: KMS on AWS (GenerateDataKey, Decrypt), a local key under `npm start` and
 * the tests. Nothing but the provider ever sees the key that wraps them.
 *
 * The encryption context names what a value is and whose (e.g. purpose and tenant): it is bound
 * into both the data key (KMS checks it on Decrypt) and the value (GCM's additional data), so a
 * sealed value copied into another tenant's item does not open.
 */
export type EncryptionContext = Readonly<Record<string, string>>;

export interface DataKey {
  /** 32 bytes; wiped by the caller once used. */
  readonly plaintext: Uint8Array;
  /** Opaque: only the provider that made it can unwrap it. */
  readonly encrypted: Uint8Array;
}

export interface KeyProvider {
  generateDataKey(context: EncryptionContext): Promise<DataKey>;
  decryptDataKey(encrypted: Uint8Array, context: EncryptionContext): Promise<Uint8Array>;
}

/** A sealed value as stored: base64 fields, the version first so a later format can be told apart. */
export const sealedValue = z.strictObject({
  v: z.literal(1),
  /** The encrypted data key. */
  key: z.base64(),
  iv: z.base64(),
  tag: z.base64(),
  data: z.base64(),
});
export type SealedValue = z.infer<typeof sealedValue>;

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;

/** The context as GCM's additional data: its entries in key order, so the same context always gives the same bytes. */
export const contextBytes = (context: EncryptionContext): Buffer =>
  Buffer.from(JSON.stringify(Object.entries(context).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))), 'utf8');

const wipe = (key: Uint8Array) => key.fill(0);

export const seal = async (provider: KeyProvider, plaintext: string, context: EncryptionContext): Promise<SealedValue> => {
  const dataKey = await provider.generateDataKey(context);
  try {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, dataKey.plaintext, iv);
    cipher.setAAD(contextBytes(context));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return {
      v: 1,
      key: Buffer.from(dataKey.encrypted).toString('base64'),
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      data: data.toString('base64'),
    };
  } finally {
    wipe(dataKey.plaintext);
  }
};

/** The plaintext; rejects when the key cannot be unwrapped or the value or its context was altered. */
export const open = async (provider: KeyProvider, sealed: SealedValue, context: EncryptionContext): Promise<string> => {
  const key = await provider.decryptDataKey(Buffer.from(sealed.key, 'base64'), context);
  try {
    const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(contextBytes(context));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
  } finally {
    wipe(key);
  }
};
