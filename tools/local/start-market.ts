/**
 * `npm start`'s marketplace: the simulator it starts (unless told otherwise, tools/local/
 * start-options.ts), and the steps after the API is up: connect the demo client in live mode,
 * point the simulator's webhooks at the connection, wait for the first sync, create the market
 * repricers, and say what to watch.
 */
import { TAKEALOT_SELLER_API_URL_ENV, TAKEALOT_STOREFRONT_URL_ENV } from '../../lambdas/marketplace/registry.js';
import { createMarketSimulator, type MarketSimulator } from '../market/index.js';
import { shapePreset } from '../market/shapes.js';
import { connectDemoClient, loopbackApiUrl, readMarketState, waitForSyncedOffers, type Credentials } from './demo-connection.js';
import { DEMO_MARKET_CONNECTOR, demoMarketRepricers } from './demo-market.js';
import { DEMO_SELLER_ID } from './demo-data.js';
import type { MarketChoice } from './start-options.js';

/** The event runtime's market loop period: the stack's schedule, once a minute. */
export const MARKET_TICK_MS = 60_000;
/** The first own-offer sync runs on the first tick after connecting: a minute, and the sync itself. */
const FIRST_SYNC_TIMEOUT_MS = 3 * 60_000;
const FIRST_SYNC_POLL_MS = 5_000;

/**
 * Starts the simulator on 127.0.0.1 as the demo seller's marketplace and points the Takealot
 * URLs at it; they are read per call (the registry), so set before the API serves anything.
 */
