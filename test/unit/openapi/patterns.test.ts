import { caseInsensitivePattern } from '../../../tools/openapi/patterns.js';

describe('caseInsensitivePattern', () => {
  it('spells out both cases of each letter, and keeps escapes and groups', () => {
    // Prepare
    const source = '^(id|offer_price)(?::(asc|desc))?\\d$';

    // Act
    const pattern = new RegExp(caseInsensitivePattern(source));

    // Assess
    expect(caseInsensitivePattern('a:\\d')).toBe('[aA]:\\d');
    for (const text of ['id', 'ID:DESC', 'offer_price:asc7'.replace('7', ''), 'Offer_Price:Asc'])
      expect(pattern.test(`${text}1`)).toBe(new RegExp(source, 'i').test(`${text}1`));
    expect(pattern.test('id:up1')).toBe(false);
  });

  it.each(['[a-z]+', '\\p{L}', '(?<name>x)', '\\u00e9'])('refuses %s, which it cannot rewrite faithfully', (source) => {
    expect(() => caseInsensitivePattern(source)).toThrow(/Cannot make/);
  });
});
