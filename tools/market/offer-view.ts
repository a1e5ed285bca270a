/**
 * The own offer as the v1 seller API shows it: the listed fields always, the warehouse stock
 * only when `expands` asks for it, and only the `fields` asked for when that is given.
 */
import type { OwnOffer } from './catalogue.js';

export const EXPANDABLE = ['seller_warehouse_stock', 'takealot_warehouse_stock'] as const;
type Expandable = (typeof EXPANDABLE)[number];

export interface OfferViewOptions {
  expands: ReadonlySet<string>;
  /** Undefined: every field. */
  fields: ReadonlySet<string> | undefined;
}

const listParam = (value: string | null): Set<string> | undefined =>
  value === null || value.trim() === ''
    ? undefined
    : new Set(
        value
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean),
      );

export const viewOptionsFrom = (params: URLSearchParams): OfferViewOptions => ({
  expands: listParam(params.get('expands')) ?? new Set(),
  fields: listParam(params.get('fields')),
});

export const offerView = (offer: OwnOffer, options: OfferViewOptions): Record<string, unknown> => {
  const { seller_warehouse_stock, takealot_warehouse_stock, listed_at, ...base } = offer;
  const view: Record<string, unknown> = { ...structuredClone(base), date_created: new Date(listed_at).toISOString() };
  const stock: Record<Expandable, unknown> = { seller_warehouse_stock, takealot_warehouse_stock };
  for (const name of EXPANDABLE) if (options.expands.has(name)) view[name] = structuredClone(stock[name]);
  if (options.fields === undefined) return view;
  // offer_id always stays: without it a partial item could not be told apart from another.
  return Object.fromEntries(Object.entries(view).filter(([key]) => key === 'offer_id' || options.fields!.has(key) || EXPANDABLE.includes(key as Expandable)));
};
