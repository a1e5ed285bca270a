import * as z from 'zod';

/** Query-parameter pieces every list operation shares: paging and `_sort` (docs/api.md). */
export type SortDirection = 'ASC' | 'DESC';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 100;
export const MAX_START = 1_000_000_000;

/** Decimal digits only: signs, decimals and exponents are refused, never coerced. */
export const integerText = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,10}$/, `${name} must be an integer between ${min} and ${max}.`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `${name} must be an integer between ${min} and ${max}.`);

/** `field`, `field:ASC` or `field:DESC`: the field in lower case, the direction in any case. */
export const sortText = <F extends string>(fields: readonly F[]) => {
  const pattern = new RegExp(`^(${fields.join('|')})(?::(asc|desc))?$`, 'i');
  return z
    .string()
    .regex(pattern, `_sort must be one of ${fields.join(', ')}, optionally followed by :ASC or :DESC.`)
    .refine((text) => (fields as readonly string[]).includes(text.split(':')[0] ?? ''), {
      message: `_sort field must be one of ${fields.join(', ')} (lower case).`,
    })
    .transform((text) => {
      const [field, direction = 'ASC'] = text.split(':');
      return { field: field as F, direction: direction.toUpperCase() as SortDirection };
    });
};

export const limitText = integerText('_limit', 1, MAX_LIMIT);
export const startText = integerText('_start', 0, MAX_START);
