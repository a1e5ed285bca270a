/**
 * Fuzzing the whole local HTTP path (router, authorizer, Middy chain, handlers, DynamoDB Local)
 * with client A's valid credentials, text that is not well-formed Unicode included (unpaired
 * surrogates in JSON bodies; their would-be UTF-8 bytes, which are not UTF-8, percent-encoded
 * in paths and query strings and raw in headers). For every generated request:
 * - no 5xx;
 * - every non-2xx is an RFC 9457 problem (application/problem+json, type/title/status/detail);
 * - nothing of client B shows (B's data carries distinctive strings; one the request itself
 *   sent may be echoed back in an error and is not counted);
 * - a rejected request leaves the table as it was (every item compared, before and after).
 *
 * Requests are sent one at a time so that each table change is attributed to one request (or
 * to a batch of reads, which may never change anything). The authorizer runs behind the result
 * cache API Gateway gives it, so one scrypt serves them all.
 */
import fc from 'fast-check';
import { request as httpRequest, Agent } from 'node:http';
import { ROUTES } from '../../lambdas/config/routes.js';
import { PROBLEM_CONTENT_TYPE } from '../../lambdas/http/problem.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { tableScanner, type TableScanner, type TableSnapshot } from '../support/table-snapshot.js';
import { B_MARKERS, seedTwoTenants, type SeededTenant } from '../support/two-tenants.js';
import { fcParameters, fcRuns } from '../support/seed.js';

const NUM_RUNS = fcRuns(500, 2_000);

let api: TestApi;
let a: SeededTenant;
let b: SeededTenant;
let scanner: TableScanner;
let baseline: TableSnapshot;
let sent = 0;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

// ---------- generators ----------

/** Methods Node's HTTP parser accepts (it answers others itself, as API Gateway's edge would). */
const METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'HEAD', 'OPTIONS'];
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const hugeDigits = fc.integer({ min: 20, max: 400 }).map((n) => '9'.repeat(n));
const numberText = fc.oneof(
  fc.constantFrom('0', '1', '-1', '100', '101', '1.5', '1e308', '1e400', '-0', 'NaN', 'Infinity', '0x10', '007', ' 1', '9007199254740993'),
  hugeDigits,
  fc.integer().map(String),
);
/** An unpaired UTF-16 surrogate somewhere in otherwise ordinary text: not well-formed Unicode. */
const illFormedText = fc
  .tuple(fc.string({ maxLength: 8 }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.string({ maxLength: 8 }))
  .map(([before, unit, after]) => `${before}${String.fromCharCode(unit)}${after}`);
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('', ' ', 'null', 'true', '__proto__', 'constructor', 'prototype', 'ü', '😀', '\u202e', 'a'.repeat(300), '\ud800', '\udfff', '\udc00\ud800'),
  illFormedText,
);

/**
 * The bytes a string's code units would have in UTF-8 if unpaired surrogates were encoded
 * like other code points (`\ud800` -> ED A0 80): what a careless client sends for ill-formed
 * text, and invalid UTF-8 for the server.
 */
const looseUtf8 = (value: string): Buffer => {
  if (value.isWellFormed()) return Buffer.from(value, 'utf8');
  const bytes: number[] = [];
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    else bytes.push(...Buffer.from(char, 'utf8'));
  }
  return Buffer.from(bytes);
};
/** encodeURIComponent, which throws on ill-formed text, extended to it (`\ud800` -> %ED%A0%80). */
const percentEncode = (value: string): string =>
  value.isWellFormed() ? encodeURIComponent(value) : [...looseUtf8(value)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');

/** Identifiers of A, of B, and ones nobody has. */
const identifier = () =>
  fc.oneof(
    fc.constantFrom(...a.repricerIds.map(String), ...a.offerIds.map(String), ...a.productCodes),
    fc.constantFrom(...b.repricerIds.map(String), ...b.offerIds.map(String), ...b.productCodes),
    numberText,
    text,
  );

/** Percent-encodes most of the time; sometimes leaves raw or broken escapes in place. */
const pathSegment = () =>
  fc.oneof(
    { weight: 6, arbitrary: identifier().map(percentEncode) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%C0%AF', '%00', '..', '.', '%2F', '%252F', 'a;b', 'x=y', '~', '%ED%A0%80', 'A%ED%B0%80') },
  );

/** A route's path with its parameters filled, and mostly the route's own method. */
const knownRoute = () =>
  fc
    .tuple(
      fc.constantFrom(...ROUTES),
      fc.array(pathSegment(), { minLength: 3, maxLength: 3 }),
      fc.boolean(),
      fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) }),
    )
    .map(([route, values, slash, otherMethod]) => {
      let i = 0;
      const path = route.path.replace(/\{\w+\}/g, () => values[i++] ?? '1');
      return { method: otherMethod ?? route.method, path: slash ? `${path}/` : path };
    });
