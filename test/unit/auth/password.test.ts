import { jest } from '@jest/globals';
import {
  CURRENT_SCRYPT_PARAMETERS,
  DUMMY_PASSWORD_RECORD,
  hashPassword,
  keyDerivation,
  SALT_BYTES,
  verifyAgainstDummy,
  verifyPassword,
} from '../../../lambdas/auth/password.js';

afterEach(() => {
  jest.restoreAllMocks();
});

describe('hashPassword', () => {
  it('records the algorithm, its parameters and a random salt', async () => {
    // Act
    const first = await hashPassword('correct horse');
    const second = await hashPassword('correct horse');

    // Assess
    expect(first).toMatchObject({ algorithm: 'scrypt', ...CURRENT_SCRYPT_PARAMETERS });
    expect(Buffer.from(first.salt, 'base64')).toHaveLength(SALT_BYTES);
    expect(Buffer.from(first.hash, 'base64')).toHaveLength(CURRENT_SCRYPT_PARAMETERS.keyLength);
    expect(second.salt).not.toBe(first.salt);
    expect(second.hash).not.toBe(first.hash);
    expect(JSON.stringify(first)).not.toContain('correct horse');
  });
});

describe('verifyPassword', () => {
  it('accepts the password it was hashed from and nothing else', async () => {
    // Prepare
    const record = await hashPassword('pässwörd✓');

    // Act & Assess
    await expect(verifyPassword('pässwörd✓', record)).resolves.toBe(true);
    await expect(verifyPassword('pässwörd✗', record)).resolves.toBe(false);
    await expect(verifyPassword('', record)).resolves.toBe(false);
  });

  it('treats canonically equivalent Unicode spellings as the same password', async () => {
    // Prepare: "é" precomposed, then as "e" + combining accent
    const record = await hashPassword('caf\u00e9');

    // Act & Assess
    await expect(verifyPassword('cafe\u0301', record)).resolves.toBe(true);
  });

  it('uses the parameters stored with the record, so they can be raised later', async () => {
    // Prepare
    const derive = jest.spyOn(keyDerivation, 'deriveKey');
    const record = await hashPassword('pw');
    const cheaperKey = await keyDerivation.deriveKey('pw', Buffer.from(record.salt, 'base64'), { ...record, N: 1024 });
    const olderRecord = { ...record, N: 1024, hash: cheaperKey.toString('base64') };

    // Act
    const valid = await verifyPassword('pw', olderRecord);

    // Assess
    expect(valid).toBe(true);
    expect(derive).toHaveBeenLastCalledWith('pw', expect.any(Buffer), expect.objectContaining({ N: 1024 }));
  });

  it('fails, rather than throws, when the stored hash has another length', async () => {
    // Prepare
    const record = await hashPassword('pw');

    // Act & Assess
    await expect(verifyPassword('pw', { ...record, hash: Buffer.alloc(16).toString('base64') })).resolves.toBe(false);
  });
});

describe('verifyAgainstDummy', () => {
  it('fails, after the same key derivation a real record costs', async () => {
    // Prepare
    const derive = jest.spyOn(keyDerivation, 'deriveKey');

    // Act
    const valid = await verifyAgainstDummy('anything');

    // Assess
    expect(valid).toBe(false);
    expect(derive).toHaveBeenCalledWith('anything', expect.any(Buffer), expect.objectContaining(CURRENT_SCRYPT_PARAMETERS));
    expect(DUMMY_PASSWORD_RECORD).toMatchObject({ algorithm: 'scrypt', ...CURRENT_SCRYPT_PARAMETERS });
    expect(Buffer.from(DUMMY_PASSWORD_RECORD.salt, 'base64')).toHaveLength(SALT_BYTES);
  });
});
