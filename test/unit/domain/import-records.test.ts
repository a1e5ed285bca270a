import { CONNECTOR_IMPORT_COMMAND, UnreadableLine, validateImport } from '../../../lambdas/domain/import-records.js';
import { connectorTypeFields, offerFields, productFields } from '../data/fixtures.js';

const connectorLine = (uid = 'takealot') => ({ type: 'connector_type', data: connectorTypeFields({ uid }) });
const productLine = (code = 'SKU-1') => ({ type: 'product', data: productFields({ code }) });
const offerLine = (offerId = 'OF-1', productCode = 'SKU-1') => ({ type: 'offer', data: { ...offerFields({ offer_id: offerId }), product_code: productCode } });

describe('validateImport', () => {
  it('parses a valid catalogue into records, in order, without problems', () => {
    // Act
    const { records, problems } = validateImport([productLine(), offerLine()]);

    // Assert
    expect(problems).toEqual([]);
    expect(records.map((r) => r.type)).toEqual(['product', 'offer']);
    expect(records[1]).toEqual({ type: 'offer', data: { ...offerFields(), product_code: 'SKU-1' } });
  });

  it('parses a valid reference-data file of connector types', () => {
    // Act
    const { records, problems } = validateImport([connectorLine('takealot'), connectorLine('bol')], 'connectors');

    // Assert
    expect(problems).toEqual([]);
    expect(records).toEqual([connectorLine('takealot'), connectorLine('bol')]);
  });

  it('accepts an optional price_step on a connector type line: above 0, at most 2 decimals', () => {
    // Arrange
    const withStep = (price_step: unknown) => ({ type: 'connector_type', data: { ...connectorTypeFields(), price_step } });

    // Act
    const accepted = [0.01, 0.05, 1, 2.5, 10_000_000].map((step) => validateImport([withStep(step)], 'connectors'));
    const refused = [0, -1, 0.001, 1.005, '1', null, 10_000_000.01].map((step) => validateImport([withStep(step)], 'connectors'));

    // Assert
    expect(accepted.map((result) => result.problems)).toEqual(accepted.map(() => []));
    expect(accepted[1]?.records).toEqual([withStep(0.05)]);
    expect(refused.map((result) => result.problems.map((p) => p.message))).toEqual(refused.map(() => [expect.stringContaining('data.price_step')]));
  });

  it("refuses a connector type in a client's catalogue, pointing to the operator's command", () => {
    // Act
    const { records, problems } = validateImport([productLine(), connectorLine('amazon'), offerLine()]);

    // Assert
    expect(problems).toEqual([{ line: 2, message: expect.stringContaining(CONNECTOR_IMPORT_COMMAND) }]);
    expect(records.map((r) => r.type)).toEqual(['product', 'offer']);
  });

  it('refuses products and offers in a reference-data import', () => {
    // Act
    const { problems } = validateImport([connectorLine(), productLine(), offerLine()], 'connectors');

    // Assert
    expect(problems.map((p) => p.line)).toEqual([2, 3]);
    expect(problems[0]?.message).toContain('--client');
  });

  it('reports each bad line by its 1-based number', () => {
    // Arrange
    const inputs = [
      productLine(),
      new UnreadableLine('not JSON: Unexpected token'),
      { type: 'offer', data: { ...offerFields({ offer_id: 'OF-2' }) } }, // no product_code
      { type: 'warehouse', data: {} },
      { ...productLine('SKU-2'), extra: true },
      offerLine('OF-3'),
    ];

    // Act
    const { records, problems } = validateImport(inputs);

    // Assert
    expect(problems.map((p) => p.line)).toEqual([2, 3, 4, 5]);
    expect(problems[0]).toEqual({ line: 2, message: 'not JSON: Unexpected token' });
    expect(problems[1]?.message).toContain('data.product_code');
    expect(problems[3]?.message).toContain('(record)');
    expect(records).toHaveLength(2);
  });

  it.each<[string, unknown[], string]>([
    ['a product code', [productLine('A'), productLine('B'), productLine('A')], 'product code "A" repeats line 1'],
    ['an offer id', [offerLine('X'), offerLine('X')], 'offer_id "X" repeats line 1'],
    ['a connector uid', [connectorLine('bol'), connectorLine('ebay'), connectorLine('bol')], 'connector_type uid "bol" repeats line 1'],
  ])('reports %s repeated within the file', (_case, inputs, message) => {
    // Act
    const { problems } = validateImport(inputs, inputs.some((input) => (input as { type: string }).type === 'connector_type') ? 'connectors' : 'catalogue');

    // Assert
    expect(problems).toEqual([{ line: inputs.length, message }]);
  });

  it.each<[string, unknown]>([
    ['a product code', productLine('SKU-\ud800')],
    ['an offer id', offerLine('OF-\udc00')],
    ["an offer's product code", offerLine('OF-9', '\ud83d')],
    ['a competitiveness', { type: 'offer', data: { ...offerFields({ offer_id: 'OF-8', competitiveness: 'hi\ud800gh' }), product_code: 'SKU-1' } }],
    ['a title', { type: 'product', data: productFields({ code: 'SKU-7', title: 'Lamp \udfff' }) }],
  ])('refuses %s that is not well-formed Unicode', (_case, line) => {
    // Act
    const { problems } = validateImport([line]);

    // Assert
    expect(problems).toEqual([{ line: 1, message: expect.stringContaining('well-formed Unicode') }]);
  });

  it('does not confuse a product code with an offer id of the same text', () => {
    expect(validateImport([productLine('SAME'), offerLine('SAME', 'SAME')]).problems).toEqual([]);
  });
});