const unknownPath = () =>
  fc.oneof(
    fc.array(pathSegment(), { minLength: 1, maxLength: 4 }).map((parts) => `/${parts.join('/')}`),
    fc
      .tuple(fc.constantFrom('/v1', '/v2', '/v1/repricers/1', '/v1/offers/1', '/v1/products/A-P1', '//v1', '/V1', '/v1/openapi.json'), pathSegment())
      .map(([prefix, part]) => `${prefix}/${part}`),
    fc.constantFrom('/', '', '/v1/', '/v1//offers', '/v1/offers//1', '/v1/repricers/1/', '/v1/repricers?', '/v1/offers#x'),
  );

const QUERY_NAMES = [
  '_limit',
  '_start',
  '_sort',
  'competitiveness',
  'total_competitors_gte',
  '_include_other_offers',
  'product_code',
  'enabled',
  'id',
] as const;
const queryPair = fc.tuple(
  fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...QUERY_NAMES) }, { weight: 1, arbitrary: text }),
  fc.oneof(numberText, text, fc.constantFrom('id', 'id:DESC', 'offer_price:asc', 'updated_at:x', 'high', 'true', 'false')),
);
/** Repeats come from the generator picking a name twice. */
const queryString = fc.oneof(
  fc.array(queryPair, { maxLength: 6 }).map((pairs) => pairs.map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`).join('&')),
  fc.constantFrom(
    '',
    '&&',
    '=',
    '_limit',
    '_limit=%',
    '_limit=1&_limit=2',
    'a[b]=c',
    '_limit=1%00',
    'competitiveness=%ED%A0%80',
    '%ED%A0%80=1',
    'product_code=A%ED%BF%BF',
  ),
);

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json;charset=UTF-8',
  'application/json; charset=latin1',
  'application/problem+json',
  'application/json-patch+json',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  '',
  'json',
  'application/json, text/plain',
  '*/*',
];
const headerValue = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 });
/** Ill-formed text as a header can carry it: its loose UTF-8 bytes, sent raw (one Latin-1 character each). */
const illFormedHeaderValue = illFormedText.map((value) => looseUtf8(value).toString('latin1'));
/** `arb` one time in `1 + absentWeight`, else absent. */
const sometimes = <T>(arb: fc.Arbitrary<T>, absentWeight = 3) =>
  fc.oneof({ weight: absentWeight, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
const headers = fc
  .record({
    'content-type': fc.oneof({ weight: 2, arbitrary: fc.constant('application/json') }, { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES) }),
    'idempotency-key': sometimes(fc.oneof(fc.constantFrom('', 'k'.repeat(129), 'fuzz-key-1', 'fuzz-key-2', '\xed\xa0\x80'), headerValue, illFormedHeaderValue)),
    'if-match': sometimes(fc.oneof(fc.constantFrom('*', '"v1"', 'W/"v1"', '"v999"', 'garbage'), headerValue)),
    accept: sometimes(fc.constantFrom('application/json', 'application/xml', '*/*', '')),
    'content-encoding': sometimes(fc.constantFrom('gzip', 'br', 'identity', 'x-unknown')),
    'x-forwarded-for': sometimes(headerValue),
    'x-random-header': sometimes(headerValue),
  })
  .map((all) => Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined)));

/** Text with keys that pollute prototypes when a parser is careless. */
const prototypeKeys = () =>
  fc
    .tuple(fc.constantFrom('__proto__', 'constructor', 'prototype'), fc.constantFrom(...a.productCodes))
    .map(([key, code]) => `{"${key}":{"isAdmin":true,"polluted":1},"product_code":"${code}","preferred_price":10,"preferred_profit":1}`);
const deepNesting = fc
  .tuple(fc.integer({ min: 50, max: 5_000 }), fc.boolean())
  .map(([depth, array]) => (array ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`));
const createBody = () =>
  fc
    .record(
      {
        product_code: fc.oneof(fc.constantFrom(...a.productCodes, ...b.productCodes), text),
        preferred_price: fc.oneof(fc.double({ noNaN: true }), fc.integer(), fc.constantFrom(100, 0.01, 10_000_000)),
        preferred_profit: fc.oneof(fc.double({ noNaN: true }), fc.constantFrom(0, 20)),
        enabled: fc.oneof(fc.boolean(), fc.constantFrom('true', 1, null)),
      },
      { requiredKeys: ['product_code'] },
    )
    .map((body) => JSON.stringify(body));
