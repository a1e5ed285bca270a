import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { contextBytes, type EncryptionContext, type KeyProvider } from './envelope.js';

/**
 * The key provider of `npm start` and the tests: KMS's interface over a 32-byte key held in
 * the process, so no AWS account is needed. Data keys are wrapped with AES-256-GCM under it,
 * the encryption context as additional data, as KMS binds it. Never used by the stack.
 */
const MARKER = Buffer.from('local1');
const IV_BYTES = 12;
const TAG_BYTES = 16;

export const localKeyProvider = (wrappingKey: Uint8Array): KeyProvider => {
  if (wrappingKey.byteLength !== 32) throw new RangeError('The local wrapping key must be 32 bytes');

  const wrap = (plaintext: Buffer, context: EncryptionContext): Buffer => {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', wrappingKey, iv);
    cipher.setAAD(contextBytes(context));
    const wrapped = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([MARKER, iv, cipher.getAuthTag(), wrapped]);
  };

  const unwrap = (encrypted: Uint8Array, context: EncryptionContext): Buffer => {
    const blob = Buffer.from(encrypted);
    if (!blob.subarray(0, MARKER.length).equals(MARKER)) throw new Error('Not a data key of the local key provider');
    const iv = blob.subarray(MARKER.length, MARKER.length + IV_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', wrappingKey, iv);
    decipher.setAAD(contextBytes(context));
    decipher.setAuthTag(blob.subarray(MARKER.length + IV_BYTES, MARKER.length + IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(blob.subarray(MARKER.length + IV_BYTES + TAG_BYTES)), decipher.final()]);
  };

  // As over the wire, a failure is a rejected promise, never a throw.
  return {
    generateDataKey: (context) =>
      Promise.resolve().then(() => {
        const plaintext = randomBytes(32);
        return { plaintext, encrypted: wrap(plaintext, context) };
      }),
    decryptDataKey: (encrypted, context) => Promise.resolve().then(() => unwrap(encrypted, context)),
  };
};
