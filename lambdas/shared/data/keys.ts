/**
 * Every key of the single table is built here. `T#<clientId>` prefixes everything a tenant
 * owns, so no key of one client can ever address another client's items.
 */
const tenant = (clientId: string) => `T#${clientId}`;

/** Key parts that come from client data are URI-encoded so they cannot contain `#`. */
export const part = (value: string): string => encodeURIComponent(value);

/**
 * Everything the authorizer reads or writes sits in the user name's `CLIENT#` partition, so
 * access to it can be granted by key prefix (IAM `dynamodb:LeadingKeys`).
 */
const clientPartition = (username: string) => `CLIENT#${part(username)}`;
export const clientKey = (username: string) => ({ pk: clientPartition(username), sk: 'CLIENT' });
/** Sort-key prefix of a user name's login-attempt counters (one per source address and window). */
export const LOGIN_ATTEMPTS_PREFIX = 'LOGIN#';
/**
 * The login attempts of one user name from one source address (`source`: a fixed-width hex
 * digest) in one fixed window (`window`: its number since the epoch).
 */
export const loginAttemptsKey = (username: string, source: string, window: number) => ({
  pk: clientPartition(username),
  sk: `${LOGIN_ATTEMPTS_PREFIX}${source}#${window}`,
});
export const loginAttemptsPartition = clientPartition;
export const counterKey = (name: string) => ({ pk: `COUNTER#${name}`, sk: 'COUNTER' });
export const connectorKey = (uid: string) => ({ pk: `CONNECTOR#${part(uid)}`, sk: 'CONNECTOR' });
export const productKey = (clientId: string, code: string) => ({ pk: `${tenant(clientId)}#P#${part(code)}`, sk: 'PRODUCT' });
export const repricerKey = (clientId: string, id: number) => ({ pk: `${tenant(clientId)}#R#${id}`, sk: 'REPRICER' });
/** Uniqueness guard: one repricer per (client, product, connector). */
export const repricerSlotKey = (clientId: string, productCode: string, connectorUid: string) => ({
  pk: `${tenant(clientId)}#RSLOT#${part(productCode)}#${part(connectorUid)}`,
  sk: 'SLOT',
});
/** The offer's canonical record, found by its marketplace id for upserts. */
export const offerKey = (clientId: string, offerId: string) => ({ pk: `${tenant(clientId)}#OID#${part(offerId)}`, sk: 'OFFER' });
/** One item per offer under its product, so a product change can reach its offers. */
export const productOfferKey = (clientId: string, productCode: string, idKey: string) => ({
  pk: `${tenant(clientId)}#PO#${part(productCode)}`,
  sk: idKey,
});
export const productOffersPartition = (clientId: string, productCode: string) => `${tenant(clientId)}#PO#${part(productCode)}`;

/** An offer view: one of the partitions an offer is listed in (see data/offer-views.ts). */
export const offerViewPartition = (clientId: string, view: string) => `${tenant(clientId)}#OV#${view}`;
/** The rank directory of one view in one sort order: bucket bounds and counts. */
export const rankDirectoryKey = (clientId: string, view: string, sort: string) => ({ pk: `${tenant(clientId)}#ODIR#${view}`, sk: sort });
/** A repricer view: one of the partitions a repricer is listed in (see data/repricer-keys.ts). */
export const repricerViewPartition = (clientId: string, view: string) => `${tenant(clientId)}#RV#${view}`;
/** The rank directory of one repricer view in one sort order. */
export const repricerDirectoryKey = (clientId: string, view: string, sort: string) => ({ pk: `${tenant(clientId)}#RDIR#${view}`, sk: sort });