/** Bodies a route accepts, so that writes succeed now and then and the table moves on. */
const validBody = () =>
  fc.constantFrom(
    ...a.productCodes.map((code) => JSON.stringify({ product_code: code, preferred_price: 100, preferred_profit: 20 })),
    JSON.stringify({ preferred_price: 90 }),
    JSON.stringify({ enabled: false, min_profit: 1.5 }),
  );
const bodyText = () =>
  fc.oneof(
    { weight: 3, arbitrary: validBody() },
    createBody(),
    fc.record({ preferred_price: fc.double(), enabled: fc.boolean(), min_profit: fc.double() }, { requiredKeys: [] }).map((body) => JSON.stringify(body)),
    fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
    prototypeKeys(),
    deepNesting,
    fc.constantFrom(
      '{',
      '{"product_code": ',
      '[1,2',
      '{"a":1,}',
      "{'a':1}",
      'null',
      '""',
      '{"preferred_price": 1e400, "product_code": "A-P1", "preferred_profit": 1}',
      '\uFEFF{}',
    ),
    // Unpaired surrogates as JSON escapes, where a key is built from them and where a name is echoed.
    fc.constantFrom(
      '{"product_code":"\\ud800","preferred_price":10,"preferred_profit":1}',
      '{"product_code":"A-P1","preferred_price":10,"preferred_profit":1,"connector":"\\udfff"}',
      '{"product_code":"A-P1","preferred_price":10,"preferred_profit":1,"\\ud800":1}',
      '{"enabled":false,"\\udc00x":true}',
    ),
    illFormedText.map((value) => JSON.stringify({ product_code: value, preferred_price: 10, preferred_profit: 1 })),
    hugeDigits.map((digits) => `{"product_code":"A-P1","preferred_price":${digits},"preferred_profit":1}`),
    fc.integer({ min: 16 * 1024 - 64, max: 20 * 1024 }).map((size) => JSON.stringify({ product_code: 'A-P1', note: 'x'.repeat(size) })),
    text,
  );
const encodedBody = () =>
  fc
    .tuple(bodyText(), fc.constantFrom<BufferEncoding | 'broken'>('utf8', 'utf8', 'utf8', 'latin1', 'utf16le', 'broken'))
    .map(([body, encoding]) =>
      encoding === 'broken' ? Buffer.concat([Buffer.from(body, 'utf8'), Buffer.from([0xff, 0xfe, 0xc3])]) : Buffer.from(body, encoding),
    );

interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | undefined;
}

const fuzzRequest = (): fc.Arbitrary<FuzzRequest> =>
  fc
    .record({
      target: fc.oneof(
        { weight: 4, arbitrary: knownRoute() },
        { weight: 1, arbitrary: fc.record({ method: fc.constantFrom(...METHODS), path: unknownPath() }) },
      ),
      query: queryString,
      headers,
      body: fc.option(encodedBody(), { nil: undefined, freq: 3 }),
    })
    .map(({ target, ...rest }) => ({ ...target, ...rest }));

// ---------- sending and checking ----------

