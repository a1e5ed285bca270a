import { isStorableNumber, storableNumber } from '../../../lambdas/domain/numbers.js';
import { isStorableText, text, toStorableText } from '../../../lambdas/domain/text.js';

describe('the storable-text rule', () => {
  it.each(['', 'plain', 'tab\tline\nreturn\r', 'é 😀 \ufffd', '\ud7ff\ue000', '\u{10ffff}'])('accepts %j', (value) => {
    expect(isStorableText(value)).toBe(true);
  });

  it.each(['\u0000', 'a\u0001', '\u001f', '\ufffe', '\uffff', '\ud800', 'a\udfff', '\udc00\ud800', '\u0008'])('refuses %j', (value) => {
    expect(isStorableText(value)).toBe(false);
    expect(text().safeParse(value).success).toBe(false);
  });

  it('makes echoed text storable: each refused character becomes U+FFFD', () => {
    expect(toStorableText('a\uffff\u0001\ud800b')).toBe('a\ufffd\ufffd\ufffdb');
  });

  it('cuts at the length asked, never inside a surrogate pair, marking the cut', () => {
    const cut = toStorableText(`${'k'.repeat(8)}😀tail`, 10);
    expect(cut).toBe(`${'k'.repeat(8)}…`);
    expect(cut.isWellFormed()).toBe(true);
    expect(toStorableText(`${'k'.repeat(7)}😀tail`, 10)).toBe(`${'k'.repeat(7)}😀…`);
    expect(toStorableText('short', 10)).toBe('short');
  });
});

describe('the storable-number rule', () => {
  it.each([0, -0, 1e-130, 0.01, 5, 99_999.5, 9.999e125, -1e-130])('accepts %p', (value) => {
    expect(isStorableNumber(value)).toBe(true);
  });

  it.each([1e-131, 1e-200, 5e-324, -1e-200, 1e126, 1e300, Number.POSITIVE_INFINITY, Number.NaN])('refuses %p', (value) => {
    expect(isStorableNumber(value)).toBe(false);
    expect(storableNumber().safeParse(value).success).toBe(false);
  });

  it('keeps the bounds that follow it', () => {
    expect(storableNumber().min(0).safeParse(-1).success).toBe(false);
    expect(storableNumber().min(0).safeParse(1e-200).success).toBe(false);
  });
});
