/**
 * HTTP Basic through the local server and the real authorizer: every refusal is the same 401,
 * no header shape makes it fail with a 5xx, repeated failures refuse the source address they
 * come from but never the client from its own (see docs/security.md, "Failed logins"), and no
 * credential reaches the logs.
 *
 * Requests are sent from several loopback addresses (127.0.0.x), which the local server passes
 * on as the source address, as API Gateway does with the caller's.
 *
 * Locally the authorizer runs on every request; on AWS its result is cached for 60 s per
 * Authorization header, so a disable takes up to a minute to bite there.
 */
import { jest } from '@jest/globals';
import { FAILURE_WINDOW_MS, MAX_FAILURES_PER_SOURCE, SLOWDOWN_AFTER_FAILURES, SLOWED_MAX_FAILURES_PER_SOURCE } from '../../lambdas/auth/authorize.js';
import { MAX_AUTHORIZATION_HEADER_LENGTH } from '../../lambdas/auth/basic-credentials.js';
import { DUMMY_PASSWORD_RECORD, keyDerivation } from '../../lambdas/auth/password.js';
import { startTestApi, type ApiResponse, type TestApi } from '../support/local-api.js';
import { step } from '../support/story.js';
import { captureOutput } from '../support/output-capture.js';

// Logs at their most verbose and metrics on, so the leak check at the end sees everything.
process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
process.env.POWERTOOLS_METRICS_DISABLED = 'false';

const PATH = '/v1/offers';
const PASSWORD = 'S3cret-Pässword-for-logs';
const WWW_AUTHENTICATE = 'Basic realm="repricer", charset="UTF-8"';

let api: TestApi;
let admin: typeof import('../../tools/admin/clients.js');

const base64 = (text: string, encoding: BufferEncoding = 'utf8') => Buffer.from(text, encoding).toString('base64');
const withHeader = (authorization: string) => api.request('GET', PATH, { headers: { Authorization: authorization } });
const withCredentials = (username: string, password: string, from?: string) =>
  api.request('GET', PATH, { headers: { Authorization: `Basic ${base64(`${username}:${password}`)}` }, ...(from === undefined ? {} : { from }) });
/** Loopback addresses standing for different callers; requests without `from` come from 127.0.0.1. */
const STRANGER = '127.0.0.2';
const ANOTHER_STRANGER = '127.0.0.3';

/** The part of a 401 a client can see, without the per-request id. */
const refusal = (response: ApiResponse<unknown>) => ({
  status: response.status,
  contentType: response.headers['content-type'],
  challenge: response.headers['www-authenticate'],
  body: response.text,
});

let reference: ReturnType<typeof refusal>;

/**
 * Everything this file's requests write to stdout and stderr, from the first to the last: the
 * log test at the end searches all of it. Nothing reaches the terminal.
 */
const captured = captureOutput();
const output = captured.written;

beforeAll(async () => {
  captured.start();
  api = await startTestApi({ uncachedAuthorizer: true });
  admin = await import('../../tools/admin/clients.js');
  for (const username of ['alice', 'disabled-dora', 'locked-luke', 'logged-lena', 'burst-bea', 'popular-pat'])
    await api.createClient(username, { password: PASSWORD });
  reference = refusal(await withCredentials('alice', 'wrong-password'));
}, 120_000);

afterAll(async () => {
  captured.stop();
  await api?.close();
});

/**
 * The blocks below build on each other (failed logins counted from the same sources, logs of
 * every request before): each runs the ones before it once, whichever jest runs first.
 */
