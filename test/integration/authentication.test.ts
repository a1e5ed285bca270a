/**
 * HTTP Basic through the local server and the real authorizer: every refusal is the same 401,
 * no header shape makes it fail with a 5xx, repeated failures lock the account (see
 * docs/security.md, "Lockout"), and no credential reaches the logs.
 *
 * Locally the authorizer runs on every request; on AWS its result is cached for 60 s per
 * Authorization header, so a disable or a lockout takes up to a minute to bite there.
 */
import { jest } from '@jest/globals';
import { FAILURE_WINDOW_MS, LOCKOUT_DURATION_MS, MAX_FAILED_LOGINS } from '../../lambdas/shared/auth/authorize.js';
import { MAX_AUTHORIZATION_HEADER_LENGTH } from '../../lambdas/shared/auth/basic-credentials.js';
import { startTestApi, type ApiResponse, type TestApi } from '../support/local-api.js';

// Logs at their most verbose and metrics on, so the leak check at the end sees everything.
process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
process.env.POWERTOOLS_METRICS_DISABLED = 'false';

const PATH = '/v1/offers';
const PASSWORD = 'S3cret-Pässword-for-logs';
const WWW_AUTHENTICATE = 'Basic realm="repricer", charset="UTF-8"';

let api: TestApi;
let admin: typeof import('../../lib/admin/clients.js');

const base64 = (text: string, encoding: BufferEncoding = 'utf8') => Buffer.from(text, encoding).toString('base64');
const withHeader = (authorization: string) => api.request('GET', PATH, { headers: { Authorization: authorization } });
const withCredentials = (username: string, password: string) => withHeader(`Basic ${base64(`${username}:${password}`)}`);

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
const output: string[] = [];
let restoreOutput: () => void = () => undefined;
const captureOutput = () => {
  const record = (chunk: unknown) => {
    output.push(Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
    return true;
  };
  const spies = [jest.spyOn(process.stdout, 'write').mockImplementation(record), jest.spyOn(process.stderr, 'write').mockImplementation(record)];
  restoreOutput = () => spies.forEach((spy) => spy.mockRestore());
};

beforeAll(async () => {
  captureOutput();
  api = await startTestApi();
  admin = await import('../../lib/admin/clients.js');
  for (const username of ['alice', 'disabled-dora', 'locked-luke', 'logged-lena']) await api.createClient(username, { password: PASSWORD });
  reference = refusal(await withCredentials('alice', 'wrong-password'));
}, 120_000);

afterAll(async () => {
  restoreOutput();
  await api?.close();
});

describe('HTTP Basic over HTTP', () => {
  it('lets the right credentials in', async () => {
    expect((await withCredentials('alice', PASSWORD)).status).toBe(200);
  });

  it('answers a wrong password with a 401 problem and the Basic challenge', () => {
    expect(reference).toMatchObject({ status: 401, contentType: 'application/problem+json', challenge: WWW_AUTHENTICATE });
    expect(JSON.parse(reference.body)).toMatchObject({ type: 'about:blank', title: 'Unauthorized', status: 401, detail: expect.any(String) });
  });

  it('answers an unknown user exactly like a wrong password', async () => {
    expect(refusal(await withCredentials('nobody-here', PASSWORD))).toEqual(reference);
  });

  it('answers a disabled client with the right password exactly like a wrong password', async () => {
    // Arrange
    expect((await withCredentials('disabled-dora', PASSWORD)).status).toBe(200);
    await admin.setClientEnabled('disabled-dora', false);

    // Act
    const response = await withCredentials('disabled-dora', PASSWORD);

    // Assert
    expect(refusal(response)).toEqual(reference);
  });

  it.each<[string, string]>([
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
  ])('answers %s with the same 401, never a 5xx', async (_case, authorization) => {
    // Act
    const response = await withHeader(authorization);

    // Assert
    expect(refusal(response)).toEqual(reference);
  });

  it('answers a request without Authorization with the same 401', async () => {
    expect(refusal(await api.request('GET', PATH))).toEqual(reference);
  });
});

describe('lockout', () => {
  it(`locks an account after ${MAX_FAILED_LOGINS} wrong passwords within ${FAILURE_WINDOW_MS / 60_000} minutes: even the right password gets the 401 then`, async () => {
    // Arrange
    for (let i = 0; i < MAX_FAILED_LOGINS; i++) {
      expect(refusal(await withCredentials('locked-luke', `wrong-${i}`))).toEqual(reference);
    }

    // Act
    const rightPassword = await withCredentials('locked-luke', PASSWORD);

    // Assert
    expect(refusal(rightPassword)).toEqual(reference);
    expect(LOCKOUT_DURATION_MS).toBe(15 * 60 * 1000);
  });

  it('does not lock after one failure fewer, and a success clears the count', async () => {
    // Arrange
    for (let i = 0; i < MAX_FAILED_LOGINS - 1; i++) await withCredentials('alice', `wrong-${i}`);

    // Act
    const first = await withCredentials('alice', PASSWORD);
    for (let i = 0; i < MAX_FAILED_LOGINS - 1; i++) await withCredentials('alice', `wrong-again-${i}`);
    const second = await withCredentials('alice', PASSWORD);

    // Assert
    expect([first.status, second.status]).toEqual([200, 200]);
  });

  it('is lifted by an administrator setting a new password', async () => {
    // Act
    await admin.changePassword('locked-luke', `${PASSWORD}-new`);

    // Assert
    expect((await withCredentials('locked-luke', `${PASSWORD}-new`)).status).toBe(200);
  });
});

describe('logs', () => {
  it('never contain a password or an Authorization header, whatever the outcome', async () => {
    // Arrange: on top of every request above (right, wrong, malformed, locked, disabled), a few more.
    const header = `Basic ${base64(`logged-lena:${PASSWORD}`)}`;
    const wrong = `${PASSWORD}-typo`;
    await withHeader(header);
    await api.request('POST', '/v1/repricers/', { headers: { Authorization: header }, body: { product_code: 'NOPE', preferred_price: 1, preferred_profit: 0 } });
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
  });
});
