import * as z from 'zod';
import { OFFER_LIST } from '../../../../../lambdas/data/offers/list.js';
import { dictionaryOf, recordCodec } from '../../../../../lambdas/data/lists/ranked/record-codec.js';
import { REPRICER_LIST } from '../../../../../lambdas/data/repricers/list.js';
import { offer, product, repricer } from '../../fixtures.js';

const schema = z.object({ name: z.string(), price: z.number() });
const TEMPLATE = { name: '', price: 0 };

describe('recordCodec', () => {
  it('round-trips a record through its current dictionary, naming it in the first byte', () => {
    // Prepare
    const codec = recordCodec(schema, [dictionaryOf({ old: true }), dictionaryOf(TEMPLATE)]);

    // Act
    const bytes = codec.encode({ name: 'kettle', price: 12.5 });

    // Assess
    expect(bytes[0]).toBe(1);
    expect(codec.decode(bytes)).toEqual({ name: 'kettle', price: 12.5 });
  });

  it('still reads records written with an earlier dictionary', () => {
    // Prepare
    const before = recordCodec(schema, [dictionaryOf(TEMPLATE)]);
    const after = recordCodec(schema, [dictionaryOf(TEMPLATE), dictionaryOf({ name: 'x', price: 1, extra: null })]);

    // Act
    const bytes = before.encode({ name: 'old', price: 1 });

    // Assess
    expect(after.decode(bytes)).toEqual({ name: 'old', price: 1 });
  });

  it.each([
    ['a dictionary byte no dictionary has', Buffer.of(7, 1, 2, 3)],
    ['no bytes at all', Buffer.alloc(0)],
  ])('fails on %s', (_case, bytes) => {
    const codec = recordCodec(schema, [dictionaryOf(TEMPLATE)]);
    expect(() => codec.decode(bytes)).toThrow(/Unknown record dictionary/);
  });

  it('fails on a record the schema refuses', () => {
    const loose = recordCodec(z.object({ name: z.unknown() }), [dictionaryOf(TEMPLATE)]);
    const strict = recordCodec(schema, [dictionaryOf(TEMPLATE)]);
    expect(() => strict.decode(loose.encode({ name: 42 }))).toThrow();
  });

  it('needs a dictionary', () => {
    expect(() => recordCodec(schema, [])).toThrow('at least one dictionary');
  });
});

describe('the entities codecs', () => {
  it('round-trip a realistic offer and keep it under 1 KB, so a listing write costs one write unit', () => {
    // Prepare: an offer with a full product nested, longer than 1 KB as JSON
    const record = offer({
      id: 123_456,
      offer_id: 'MKT-0000123456',
      seller_name: 'A seller with a fairly long trading name (Pty) Ltd',
      url: 'https://www.marketplace.example/some-product-title-with-many-words/PLID12345678?offer=MKT-0000123456',
      product: product({
        id: 98_765,
        code: 'SKU-000098765',
        title: 'Stainless steel electric kettle, 1.7 litres, with keep-warm function and limescale filter',
        description: 'A 1.7 l kettle with a concealed element, auto shut-off, boil-dry protection and a removable filter.',
        images: ['https://cdn.example.com/sku-98765/1.jpg', 'https://cdn.example.com/sku-98765/2.jpg', 'https://cdn.example.com/sku-98765/3.jpg'],
        fee_estimates: {
          takealot: {
            instock: { commission: 12.5, fulfilment: 45, commission_percentage: 12 },
            leadtime: { commission: 12.5, fulfilment: 60, commission_percentage: 12 },
          },
          amazon: {
            instock: { commission: 15, fulfilment: 38.5, commission_percentage: 15 },
            leadtime: { commission: 15, fulfilment: 52, commission_percentage: 15 },
          },
        },
      }),
    });
    expect(JSON.stringify(record).length).toBeGreaterThan(1_024);

    // Act
    const bytes = OFFER_LIST.codec.encode(record);

    // Assess
    expect(bytes.length).toBeLessThan(700);
    expect(OFFER_LIST.codec.decode(bytes)).toEqual(record);
  });

  it('round-trip a repricer', () => {
    const record = repricer({ id: 99, enabled: false });
    const bytes = REPRICER_LIST.codec.encode(record);
    expect(REPRICER_LIST.codec.decode(bytes)).toEqual(record);
    expect(bytes.length).toBeLessThan(700);
  });
});