export const startDemoMarket = async (choice: Extract<MarketChoice, { kind: 'simulator' }>): Promise<MarketSimulator> => {
  let market: MarketSimulator;
  try {
    market = await createMarketSimulator({
      host: '127.0.0.1',
      port: choice.port,
      seed: choice.seed,
      tickIntervalMs: choice.tickMs,
      shapes: shapePreset(choice.shapes),
      sellerId: DEMO_SELLER_ID,
      sellers: choice.sellers ?? 1,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new Error(`Port ${choice.port} is already in use: set MARKET_PORT to another one.`);
    throw error;
  }
  process.env[TAKEALOT_SELLER_API_URL_ENV] = market.sellerApiUrl;
  process.env[TAKEALOT_STOREFRONT_URL_ENV] = market.storefrontUrl;
  return market;
};

export interface MarketDemoInput {
  readonly market: MarketSimulator;
  /** The API as this process reaches it, and as the seller's curl lines should show it. */
  readonly host: string;
  readonly port: number;
  readonly publicUrl: string;
  readonly auth: Credentials;
  readonly say: (line?: string) => void;
  readonly progress: (text: string) => void;
  /** Runs the market schedule's tick now: the first sync starts at once instead of at the next minute. */
  readonly tickNow?: () => Promise<void>;
}

/** The demo client connected, synced and repriced on the simulator; what went wrong is said, never thrown (the API keeps serving). */
export const runMarketDemo = async (input: MarketDemoInput): Promise<void> => {
  const { market, say, auth } = input;
  // The data layer reads DYNAMODB_ENDPOINT when it loads: imported here, once `npm start` has set it
  // (this module is loaded earlier, to start the simulator).
  const { getClient } = await import('../../lambdas/data/clients/clients.js');
  const { ensureMarketRepricers } = await import('./demo-repricers.js');
  // A client kept from an older start (a persistent DYNAMODB_ENDPOINT) may have another seller id:
  // then the pages' own offers look like a competitor's, and the repricers would chase them.
  const client = await getClient(auth[0]);
  if (client && client.sellerId !== market.options.sellerId) {
    say(
      `Note: client "${auth[0]}" has seller id ${client.sellerId}, the simulator's seller is ${market.options.sellerId}: its own offers will look like a competitor's.`,
    );
  }
  const webhookApiUrl = loopbackApiUrl(input.host, input.port);
  const apiUrl = webhookApiUrl ?? input.publicUrl;
  say();
  say(`Marketplace simulator on ${market.url} (seed ${market.options.seed}, ${market.options.products} products): connecting the demo client in live mode...`);
  const { connection, webhookUrl } = await connectDemoClient({
    apiUrl,
    auth,
    apiKey: market.apiKey,
    webhookSecret: market.webhookSecret,
    sellerId: market.options.sellerId,
    setWebhookUrl: (url) => market.setWebhookUrl(url),
    ...(webhookApiUrl === undefined ? {} : { webhookApiUrl }),
  });
  say(`Connected: ${DEMO_MARKET_CONNECTOR} connection ${connection.uid}, mode ${connection.mode}, key ...${connection.key_last4}.`);
  await input.tickNow?.();
  say(
    webhookUrl
      ? `The simulator's webhooks go to ${webhookUrl}.`
      : `No webhooks: the simulator sends only to 127.0.0.1 or [::1], and the API listens on ${input.host}.`,
  );

  const state = await readMarketState(market.url);
  if (!state) throw new Error(`the simulator's state (${market.url}/_control/state) could not be read`);
  const codes = new Set(state.products.map((p) => p.own.sku));
  const synced = await waitForSyncedOffers({
    apiUrl,
    auth,
    codes,
    timeoutMs: FIRST_SYNC_TIMEOUT_MS,
    intervalMs: FIRST_SYNC_POLL_MS,
    onProgress: (found, expected, elapsed) =>
      input.progress(`Waiting for the first market sync: ${found}/${expected} offers (${Math.round(elapsed / 1000)} s)`),
  });
  input.progress('\n');
  if (synced.size === 0) {
    say(
      `The first sync brought no offers within ${FIRST_SYNC_TIMEOUT_MS / 60_000} minutes: no market repricers were created (see the connection's last_error).`,
    );
  } else {
    // Read again: the market has moved while the sync ran.
    const requests = demoMarketRepricers((await readMarketState(market.url)) ?? state, synced);
    const { created, productCodes } = await ensureMarketRepricers(auth[0], requests);
    say(
      `${synced.size} offers synced; market repricers on ${productCodes.length} of them (${created} created, ${productCodes.length - created} already there).`,
    );
  }
  await connectMoreSellers(input, apiUrl);
  printMarketUsage(input, webhookUrl);
};

/** The username of the demo client of the simulator's `index`-th seller account (from 0: the demo client itself). */
export const demoSellerUsername = (index: number): string => `demo-seller-${index + 1}`;

/**
 * With several seller accounts (`--sellers`): one more demo client per account after the first,
 * created as the operator's CLI does (a new password when it exists already), and connected to its
 * account in live mode, so the storefront pages the loop reads serve several sellers. The
 * simulator sends its webhooks to one URL (the demo client's): these connections learn every
 * change from their syncs. The clients have no repricers; their offers are synced and read.
 */
const connectMoreSellers = async ({ market, auth, say, tickNow }: MarketDemoInput, apiUrl: string): Promise<void> => {
  const others = market.sellers.slice(1);
  if (others.length === 0) return;
  const { ClientExistsError, changePassword, createClientAccount, generatePassword } = await import('../admin/clients.js');
  say();
  say(`${others.length} more seller accounts on the simulator, each a demo client connected in live mode:`);
  for (const [offset, seller] of others.entries()) {
    const username = demoSellerUsername(offset + 1);
    let password: string;
    try {
      password = (await createClientAccount({ username, sellerId: seller.sellerId, connector: DEMO_MARKET_CONNECTOR })).password;
    } catch (error) {
      if (!(error instanceof ClientExistsError)) throw error;
      password = generatePassword();
      await changePassword(username, password);
    }
    const { connection } = await connectDemoClient({
      apiUrl,
      auth: [username, password],
      apiKey: seller.apiKey,
      webhookSecret: market.webhookSecret,
      sellerId: seller.sellerId,
    });
    const offers = market.simulation.market.accountSeats(offset + 1).length;
    say(`  ${username}:${password}  seller id ${seller.sellerId}, ${offers} offers, connection ${connection.uid} (key ...${connection.key_last4})`);
  }
  say(`  (the demo client "${auth[0]}" is the first account, seller id ${market.options.sellerId})`);
  await tickNow?.();
};

const printMarketUsage = ({ market, publicUrl, auth, say }: MarketDemoInput, webhookUrl: string | undefined) => {
  const user = `${auth[0]}:${auth[1]}`;
  say();
  say(`Watch the market loop (docs/local-run.md): own offers sync every 15 minutes, the pages of repriced products every 2,`);
  say('and the repricers decide on what the pages show. The connection (status, last_sync_at, offers_synced):');
  say(`  curl -u '${user}' '${publicUrl}/v1/connections/${DEMO_MARKET_CONNECTOR}'`);
  say('Offers with their buy-box fields (competitiveness, winning, winning_price, total_competitors), latest first:');
  say(`  curl -u '${user}' '${publicUrl}/v1/offers?_sort=updated_at:DESC&_limit=5&_include_other_offers=true'`);
  say('Price changes: decided, sent to the simulator and applied within seconds (status, sent_price, applied_at):');
  say(`  curl -u '${user}' '${publicUrl}/v1/price-changes?_sort=created_at:DESC&_limit=10'`);
  say(`  curl -u '${user}' '${publicUrl}/v1/price-changes?status=applied&_sort=created_at:DESC&_limit=10'`);
  say('Own offers that hold a buy-box slot or are within one price step of it (see "winning" on each):');
  say(`  curl -u '${user}' '${publicUrl}/v1/offers?competitiveness=high&_limit=20'`);
  say('The kill switch (no API key and no marketplace call needed): nothing more is sent after it.');
  say(`  curl -u '${user}' -X PATCH '${publicUrl}/v1/connections/${DEMO_MARKET_CONNECTOR}' -H 'Content-Type: application/json' -d '{"mode":"suggest"}'`);
  say('The market as the simulator holds it, and every price it has received:');
  say(`  curl '${market.url}/_control/state'`);
  say(`  curl '${market.url}/_control/prices'`);
  say(`Move the competitors' bots now (they move every ${market.options.tickIntervalMs / 1000} s anyway):`);
  say(`  curl -X POST '${market.url}/_control/tick' -H 'Content-Type: application/json' -d '{"count":5}'`);
  if (webhookUrl) say(`The webhooks it sent to ${webhookUrl}:\n  curl '${market.url}/_control/webhooks'`);
};

/** With the Takealot URLs given, nothing is connected for the client: the key is the seller's to give. */
export const printGivenMarketUsage = (publicUrl: string, auth: Credentials, say: (line?: string) => void): void => {
  say();
  say(`Marketplace: ${TAKEALOT_SELLER_API_URL_ENV} and ${TAKEALOT_STOREFRONT_URL_ENV} are set, so no simulator was started. Connect with its key:`);
  say(
    `  curl -u '${auth[0]}:${auth[1]}' -X PUT '${publicUrl}/v1/connections/${DEMO_MARKET_CONNECTOR}' -H 'Content-Type: application/json' -d '{"api_key":"<its API key>","mode":"live"}'`,
  );
};
