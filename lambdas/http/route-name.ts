import { ROUTES } from '../config/routes.js';

/** Events that match no route (tests, or a gateway change that outran the code). */
export const UNKNOWN_ROUTE = 'Unknown';

/**
 * The route's name from the route table, found by the resource template API Gateway passes (in
 * a proxy event and in a REQUEST authorizer's event alike).
 */
export const routeNameOf = (event: { readonly httpMethod?: string | null; readonly resource?: string | null }): string =>
  ROUTES.find((route) => route.method === event.httpMethod?.toUpperCase() && route.path === event.resource)?.name ?? UNKNOWN_ROUTE;
