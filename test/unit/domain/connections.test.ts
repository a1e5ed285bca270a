import { connectedRecord, connectionRecord, keyLast4, putConnectionBody, type Connection } from '../../../lambdas/shared/domain/connections.js';

const NOW = '2026-11-25T10:00:00.000Z';
const UID = '0b6c3f0e-8d7a-4c1b-9e2f-3a4b5c6d7e8f';

describe('putConnectionBody', () => {
  it('defaults the mode to suggest and keeps the key as given', () => {
    expect(putConnectionBody.parse({ api_key: '  key-with-spaces  ' })).toEqual({ api_key: '  key-with-spaces  ', mode: 'suggest' });
  });

  it.each([
    ['an unknown field', { api_key: 'abcdefgh1234', owner: 'x' }],
    ['a key under 8 characters', { api_key: 'abc1234' }],
    ['a key over 512 characters', { api_key: 'k'.repeat(513) }],
    ['a control character', { api_key: 'abcdefgh\u0000' }],
    ['a lone surrogate', { api_key: 'abcdefgh\ud800' }],
    ['a short webhook secret', { api_key: 'abcdefgh1234', webhook_secret: 'short' }],
    ['an unknown mode', { api_key: 'abcdefgh1234', mode: 'auto' }],
    ['a number for a key', { api_key: 12345678 }],
  ])('refuses %s', (_what, body) => {
    expect(putConnectionBody.safeParse(body).success).toBe(false);
  });
});

describe('keyLast4', () => {
  it('shows the last four characters, whole code points', () => {
    expect(keyLast4('tk_live_abcd1234')).toBe('1234');
    expect(keyLast4('abcdefg😀')).toBe('efg😀');
  });
});

describe('connectedRecord', () => {
  it('starts a new connection at zero with a fresh uid', () => {
    const record = connectedRecord('takealot', { apiKey: 'tk_live_abcd1234', webhookSecretSet: false, mode: 'live' }, undefined, NOW, () => UID);
    expect(connectionRecord.parse(record)).toEqual({
      connector: 'takealot',
      uid: UID,
      key_last4: '1234',
      webhook_secret_set: false,
      mode: 'live',
      status: 'connected',
      last_sync_at: null,
      last_error: null,
      sync_requested_at: null,
      offers_synced: 0,
      prices_sent: 0,
      created_at: NOW,
      updated_at: NOW,
    });
  });

  it('keeps the uid, the history and the counters of the connection it replaces, and clears its error', () => {
    const before: Connection = {
      ...connectedRecord('takealot', { apiKey: 'old-key-0000', webhookSecretSet: true, mode: 'suggest' }, undefined, '2026-11-01T00:00:00.000Z', () => UID),
      status: 'unauthorized',
      last_error: 'the key was refused',
      last_sync_at: '2026-11-02T00:00:00.000Z',
      offers_synced: 40,
      prices_sent: 7,
    };
    const record = connectedRecord('takealot', { apiKey: 'new-key-9999', webhookSecretSet: false, mode: 'live' }, before, NOW, () => 'not-used');
    expect(record).toEqual({
      ...before,
      key_last4: '9999',
      webhook_secret_set: false,
      mode: 'live',
      status: 'connected',
      last_error: null,
      updated_at: NOW,
    });
  });
});
