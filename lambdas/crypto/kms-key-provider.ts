import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import type { KeyProvider } from './envelope.js';

/**
 * The key provider on AWS: data keys from KMS (GenerateDataKey, AES_256) under one customer
 * managed key, unwrapped by Decrypt. The encryption context is passed to both, so KMS refuses
 * to unwrap a data key for any other context (and logs each use in CloudTrail with it).
 */
export const kmsKeyProvider = (keyId: string, client: KMSClient = new KMSClient({})): KeyProvider => ({
  async generateDataKey(context) {
    const result = await client.send(new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: { ...context } }));
    if (!result.Plaintext || !result.CiphertextBlob) throw new Error('KMS answered GenerateDataKey without a key');
    return { plaintext: result.Plaintext, encrypted: result.CiphertextBlob };
  },
  async decryptDataKey(encrypted, context) {
    const result = await client.send(new DecryptCommand({ KeyId: keyId, CiphertextBlob: encrypted, EncryptionContext: { ...context } }));
    if (!result.Plaintext) throw new Error('KMS answered Decrypt without a key');
    return result.Plaintext;
  },
});
