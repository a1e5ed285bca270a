import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { randomBytes } from 'node:crypto';
import { open, seal, type SealedValue } from '../../../lambdas/crypto/envelope.js';
import { kmsKeyProvider } from '../../../lambdas/crypto/kms-key-provider.js';
import { localKeyProvider } from '../../../lambdas/crypto/local-key-provider.js';
import { logger } from '../../../lambdas/observability/logger.js';
import { openWebhookSecret, sealWebhookSecret } from '../../../lambdas/webhooks/secrets.js';

const provider = localKeyProvider(randomBytes(32));
const context = { purpose: 'test', clientId: 'c1' };
const SECRET = `whsec_${'ab'.repeat(32)}`;

beforeAll(() => logger.setLogLevel('SILENT'));

describe('envelope encryption', () => {
  it('seals a value that opens to itself and holds neither it nor the data key in the clear', async () => {
    // Act
    const sealed = await seal(provider, SECRET, context);

    // Assess
    expect(await open(provider, sealed, context)).toBe(SECRET);
    expect(JSON.stringify(sealed)).not.toContain(SECRET);
    expect(JSON.stringify(sealed)).not.toContain(Buffer.from(SECRET).toString('base64'));
  });

  it('uses a fresh data key and IV for every value', async () => {
    const [a, b] = await Promise.all([seal(provider, SECRET, context), seal(provider, SECRET, context)]);
    expect(a.key).not.toBe(b.key);
    expect(a.data).not.toBe(b.data);
  });

  it.each<[string, (sealed: SealedValue) => SealedValue, Record<string, string>]>([
    ['another tenant', (s) => s, { ...context, clientId: 'c2' }],
    ['altered data', (s) => ({ ...s, data: Buffer.from('x'.repeat(Buffer.from(s.data, 'base64').length)).toString('base64') }), context],
    ['an altered tag', (s) => ({ ...s, tag: Buffer.alloc(16).toString('base64') }), context],
    ['another data key', (s) => ({ ...s, key: Buffer.from('local1' + 'x'.repeat(60)).toString('base64') }), context],
  ])('refuses to open a value under %s', async (_case, alter, openContext) => {
    const sealed = await seal(provider, SECRET, context);
    await expect(open(provider, alter(sealed), openContext)).rejects.toThrow();
  });

  it('refuses a value sealed under another wrapping key', async () => {
    const sealed = await seal(provider, SECRET, context);
    await expect(open(localKeyProvider(randomBytes(32)), sealed, context)).rejects.toThrow();
  });
});

describe('kmsKeyProvider', () => {
  it('asks KMS for an AES-256 data key and to decrypt it, with the encryption context each time', async () => {
    // Prepare
    const kms = mockClient(KMSClient);
    const dataKey = randomBytes(32);
    kms.on(GenerateDataKeyCommand).callsFake(async () => ({ Plaintext: Uint8Array.from(dataKey), CiphertextBlob: Buffer.from('wrapped') }));
    kms.on(DecryptCommand).callsFake(async () => ({ Plaintext: Uint8Array.from(dataKey) }));
    const keys = kmsKeyProvider('arn:aws:kms:eu-west-1:111111111111:key/test', new KMSClient({ region: 'eu-west-1' }));

    // Act
    const sealed = await seal(keys, SECRET, context);
    const opened = await open(keys, sealed, context);

    // Assess
    expect(opened).toBe(SECRET);
    expect(kms.commandCalls(GenerateDataKeyCommand)[0]!.args[0].input).toMatchObject({ KeySpec: 'AES_256', EncryptionContext: context });
    expect(kms.commandCalls(DecryptCommand)[0]!.args[0].input).toMatchObject({ EncryptionContext: context });
    expect(Buffer.from(sealed.key, 'base64').toString()).toBe('wrapped');
    kms.restore();
  });
});

describe('webhook secrets', () => {
  it('opens a sealed secret for its tenant only', async () => {
    const sealedSecret = await sealWebhookSecret('c1', SECRET, provider);
    await expect(openWebhookSecret({ clientId: 'c1', webhookId: 1, sealedSecret }, provider)).resolves.toEqual({ ok: true, secret: SECRET });
    await expect(openWebhookSecret({ clientId: 'c2', webhookId: 1, sealedSecret }, provider)).resolves.toEqual({ ok: false });
  });

  it('signs with a secret stored in the clear before secrets were sealed, and reports one that does not open without throwing', async () => {
    await expect(openWebhookSecret({ clientId: 'c1', webhookId: 2, secret: SECRET }, provider)).resolves.toEqual({ ok: true, secret: SECRET });
    const foreign = await sealWebhookSecret('c1', SECRET, localKeyProvider(randomBytes(32)));
    await expect(openWebhookSecret({ clientId: 'c1', webhookId: 3, sealedSecret: foreign }, provider)).resolves.toEqual({ ok: false });
    await expect(openWebhookSecret({ clientId: 'c1', webhookId: 4 }, provider)).resolves.toEqual({ ok: false });
  });
});