let basicsTold: Promise<void> | undefined;
const basics = (): Promise<void> =>
  (basicsTold ??= (async () => {
    await step('lets the right credentials in', async () => {
      expect((await withCredentials('alice', PASSWORD)).status).toBe(200);
    });
    await step('answers a wrong password with a 401 problem and the Basic challenge', async () => {
      expect(reference).toMatchObject({ status: 401, contentType: 'application/problem+json', challenge: WWW_AUTHENTICATE });
      expect(JSON.parse(reference.body)).toMatchObject({ type: 'about:blank', title: 'Unauthorized', status: 401, detail: expect.any(String) });
    });
    await step('answers an unknown user exactly like a wrong password', async () => {
      expect(refusal(await withCredentials('nobody-here', PASSWORD))).toEqual(reference);
    });
    await step('answers a disabled client with the right password exactly like a wrong password', async () => {
      // Arrange
      expect((await withCredentials('disabled-dora', PASSWORD)).status).toBe(200);
      await admin.setClientEnabled('disabled-dora', false);

      // Act
      const response = await withCredentials('disabled-dora', PASSWORD);

      // Assert
      expect(refusal(response)).toEqual(reference);
    });
    await step('answers malformed or foreign credentials with the same 401, never a 5xx', async () => {
      for (const [_case, authorization] of [
        ['no credentials after the scheme', 'Basic'],
        ['bad base64', 'Basic !!!not*base64!!!'],
        ['base64 without padding', `Basic ${base64('alice:x').replace(/=+$/, '')}`],
        ['URL-safe base64', `Basic ${base64('alice:??>>').replaceAll('/', '_').replaceAll('+', '-')}`],
        ['no colon', `Basic ${base64('alice')}`],
        ['an empty user name', `Basic ${base64(`:${PASSWORD}`)}`],
        ['an empty password', `Basic ${base64('alice:')}`],
        ['a 10 KB header', `Basic ${'QUFB'.repeat(2_560)}`],
        ['a header one byte over the limit', `Basic ${'A'.repeat(MAX_AUTHORIZATION_HEADER_LENGTH - 5)}`],
        ['a 10 KB user name', `Basic ${base64(`${'u'.repeat(10_000)}:${PASSWORD}`)}`],
        ['the Bearer scheme', 'Bearer eyJhbGciOiJub25lIn0.e30.'],
        ['the Digest scheme', 'Digest username="alice", realm="repricer", nonce="x", uri="/v1/offers", response="0"'],
        ['credentials without a scheme', base64(`alice:${PASSWORD}`)],
        ['two schemes', `Basic ${base64(`alice:${PASSWORD}`)}, Basic ${base64(`alice:${PASSWORD}`)}`],
        ['Latin-1 text instead of base64', 'Basic ünïcödé:pässwörd'],
        ['invalid UTF-8 inside the base64', `Basic ${Buffer.from([0x61, 0x3a, 0xff, 0xfe, 0xc3]).toString('base64')}`],
        ['a control character in the password', `Basic ${base64('alice:pass\u0000word')}`],
        ['a Unicode user name that does not exist', `Basic ${base64(`álïcé-😀:${PASSWORD}`)}`],
        ['Latin-1 encoded credentials', `Basic ${base64(`alice:${PASSWORD}`, 'latin1')}`],
      ] as const) {
        // Act
        const response = await withHeader(authorization);

        // Assert
        expect(refusal(response)).toEqual(reference);
      }
    });
    await step('answers a request without Authorization with the same 401', async () => {
      expect(refusal(await api.request('GET', PATH))).toEqual(reference);
    });
  })());

describe('HTTP Basic over HTTP', () => {
  it(
    'answers HTTP Basic over HTTP: the right credentials, a wrong password, an unknown user, a disabled client, no credentials, malformed or foreign ones',
    () => basics(),
    360_000,
  );
});

/** Counts the password derivations against real hashes (not the dummy every refusal pays for) while `action` runs. */
const countRealChecks = async <T>(action: () => Promise<T>, guessesOnly = true): Promise<{ result: T; realChecks: number }> => {
  const dummySalt = Buffer.from(DUMMY_PASSWORD_RECORD.salt, 'base64');
  const derive = jest.spyOn(keyDerivation, 'deriveKey');
  try {
    const result = await action();
    const realChecks = derive.mock.calls.filter(([plain, salt]) => !salt.equals(dummySalt) && (!guessesOnly || plain.startsWith('guess-'))).length;
    return { result, realChecks };
  } finally {
    derive.mockRestore();
  }
};

