import type { APIGatewayProxyEvent } from 'aws-lambda';

/** The authenticated client, as the authorizer puts it in the request context. */
export interface Tenant {
  readonly clientId: string;
  readonly username: string;
  readonly sellerId: string;
  readonly defaultConnector: string;
}

/** Authorizer context values are strings; these are the keys the authorizer sets. */
export const tenantContext = (tenant: Tenant): Record<string, string> => ({
  clientId: tenant.clientId,
  username: tenant.username,
  sellerId: tenant.sellerId,
  defaultConnector: tenant.defaultConnector,
});

/** The tenant of a request that passed the authorizer; a missing one is a wiring bug (500). */
export const tenantOf = (event: APIGatewayProxyEvent): Tenant => {
  const context = event.requestContext?.authorizer ?? {};
  const { clientId, username, sellerId, defaultConnector } = context as Record<string, unknown>;
  if (typeof clientId !== 'string' || typeof username !== 'string' || typeof sellerId !== 'string' || typeof defaultConnector !== 'string') {
    throw new Error('Request reached a handler without an authorizer context');
  }
  return { clientId, username, sellerId, defaultConnector };
};
