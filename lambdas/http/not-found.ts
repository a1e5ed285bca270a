import { notFound } from './errors.js';

/**
 * One 404 per resource kind, the same whether the id is unknown, another client's or
 * malformed: a response must not tell them apart.
 */
export const repricerNotFound = () => notFound('No repricer with this id exists for this client.');
export const offerNotFound = () => notFound('No offer with this id exists for this client.');
export const productNotFound = () => notFound('No product with this code exists for this client.');
export const importNotFound = () => notFound('No import with this id exists for this client.');
export const webhookNotFound = () => notFound('No webhook with this id exists for this client.');
export const priceChangeNotFound = () => notFound('No price change with this id exists for this client.');