/** Each attempt costs a scrypt derivation (about 50-100 ms here, more on a busy machine). */
let failedLoginsTold: Promise<void> | undefined;
const failedLogins = (): Promise<void> =>
  (failedLoginsTold ??= (async () => {
    await basics();
    await step(
      `refuse a source after ${MAX_FAILURES_PER_SOURCE} wrong passwords, even with the right password, and never the client from its own address`,
      async () => {
        // Arrange
        for (let i = 0; i < MAX_FAILURES_PER_SOURCE; i++) {
          expect(refusal(await withCredentials('locked-luke', `wrong-${i}`, STRANGER))).toEqual(reference);
        }

        // Act
        const rightFromStranger = await withCredentials('locked-luke', PASSWORD, STRANGER);
        const rightFromHome = await withCredentials('locked-luke', PASSWORD);

        // Assert
        expect(refusal(rightFromStranger)).toEqual(reference);
        expect(rightFromHome.status).toBe(200);
        expect(FAILURE_WINDOW_MS).toBe(15 * 60 * 1000);
      },
    );
    await step('do not refuse after one failure fewer, and a right password forgives the source its failures', async () => {
      // Arrange
      for (let i = 0; i < MAX_FAILURES_PER_SOURCE - 1; i++) await withCredentials('alice', `wrong-${i}`);

      // Act
      const first = await withCredentials('alice', PASSWORD);
      for (let i = 0; i < MAX_FAILURES_PER_SOURCE - 1; i++) await withCredentials('alice', `wrong-again-${i}`);
      const second = await withCredentials('alice', PASSWORD);

      // Assert
      expect([first.status, second.status]).toEqual([200, 200]);
    });
    await step(`check at most ${MAX_FAILURES_PER_SOURCE} of a burst of simultaneous guesses against the real hash; the client gets in meanwhile`, async () => {
      // Act: 40 guesses at once from one address, the client itself among them from its own
      const { result: first, realChecks: checkedInFirst } = await countRealChecks(() =>
        Promise.all([...Array.from({ length: 40 }, (_, i) => withCredentials('burst-bea', `guess-${i}`, STRANGER)), withCredentials('burst-bea', PASSWORD)]),
      );
      // ... and 60 more once the first burst has been answered
      const { result: second, realChecks: checkedInSecond } = await countRealChecks(() =>
        Promise.all(Array.from({ length: 60 }, (_, i) => withCredentials('burst-bea', `guess-again-${i}`, STRANGER))),
      );

      // Assert
      expect(first.slice(0, 40).map(refusal)).toEqual(Array.from({ length: 40 }, () => reference));
      expect(first[40]?.status).toBe(200);
      expect(checkedInFirst).toBe(MAX_FAILURES_PER_SOURCE);
      expect(second.map(refusal)).toEqual(Array.from({ length: 60 }, () => reference));
      expect(checkedInSecond).toBe(0);
      expect((await withCredentials('burst-bea', PASSWORD)).status).toBe(200);
    });
    await step(
      `slow a user name down once it has ${SLOWDOWN_AFTER_FAILURES} failures from every source: ${SLOWED_MAX_FAILURES_PER_SOURCE} per new source, the client still gets in`,
      async () => {
        // Arrange: guesses from three addresses, up to their limits
        const sources = ['127.0.0.11', '127.0.0.12', '127.0.0.13'];
        for (const source of sources) {
          for (let i = 0; i < MAX_FAILURES_PER_SOURCE; i++) await withCredentials('popular-pat', `guess-${i}`, source);
        }

        // Act: a fourth address gets fewer guesses; the client, which does not fail, is not slowed
        const { realChecks } = await countRealChecks(async () => {
          for (let i = 0; i < MAX_FAILURES_PER_SOURCE; i++) await withCredentials('popular-pat', `guess-${i}`, ANOTHER_STRANGER);
        });
        const rightFromFourth = await withCredentials('popular-pat', PASSWORD, ANOTHER_STRANGER);
        const rightFromHome = await withCredentials('popular-pat', PASSWORD);

        // Assert
        expect(sources.length * MAX_FAILURES_PER_SOURCE).toBeGreaterThanOrEqual(SLOWDOWN_AFTER_FAILURES);
        expect(realChecks).toBe(SLOWED_MAX_FAILURES_PER_SOURCE);
        expect(refusal(rightFromFourth)).toEqual(reference);
        expect(rightFromHome.status).toBe(200);
      },
    );
    await step('let a refused source in again once an administrator sets a new password', async () => {
      // Act
      await admin.changePassword('locked-luke', `${PASSWORD}-new`);

      // Assert
      expect((await withCredentials('locked-luke', `${PASSWORD}-new`, STRANGER)).status).toBe(200);
    });
  })());

describe('failed logins', () => {
  it('counts failed logins per source and per user name, step by step', () => failedLogins(), 570_000);
});

let everythingLoggedTold: Promise<void> | undefined;
const everythingLogged = (): Promise<void> =>
  (everythingLoggedTold ??= (async () => {
    await failedLogins();
    // Arrange: on top of every request above (right, wrong, malformed, locked, disabled), a few more.
    const header = `Basic ${base64(`logged-lena:${PASSWORD}`)}`;
    const wrong = `${PASSWORD}-typo`;
    await withHeader(header);
    await api.request('POST', '/v1/repricers/', {
      headers: { Authorization: header },
      body: { product_code: 'NOPE', preferred_price: 1, preferred_profit: 0 },
    });
    await api.request('POST', '/v1/repricers/', { headers: { Authorization: header, 'Content-Type': 'application/json' }, body: '{"broken": ' });
    await withCredentials('logged-lena', wrong);
    await withHeader(`Basic ${base64(PASSWORD)}`);

    // Act
    const written = output.join('');

    // Assert
    expect(written).toContain('"level"');
    expect(written).toContain('"_aws"');
    const secrets = [PASSWORD, `${PASSWORD}-new`, wrong, base64(PASSWORD)];
    for (const user of ['alice', 'disabled-dora', 'locked-luke', 'logged-lena', 'nobody-here']) {
      for (const password of [PASSWORD, `${PASSWORD}-new`, wrong]) secrets.push(base64(`${user}:${password}`));
    }
    for (const secret of secrets) expect(written).not.toContain(secret);
  })());

describe('logs', () => {
  it('never contain a password or an Authorization header, whatever the outcome', () => everythingLogged(), 630_000);
});
