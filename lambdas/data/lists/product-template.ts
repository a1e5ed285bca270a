import type { Product } from '../../domain/records.js';

/**
 * The product nested in an offer's and a repricer's listing, as both lists' dictionaries encode
 * it (ranked/record-codec.ts): field for field as written when the lists were first stored, so
 * listings encoded with it still decode. Never reorder or edit; a new field goes in a new
 * dictionary version.
 */
export const PRODUCT_TEMPLATE: Product = {
  id: 0,
  code: '',
  title: '',
  description: '',
  brand: '',
  colour: '',
  barcode: '',
  type: null,
  material: null,
  parent_code: null,
  images: null,
  main_image: 'https://',
  retail_price: 0,
  soh: 0,
  height_cm: 0,
  length_cm: 0,
  width_cm: 0,
  weight_g: 0,
  fee_estimates: {
    '': { instock: { commission: 0, fulfilment: 0, commission_percentage: 0 }, leadtime: { commission: 0, fulfilment: 0, commission_percentage: 0 } },
  },
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};
