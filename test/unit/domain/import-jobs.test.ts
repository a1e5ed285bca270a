import {
  checkImportBody,
  hasMoreLinesThan,
  invalidJobCounters,
  MAX_IMPORT_LINES,
  MAX_LINE_BYTES,
  MAX_ERROR_MESSAGE,
  MAX_LISTED_ERRORS,
  parseNdjson,
  planImportQuery,
  importQueryParameters,
  validateJobLines,
} from '../../../lambdas/domain/import-jobs.js';
import { UnreadableLine } from '../../../lambdas/domain/import-records.js';
import { offerRecord, productRecord } from '../../support/fixtures.js';

const dataOf = (record: unknown) => (record as { data: Record<string, unknown> }).data;

describe('parseNdjson', () => {
  it('reads one value a line, ends the last line at a final line break, and keeps bad lines in place', () => {
    // Act
    const lines = parseNdjson('{"a":1}\r\n\nnot json\n[2]\n');

    // Assert
    expect(lines).toHaveLength(4);
    expect(lines[0]).toEqual({ a: 1 });
    expect(lines[1]).toEqual(new UnreadableLine('empty line'));
    expect(lines[2]).toEqual(new UnreadableLine('not valid JSON'));
    expect(lines[3]).toEqual([2]);
  });
});

describe('validateJobLines', () => {
  it.each([
    ['products', dataOf(productRecord('SKU-1'))],
    ['offers', dataOf(offerRecord('O-1', 'SKU-1'))],
    ['repricers', { product_code: 'SKU-1', preferred_price: 10, preferred_profit: 1 }],
  ] as const)('accepts a valid %s line with the CLI schemas', (type, line) => {
    expect(validateJobLines(type, [line]).problems).toEqual([]);
  });

  it('names each bad line by number: wrong types, unknown fields, unreadable lines, repeated keys and connector types', () => {
    // Arrange
    const offer = dataOf(offerRecord('O-1', 'SKU-1'));
    const inputs = [
      offer,
      { ...offer, offer_id: 'O-2', offer_price: '12' },
      new UnreadableLine('not valid JSON'),
      { ...offer, colour: 'red' },
      offer,
      { type: 'connector_type', data: { uid: 'x' } },
    ];

    // Act
    const { records, problems } = validateJobLines('offers', inputs);

    // Assert
    expect(records).toHaveLength(2);
    expect(problems.map((p) => p.line)).toEqual([2, 3, 4, 5, 6]);
    expect(problems[0]!.message).toContain('offer_price');
    expect(problems[3]!.message).toBe('offer_id "O-1" repeats line 1');
    expect(problems[4]!.message).toContain('connectors import');
  });

  it('applies the defaults of POST /v1/repricers/ to a repricer line, and refuses a repeated (product, named connector)', () => {
    // Act
    const { records, problems } = validateJobLines('repricers', [
      { product_code: 'SKU-1', preferred_price: 10, preferred_profit: 1, connector: 'amazon' },
      { product_code: 'SKU-1', preferred_price: 12, preferred_profit: 1, connector: 'amazon' },
    ]);

    // Assert
    expect(records[0]).toMatchObject({ enabled: true, buybox_approach: 'cheapest', repricer_approach: 'fixed', min_profit: 0 });
    expect(problems).toEqual([{ line: 2, message: expect.stringContaining('repeats line 1') }]);
  });

  it('takes cost_based lines with a unit cost and a price-war guard, and names the field a line gets wrong', () => {
    const { records, problems } = validateJobLines('repricers', [
      { product_code: 'SKU-1', repricer_approach: 'cost_based', unit_cost: 40, preferred_profit: 5, price_war_guard: { undercuts: 3, cooldown_minutes: 60 } },
      { product_code: 'SKU-2', repricer_approach: 'cost_based', preferred_profit: 5 },
      { product_code: 'SKU-3', repricer_approach: 'cost_based', unit_cost: 40, preferred_price: 60, preferred_profit: 5 },
    ]);

    expect(records[0]).toMatchObject({ repricer_approach: 'cost_based', unit_cost: 40, price_war_guard: { undercuts: 3, cooldown_minutes: 60 } });
    expect(problems).toEqual([
      { line: 2, message: expect.stringContaining('unit_cost') },
      { line: 3, message: expect.stringContaining('preferred_price') },
    ]);
  });
});

describe('invalidJobCounters', () => {
  it('counts bad lines once however many problems they have, and lists the first 100 in line order', () => {
    // Arrange
    const problems = Array.from({ length: 150 }, (_, i) => ({ line: 150 - i, message: 'bad' }));

    // Act
    const counters = invalidJobCounters(200, [...problems, { line: 3, message: 'also bad' }]);

    // Assert
    expect(counters.total).toBe(200);
    expect(counters.invalid).toBe(150);
    expect(counters.errors).toHaveLength(MAX_LISTED_ERRORS);
    expect(counters.errors[0]!.line).toBe(1);
  });

  it('cuts a long message short, so 100 of them fit in one item', () => {
    const [error] = invalidJobCounters(1, [{ line: 1, message: 'x'.repeat(10_000) }]).errors;
    expect(error!.message).toHaveLength(MAX_ERROR_MESSAGE);
  });
});

describe('GET /v1/imports parameters', () => {
  it('default to id:ASC, 100 from 0, and refuse unknown values', () => {
    expect(planImportQuery(importQueryParameters.parse({}))).toEqual({ sort: { field: 'id', direction: 'ASC' }, limit: 100, start: 0 });
    expect(planImportQuery(importQueryParameters.parse({ status: 'failed', import_type: 'offers', _sort: 'created_at:desc' }))).toMatchObject({
      status: 'failed',
      importType: 'offers',
      sort: { field: 'created_at', direction: 'DESC' },
    });
    expect(importQueryParameters.safeParse({ status: 'done' }).success).toBe(false);
    expect(importQueryParameters.safeParse({ colour: 'red' }).success).toBe(false);
  });
});

describe('bounded import validation', () => {
  it('counts lines without splitting, a final line break ending the last line', () => {
    expect([hasMoreLinesThan('a\nb\n', 2), hasMoreLinesThan('a\nb\nc', 2), hasMoreLinesThan('a', 1), hasMoreLinesThan('a\n\n', 1)]).toEqual([
      false,
      true,
      false,
      true,
    ]);
  });

  it('refuses a body of more lines than the cap before parsing it', () => {
    expect(checkImportBody('products', '{}\n'.repeat(MAX_IMPORT_LINES + 1))).toMatchObject({
      ok: false,
      message: expect.stringContaining(String(MAX_IMPORT_LINES)),
    });
  });

  it('reads a line longer than the cap as a bad line, unparsed', () => {
    const long = JSON.stringify({ code: 'x'.repeat(MAX_LINE_BYTES) });
    expect(checkImportBody('products', `${long}\n`)).toMatchObject({
      ok: true,
      invalidLines: 1,
      problems: [{ line: 1, message: expect.stringContaining('longer than') }],
    });
  });

  it('keeps the first 100 problems and counts every bad line', () => {
    const checked = checkImportBody('products', '{}\n'.repeat(1_000));
    expect(checked).toMatchObject({ ok: true, total: 1_000, invalidLines: 1_000 });
    if (!checked.ok) throw new Error('unreachable');
    expect(checked.problems).toHaveLength(MAX_LISTED_ERRORS);
    expect(invalidJobCounters(checked.total, checked.problems, checked.invalidLines)).toMatchObject({ invalid: 1_000 });
  });
});
