import type { StreamChange } from '../shared/data/change-records.js';
import type { ImportJobMessage } from '../shared/events/import-jobs.js';
import type { ListChangesMessage, RepricingMessage } from '../shared/events/list-changes.js';

/**
 * Where a kind of change goes: each route collects, per tenant and stream batch, what its
 * queue's consumer needs to hear about, and turns it into messages for that tenant's group.
 */
export interface ChangeRoute<W> {
  /** The queue it sends to (a key of the senders the forwarder is given). */
  readonly queue: string;
  readonly start: (clientId: string) => W;
  readonly add: (work: W, change: StreamChange) => void;
  readonly messages: (work: W) => readonly unknown[];
}

/** One route's work for one tenant, its type hidden: what the forwarder holds. */
export interface RouteWork {
  readonly queue: string;
  add(change: StreamChange): void;
  messages(): readonly unknown[];
}

export interface RouteStarter {
  readonly queue: string;
  begin(clientId: string): RouteWork;
}

export const defineRoute = <W>(route: ChangeRoute<W>): RouteStarter => ({
  queue: route.queue,
  begin: (clientId) => {
    const work = route.start(clientId);
    return { queue: route.queue, add: (change) => route.add(work, change), messages: () => route.messages(work) };
  },
});

const MAX_ITEMS_PER_MESSAGE = 500;

export const chunk = <T>(values: readonly T[]): T[][] =>
  values.length === 0 ? [] : Array.from({ length: Math.ceil(values.length / MAX_ITEMS_PER_MESSAGE) }, (_, i) => values.slice(i * MAX_ITEMS_PER_MESSAGE, (i + 1) * MAX_ITEMS_PER_MESSAGE));

/** To the list maintainer: offers, products and price changes whose listings may need work; rebuild steps. */
export const listsRoute: ChangeRoute<ListChangesMessage> = {
  queue: 'lists',
  start: (clientId) => ({ clientId, offers: [], products: [], priceChanges: [], rebuilds: [] }),
  add: (work, change) => {
    if (change.kind === 'offer') work.offers.push({ ...change.hint, cells: [...change.hint.cells] });
    if (change.kind === 'product') work.products.push(change.code);
    if (change.kind === 'priceChange') work.priceChanges.push(change.hint);
    if (change.kind === 'rebuild') work.rebuilds.push(change.requestId);
  },
  // A rebuild step goes alone: each message is one pass of the maintainer, counted once per node.
  messages: (work) => {
    const empty = { clientId: work.clientId, offers: [], products: [], priceChanges: [], rebuilds: [] };
    return [
      ...work.rebuilds.map((requestId) => ({ ...empty, rebuilds: [requestId] })),
      ...chunk(work.offers).map((offers) => ({ ...empty, offers })),
      ...chunk(work.products).map((products) => ({ ...empty, products })),
      ...chunk(work.priceChanges).map((priceChanges) => ({ ...empty, priceChanges })),
    ];
  },
};

/** To the repricing evaluator: products whose offers or repricers changed. */
export const repricingRoute: ChangeRoute<{ clientId: string; products: Set<string> }> = {
  queue: 'repricing',
  start: (clientId) => ({ clientId, products: new Set() }),
  add: (work, change) => {
    if (change.kind === 'offer') for (const code of change.products) work.products.add(code);
    if (change.kind === 'slot') work.products.add(change.code);
  },
  messages: (work): RepricingMessage[] => chunk([...work.products]).map((products) => ({ clientId: work.clientId, products })),
};

/** To the import worker: jobs that were just created `pending` (their later progress is the worker's own). */
export const importsRoute: ChangeRoute<{ clientId: string; ids: number[] }> = {
  queue: 'imports',
  start: (clientId) => ({ clientId, ids: [] }),
  add: (work, change) => {
    if (change.kind === 'import' && change.after === 'pending' && change.before === undefined) work.ids.push(change.id);
  },
  messages: (work): ImportJobMessage[] => work.ids.map((importId) => ({ clientId: work.clientId, importId })),
};

export const CHANGE_ROUTES: readonly RouteStarter[] = [defineRoute(listsRoute), defineRoute(repricingRoute), defineRoute(importsRoute)];
