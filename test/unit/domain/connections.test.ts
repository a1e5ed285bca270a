import { connectedRecord, connectionRecord, DEFAULT_SAFETY, keyLast4, putConnectionBody, type Connection } from '../../../lambdas/domain/connections.js';

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
    ['an unknown safety limit', { api_key: 'abcdefgh1234', safety: { max_step_percent: 10, max_drop: 5 } }],
    ['a step of 0%', { api_key: 'abcdefgh1234', safety: { max_step_percent: 0 } }],
    ['a step over 100%', { api_key: 'abcdefgh1234', safety: { max_step_percent: 101 } }],
    ['a fractional daily cap', { api_key: 'abcdefgh1234', safety: { max_changes_per_day: 4.5 } }],
    ['a breaker window over a day', { api_key: 'abcdefgh1234', safety: { breaker_window_minutes: 1_441 } }],
  ])('refuses %s', (_what, body) => {
    expect(putConnectionBody.safeParse(body).success).toBe(false);
  });

  it('takes any of the safety limits alone, adding none of the others', () => {
    expect(putConnectionBody.parse({ api_key: 'abcdefgh1234', safety: { breaker_drop_percent: 5 } })).toEqual({
      api_key: 'abcdefgh1234',
      mode: 'suggest',
      safety: { breaker_drop_percent: 5 },
    });
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
      seller_id: null,
      seller_id_source: null,
      entries_skipped: 0,
      safety: {
        max_step_percent: 20,
        max_changes_per_day: 48,
        breaker_drop_percent: 10,
        breaker_share_percent: 30,
        breaker_window_minutes: 15,
        breaker_outlier_percent: 30,
      },
      last_sync_at: null,
      last_error: null,
      sync_requested_at: null,
      offers_synced: 0,
      prices_sent: 0,
      created_at: NOW,
      updated_at: NOW,
    });
  });

  it('starts a new connection with the safety limits given and the defaults for the rest', () => {
    const record = connectedRecord(
      'takealot',
      { apiKey: 'tk_live_abcd1234', webhookSecretSet: false, mode: 'live', safety: { max_step_percent: 5, breaker_window_minutes: 60 } },
      undefined,
      NOW,
      () => UID,
    );
    expect(record.safety).toEqual({ ...DEFAULT_SAFETY, max_step_percent: 5, breaker_window_minutes: 60 });
  });

  it("keeps the replaced connection's safety limits, except those the PUT gives", () => {
    const before = connectedRecord(
      'takealot',
      { apiKey: 'old-key-0000', webhookSecretSet: true, mode: 'live', safety: { max_changes_per_day: 12, breaker_share_percent: 50 } },
      undefined,
      '2026-11-01T00:00:00.000Z',
      () => UID,
    );
    const record = connectedRecord(
      'takealot',
      { apiKey: 'new-key-9999', webhookSecretSet: true, mode: 'live', safety: { breaker_share_percent: 40 } },
      before,
      NOW,
    );
    expect(record.safety).toEqual({ ...DEFAULT_SAFETY, max_changes_per_day: 12, breaker_share_percent: 40 });
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

describe('the seller id and the pause', () => {
  const paused = (): Connection => ({
    ...connectedRecord('takealot', { apiKey: 'old-key-0000', webhookSecretSet: true, mode: 'live' }, undefined, '2026-11-01T00:00:00.000Z', () => UID),
    status: 'paused',
    last_error: 'Paused by the circuit breaker: 9 of 20 repriced offers would drop.',
  });

  it('keeps a pause and its reason when the client puts a new key or mode: only resume lifts it', () => {
    const record = connectedRecord('takealot', { apiKey: 'new-key-9999', webhookSecretSet: true, mode: 'suggest' }, paused(), NOW);
    expect(record.status).toBe('paused');
    expect(record.last_error).toBe(paused().last_error);
  });

  it('records the seller id the client states, and keeps it when a later PUT states none', () => {
    const stated = connectedRecord(
      'takealot',
      { apiKey: 'tk_live_abcd1234', webhookSecretSet: false, mode: 'live', sellerId: '12345' },
      undefined,
      NOW,
      () => UID,
    );
    expect([stated.seller_id, stated.seller_id_source]).toEqual(['12345', 'client']);
    const again = connectedRecord('takealot', { apiKey: 'tk_live_abcd9999', webhookSecretSet: false, mode: 'live' }, stated, NOW);
    expect([again.seller_id, again.seller_id_source]).toEqual(['12345', 'client']);
  });

  it("reads a seller id with Takealot's leading M as the same seller, and refuses an empty one", () => {
    expect(putConnectionBody.parse({ api_key: 'tk_live_abcd1234', seller_id: 'M12345' }).seller_id).toBe('12345');
    expect(putConnectionBody.parse({ api_key: 'tk_live_abcd1234', seller_id: 'Mango' }).seller_id).toBe('Mango');
    expect(putConnectionBody.safeParse({ api_key: 'tk_live_abcd1234', seller_id: '' }).success).toBe(false);
  });

  it('reads a connection stored before seller ids with none known', () => {
    const stored = connectedRecord('takealot', { apiKey: 'tk_live_abcd1234', webhookSecretSet: false, mode: 'suggest' }, undefined, NOW, () => UID);
    const { seller_id: _id, seller_id_source: _source, entries_skipped: _skipped, ...older } = stored;
    expect(connectionRecord.parse(older)).toEqual({ ...stored, seller_id: null, seller_id_source: null, entries_skipped: 0 });
  });
});

describe('connectionRecord', () => {
  it('reads a connection stored before the safety limits with the defaults', () => {
    const stored = connectedRecord('takealot', { apiKey: 'tk_live_abcd1234', webhookSecretSet: false, mode: 'suggest' }, undefined, NOW, () => UID);
    const { safety: _safety, ...withoutSafety } = stored;
    expect(connectionRecord.parse(withoutSafety)).toEqual({ ...stored, safety: DEFAULT_SAFETY });
  });

  it('refuses a stored safety limit out of range', () => {
    const stored = connectedRecord('takealot', { apiKey: 'tk_live_abcd1234', webhookSecretSet: false, mode: 'suggest' }, undefined, NOW, () => UID);
    expect(connectionRecord.safeParse({ ...stored, safety: { ...DEFAULT_SAFETY, max_step_percent: 0 } }).success).toBe(false);
  });
});