interface Received {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

const send = (req: FuzzRequest): Promise<Received> =>
  new Promise((resolve, reject) => {
    const url = new URL(api.baseUrl);
    const target = `${req.path.startsWith('/') ? '' : '/'}${req.path}${req.query === '' ? '' : `?${req.query}`}`;
    const outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: target,
        agent,
        headers: {
          ...req.headers,
          authorization: `Basic ${Buffer.from(`${a.auth[0]}:${a.auth[1]}`).toString('base64')}`,
          // Framed explicitly: Node sends a GET, HEAD, DELETE or OPTIONS body unframed otherwise.
          ...(req.body === undefined ? {} : { 'content-length': String(req.body.length) }),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(req.body);
  });

const describeRequest = (req: FuzzRequest) =>
  `${req.method} ${req.path}?${req.query} ${JSON.stringify(req.headers)} body=${req.body?.toString('utf8').slice(0, 200)}`;

const checkProblem = (req: FuzzRequest, res: Received): void => {
  expect({ status: res.status, contentType: res.headers['content-type'] }).toEqual({ status: res.status, contentType: PROBLEM_CONTENT_TYPE });
  if (req.method === 'HEAD') return;
  const body = JSON.parse(res.text) as Record<string, unknown>;
  expect(body).toMatchObject({ type: expect.any(String), title: expect.any(String), status: res.status, detail: expect.any(String) });
  if (body.errors !== undefined) {
    expect(Array.isArray(body.errors)).toBe(true);
    for (const error of body.errors as unknown[]) expect(error).toEqual({ field: expect.any(String), message: expect.any(String) });
  }
};

/** B's strings in the response, except those the request sent itself (an error may echo them). */
const leakedMarkers = (req: FuzzRequest, res: Received): string[] => {
  const sentText = decodeURIComponentSafe(`${req.path}?${req.query} ${JSON.stringify(req.headers)} ${req.body?.toString('utf8') ?? ''}`);
  return [...B_MARKERS, b.clientId, ...b.productCodes, ...b.marketplaceOfferIds].filter((marker) => !sentText.includes(marker) && res.text.includes(marker));
};

function decodeURIComponentSafe(value: string): string {
  try {
    return `${value} ${decodeURIComponent(value)}`;
  } catch {
    return value;
  }
}

/**
 * Bookkeeping a rejected request may move: reserved ids (spent before a create's transaction)
 * and the authorizer's login-attempt counters (it runs again whenever its cached answer expires).
 */
const withoutCounters = (snapshot: TableSnapshot): TableSnapshot =>
  // eslint-disable-next-line no-control-regex -- the NUL separates a key's pk from its sk
  new Map([...snapshot].filter(([key]) => !key.startsWith('COUNTER#') && !/^CLIENT#[^\u0000]*\u0000LOGIN#/.test(key)));

const stats = new Map<number, number>();
let illFormedSent = 0;
/** Whether the request carries ill-formed text: escaped in the body, as its loose UTF-8 bytes elsewhere. */
const isIllFormed = (req: FuzzRequest): boolean =>
  /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/.test(req.body?.toString('utf8') ?? '') ||
  /%ED%[AB][0-9A-F]/i.test(`${req.path}?${req.query}`) ||
  Object.values(req.headers).some((value) => /\xed[\xa0-\xbf]/.test(value));

/**
 * Reads (GET, HEAD, OPTIONS) must never change the table, accepted or not, so they are checked
 * in batches: one scan after every READ_BATCH of them, and before every write, so that a change
 * is always pinned on the batch or on the one write that made it.
 */
const READ_BATCH = 25;
const uncheckedReads: string[] = [];

const expectUnchanged = (requests: readonly string[], after: TableSnapshot): void => {
  expect({ requests, table: withoutCounters(after) }).toEqual({ requests, table: withoutCounters(baseline) });
};

const checkReads = async (): Promise<void> => {
  if (uncheckedReads.length === 0) return;
  expectUnchanged(uncheckedReads, await scanner.scan());
  uncheckedReads.length = 0;
};

beforeAll(async () => {
  api = await startTestApi();
  ({ a, b } = await seedTwoTenants(api, { products: 1 }));
  // The seed's repricers decide, and their decisions are listed, from the stream: the baseline
  // is the table once that work is done, not a moment of it.
  await api.settle();
  scanner = tableScanner(api.tableName);
  baseline = await scanner.scan();
}, 120_000);

afterAll(async () => {
  agent.destroy();
  scanner?.close();
  await api?.close();
});

describe('fuzzing the HTTP API', () => {
  it(`survives ${NUM_RUNS} random requests: no 5xx, problems for errors, nothing of B, no change on rejection`, async () => {
    await fc.assert(
      fc.asyncProperty(fuzzRequest(), async (req) => {
        const isRead = READ_METHODS.has(req.method);
        if (!isRead) await checkReads();
        sent += 1;
        if (isIllFormed(req)) illFormedSent += 1;
        const res = await send(req);
        stats.set(res.status, (stats.get(res.status) ?? 0) + 1);
        const context = describeRequest(req);

        expect({ context, status: res.status < 500 ? 'not 5xx' : res.status }).toEqual({ context, status: 'not 5xx' });
        const accepted = res.status >= 200 && res.status < 300;
        if (!accepted) checkProblem(req, res);
        expect({ context, leaked: leakedMarkers(req, res) }).toEqual({ context, leaked: [] });

        if (isRead) {
          uncheckedReads.push(context);
          if (uncheckedReads.length >= READ_BATCH) await checkReads();
          return;
        }
        // An accepted write may cause work from the stream (a new repricer decides): the next
        // baseline is the table once it is done, so that work is never pinned on a later request.
        if (accepted) await api.settle();
        const after = await scanner.scan();
        if (!accepted) expectUnchanged([context], after);
        baseline = after;
      }),
      fcParameters({ numRuns: NUM_RUNS, endOnFailure: true }),
    );

    await checkReads();

    // Assert: the run was what it claims to be.
    expect(sent).toBeGreaterThanOrEqual(NUM_RUNS);
    const statuses = [...stats.keys()];
    expect(statuses.some((status) => status >= 200 && status < 300)).toBe(true);
    expect(statuses).toEqual(expect.arrayContaining([400, 404, 405]));
    expect(illFormedSent).toBeGreaterThan(NUM_RUNS / 50);
  }, 300_000);
});
