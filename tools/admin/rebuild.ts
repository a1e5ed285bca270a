import { getClient, listUsernames } from '../../lambdas/data/clients/clients.js';
import { readRebuild, startRebuild, type RebuildRequest } from '../../lambdas/data/tenants/rebuild.js';

/**
 * `npm run cli -- rebuild [--client U]`: asks the list maintainer to re-derive a client's
 * listings and counts (see lambdas/data/tenants/rebuild.ts) and follows its progress. The
 * maintainer runs in `npm start` or in the deployed stack, not here.
 */
const POLL_MS = 250;
/** A request nobody advances within this time means no maintainer is running. */
const STALL_MS = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const rebuildClient = async (username: string, onProgress: (request: RebuildRequest) => void = () => {}): Promise<RebuildRequest> => {
  const client = await getClient(username);
  if (!client) throw new Error(`No client named "${username}"`);
  const requestId = await startRebuild(client.clientId);
  let lastChange = Date.now();
  let last = '';
  for (;;) {
    await sleep(POLL_MS);
    const request = await readRebuild(client.clientId, requestId);
    if (!request) throw new Error('The rebuild request disappeared');
    if (request.updatedAt !== last) {
      last = request.updatedAt;
      lastChange = Date.now();
      onProgress(request);
    }
    if (request.status !== 'running') return request;
    if (Date.now() - lastChange > STALL_MS) {
      throw new Error('No list maintainer took up the rebuild within a minute: is `npm start` (or the deployed stack) running against this table?');
    }
  }
};

export const rebuildAll = async (onProgress: (username: string, request: RebuildRequest) => void = () => {}): Promise<number> => {
  const usernames = await listUsernames();
  for (const username of usernames) await rebuildClient(username, (request) => onProgress(username, request));
  return usernames.length;
};

export const describeProgress = (request: RebuildRequest): string => {
  switch (request.phase) {
    case 'products':
      return `relisting: ${request.products} products done`;
    case 'sweep':
      return `checking listings: ${request.listingsChecked} checked, ${request.listingsRemoved} removed, ${request.sweep.length} partitions to go`;
    case 'count':
      return 'recounting';
    case 'done':
      return `done: ${request.products} products, ${request.listingsChecked} listings checked, ${request.listingsRemoved} removed, ${request.nodesWritten} count nodes rewritten`;
  }
};
