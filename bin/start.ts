/**
 * `npm start`: the whole API on http://localhost:${PORT:-3000}.
 *
 * - DynamoDB: `DYNAMODB_ENDPOINT` when set (nothing is started); otherwise DynamoDB Local in
 *   memory on ${DYNAMODB_PORT:-8000}, stopped again on Ctrl-C.
 * - Table: `TABLE_NAME` (default `repricer-local`), created from lambdas/config/table-schema.ts if missing.
 * - Demo client `demo` (seller id `1000001`, the simulator's seller; default connector `amazon`) with the demo
 *   catalogue and three enabled repricers on products with competitors (their first decisions
 *   are price changes by the time the server listens). Only the password's hash is stored, so
 *   when the client already exists (a persistent DYNAMODB_ENDPOINT) it gets a new password,
 *   printed like the first one, and its repricers are kept.
 * - The event-driven handlers (list maintenance and repricing, from the table's change stream)
 *   run in this process, from DynamoDB Local's stream, as Lambda would run them.
 * - The server listens on ${HOST:-127.0.0.1}: the demo credentials are printed in clear.
 * - The marketplace (tools/local/start-market.ts): the simulator on 127.0.0.1:${MARKET_PORT:-4000},
 *   started before anything reads the Takealot URLs, unless both are set already or
 *   `--no-market` is given. Once the API serves, the demo client is connected to it in live
 *   mode, its webhooks point at the connection, and after the first sync up to 20 synced
 *   products get repricers; the event runtime runs the market loop's schedule once a minute.
 *   `npm start -- --help` lists the flags.
 * - A DynamoDB on this machine gets the local per-attempt timeout (LOCAL_REQUEST_TIMEOUT_MS in
 *   lambdas/data/table/dynamo.ts), and a demo load it could not keep up with is tried again.
 */
import type { Server } from 'node:http';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { createTable, isTransientFailure, tableExists } from '../tools/local/create-table.js';
import { createLocalDynamoClient, DEFAULT_DYNAMODB_PORT, startDynamoDbLocal, type DynamoDbLocal } from '../tools/local/dynamodb-local.js';
import {
  DEMO_CONNECTOR,
  DEMO_SELLER_ID,
  demoCompetitorPriceDrop,
  demoConnectorTypeRecords,
  demoRecords,
  sampleRepricerRequest,
} from '../tools/local/demo-data.js';
import type { EventRuntime } from '../tools/local/event-runtime.js';
import { LOCAL_TABLE_NAME, TABLE_NAME_ENV } from '../lambdas/config/table-schema.js';
import { ALLOW_LOCAL_HTTP_ENV } from '../lambdas/domain/webhook-url.js';
import { useLocalSecretsKey } from '../tools/local/secrets-key.js';
import { parseStartOptions, StartOptionError, startUsage, type StartOptions } from '../tools/local/start-options.js';
import type { MarketSimulator } from '../tools/market/index.js';

const DEMO_USERNAME = 'demo';
const COMPETITOR_PRICE_FILE = 'docs/examples/competitor-price.ndjson';
const DEFAULT_PORT = 3000;

const portFromEnv = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`${name} must be a port number (1-65535), got "${raw}"`);
  return port;
};

const say = (line = '') => process.stdout.write(`${line}\n`);

/** The demo client's password: a new account's, or a fresh one for an existing account. */
const demoPassword = async (): Promise<string> => {
  const { ClientExistsError, changePassword, createClientAccount, generatePassword } = await import('../tools/admin/clients.js');
  try {
    const account = await createClientAccount({ username: DEMO_USERNAME, sellerId: DEMO_SELLER_ID, connector: DEMO_CONNECTOR });
    say(`Created client "${DEMO_USERNAME}" (seller id ${DEMO_SELLER_ID}, default connector ${DEMO_CONNECTOR}).`);
    return account.password;
  } catch (error) {
    if (!(error instanceof ClientExistsError)) throw error;
    const password = generatePassword();
    await changePassword(DEMO_USERNAME, password);
    say(`Client "${DEMO_USERNAME}" already existed: it has been given a new password.`);
    return password;
  }
};

/** How often the demo is loaded before the start fails, and the pause before each new try. */
const DEMO_LOAD_ATTEMPTS = 3;
const DEMO_RETRY_PAUSE_MS = 2_000;

/**
 * On a busy machine DynamoDB Local can answer later than even its longer timeout, or lose a
 * write's race: every demo step is idempotent (an existing client gets a new password,
 * unchanged records are skipped, existing repricers are kept), so the whole load is tried
 * again, a bounded number of times, before the start gives up. Other errors fail at once.
 */
const withDemoRetries = async <T>(load: () => Promise<T>): Promise<T> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await load();
    } catch (error) {
      if (attempt >= DEMO_LOAD_ATTEMPTS || !isTransientFailure(error)) throw error;
      process.stderr.write(
        `\nDynamoDB did not keep up (${(error as Error).name}: ${(error as Error).message}); loading the demo again (${attempt + 1} of ${DEMO_LOAD_ATTEMPTS})...\n`,
      );
      await new Promise((resolve) => setTimeout(resolve, DEMO_RETRY_PAUSE_MS * attempt));
    }
  }
};

const loadDemoData = async () => {
  const { importConnectorTypes, importRecords } = await import('../tools/admin/import.js');
  // Reference data first, as an operator would load it (`npm run cli -- connectors import`).
  const connectors = await importConnectorTypes(demoConnectorTypeRecords());
  const records = demoRecords();
  const summary = await importRecords(records, {
    username: DEMO_USERNAME,
    onProgress: (done, total) => process.stderr.write(`\rLoading demo data: offers ${done}/${total}`),
  });
  process.stderr.write('\n');
  const count = (type: string) => records.filter((r) => r.type === type).length;
  say(
    `Demo data: ${connectors.connectorTypes + connectors.unchangedConnectorTypes} connector types, ${count('product')} products, ${count('offer')} offers ` +
      `(${summary.offers} offers written, ${summary.unchangedOffers} already up to date).`,
  );
};

/** The demo repricers, created as POST /v1/repricers/ creates them; those the client already has are left as they are. */
const createDemoRepricers = async () => {
  const { ensureDemoRepricers } = await import('../tools/local/demo-repricers.js');
  const { productCodes, created } = await ensureDemoRepricers(DEMO_USERNAME);
  say(`Demo repricers on ${productCodes.join(', ')} (${created} created, ${productCodes.length - created} already there).`);
};

const listen = (server: Server | NetServer, port: number, host: string): Promise<void> =>
  new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new Error(`Port ${port} is already in use: set PORT to another one.`) : error),
    );
    server.listen(port, host, () => resolve());
  });

/** Checked first, so a busy port fails in a second rather than after DynamoDB and the data load. */
const assertPortFree = async (port: number, host: string): Promise<void> => {
  const probe = createNetServer();
  await listen(probe, port, host);
  await new Promise((resolve) => probe.close(resolve));
};

const printUsage = (baseUrl: string, password: string, cliEnvironment: string) => {
  const auth = `${DEMO_USERNAME}:${password}`;
  const drop = demoCompetitorPriceDrop();
  const code = drop.repricer.request.product_code;
  const competitor = drop.line.type === 'offer' ? drop.line.data : undefined;
  const body = JSON.stringify({ ...sampleRepricerRequest(), buybox_approach: 'cheapest', repricer_approach: 'fixed', enabled: true });
  say();
  say(`Repricer API on ${baseUrl}`);
  say(`  username: ${DEMO_USERNAME}`);
  say(`  password: ${password}`);
  say(`  API reference: ${baseUrl}/docs (OpenAPI document: ${baseUrl}/v1/openapi.json)`);
  say();
  say("List offers (your five most expensive; add _include_other_offers=true for competitors' offers):");
  say(`  curl -u '${auth}' '${baseUrl}/v1/offers?_limit=5&_sort=offer_price:DESC'`);
  say(`  curl -u '${auth}' '${baseUrl}/v1/offers?competitiveness=high&total_competitors_gte=10&_include_other_offers=true'`);
  say('Create a repricer:');
  say(`  curl -u '${auth}' -X POST '${baseUrl}/v1/repricers/' -H 'Content-Type: application/json' -d '${body}'`);
  say();
  say("Automated repricing (docs/repricing.md): the demo repricers' decisions so far,");
  say(`  curl -u '${auth}' '${baseUrl}/v1/price-changes?_sort=created_at:DESC'`);
  say(`then a competitor on ${code} lowers its price to ${competitor?.offer_price.toFixed(2)} (${COMPETITOR_PRICE_FILE}), in another terminal:`);
  say(`  ${cliEnvironment}npm run cli -- import ${COMPETITOR_PRICE_FILE} --client ${DEMO_USERNAME}`);
  say(`and the repricer undercuts it (new price ${drop.expected.price.toFixed(2)}, reason ${drop.expected.reason}):`);
  say(`  curl -u '${auth}' '${baseUrl}/v1/price-changes?product_code=${code}&_sort=created_at:DESC&_limit=1'`);
};

/** What Ctrl-C stops: everything this process started. */
const stopLine = (stops: readonly string[]): string => `Ctrl-C stops ${stops.length > 1 ? `${stops.slice(0, -1).join(', ')} and ${stops.at(-1)}` : stops[0]}.`;

/** The flags and environment, or the help or the mistake printed and the process ended. */
const startOptions = (): StartOptions => {
  try {
    const options = parseStartOptions(process.argv.slice(2), process.env);
    if (options.help) {
      say(startUsage());
      process.exit(0);
    }
    return options;
  } catch (error) {
    if (!(error instanceof StartOptionError)) throw error;
    process.stderr.write(`npm start: ${error.message}\n`);
    process.exit(2);
  }
};

const main = async () => {
  const options = startOptions();
  const port = portFromEnv('PORT', DEFAULT_PORT);
  const host = process.env.HOST || '127.0.0.1';
  let dynamo: DynamoDbLocal | undefined;
  let server: Server | undefined;
  let events: EventRuntime | undefined;
  let market: MarketSimulator | undefined;

  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) process.exit(code);
    stopping = true;
    server?.closeAllConnections();
    server?.close();
    await events?.stop();
    await market?.stop();
    await dynamo?.stop();
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown(130));
  process.on('SIGTERM', () => void shutdown(143));

  try {
    await assertPortFree(port, host);
    const { MARKET_TICK_MS, printGivenMarketUsage, runMarketDemo, startDemoMarket } = await import('../tools/local/start-market.js');
    if (options.market.kind === 'simulator') {
      // Before the event runtime and the API: the registry reads the Takealot URLs it sets on every call.
      market = await startDemoMarket(options.market);
      say(`Started the marketplace simulator on ${market.url} (seed ${market.options.seed}).`);
    } else if (options.market.kind === 'given') {
      say(`Using the marketplace at ${options.market.sellerApiUrl} (seller API) and ${options.market.storefrontUrl} (storefront).`);
    }
    let endpoint = process.env.DYNAMODB_ENDPOINT;
    if (endpoint) {
      say(`Using DynamoDB at ${endpoint}`);
    } else {
      const dynamoPort = portFromEnv('DYNAMODB_PORT', DEFAULT_DYNAMODB_PORT);
      say(`Starting DynamoDB Local (in memory) on port ${dynamoPort}...`);
      dynamo = await startDynamoDbLocal({ port: dynamoPort });
      endpoint = dynamo.endpoint;
    }
    const tableName = process.env[TABLE_NAME_ENV] || LOCAL_TABLE_NAME;
    // The document client reads these when its module loads: set before anything imports it.
    process.env.DYNAMODB_ENDPOINT = endpoint;
    process.env[TABLE_NAME_ENV] = tableName;
    process.env.AWS_REGION ||= 'local';
    // Local only (the stack never sets it): webhooks may also point at http://127.0.0.1 or localhost.
    process.env[ALLOW_LOCAL_HTTP_ENV] = 'true';
    // Local only: webhook secrets are sealed under a local key instead of KMS.
    useLocalSecretsKey();

    const client = createLocalDynamoClient(endpoint);
    if (await tableExists(client, tableName)) {
      say(`Table ${tableName} exists.`);
    } else {
      await createTable(client, tableName);
      say(`Created table ${tableName}.`);
    }
    client.destroy();

    const { startEventRuntime } = await import('../tools/local/event-runtime.js');
    // The market loop's schedule, as EventBridge runs it on AWS; not without a marketplace. (A
    // spread: the option is the event runtime's market-loop setting.)
    const marketLoop = options.market.kind === 'none' ? {} : { market: { tickMs: MARKET_TICK_MS } };
    events = await startEventRuntime({
      endpoint,
      tableName,
      ...marketLoop,
      onError: (error) => process.stderr.write(`Event handlers: ${error.message}\n`),
    });

    const password = await withDemoRetries(async () => {
      const given = await demoPassword();
      await loadDemoData();
      await createDemoRepricers();
      return given;
    });
    // The repricers' first decisions are recorded and listed before the server takes requests.
    await events.settle();

    const { createLocalServer } = await import('../tools/local/server.js');
    server = createLocalServer();
    await listen(server, port, host);
    // The CLI finds DynamoDB Local on its default port and the default table by itself.
    const cliEnvironment =
      endpoint === `http://localhost:${DEFAULT_DYNAMODB_PORT}` && tableName === LOCAL_TABLE_NAME
        ? ''
        : `DYNAMODB_ENDPOINT=${endpoint} TABLE_NAME=${tableName} `;
    const publicUrl = `http://${host === '127.0.0.1' || host === '0.0.0.0' ? 'localhost' : host}:${port}`;
    printUsage(publicUrl, password, cliEnvironment);
    if (options.market.kind === 'given') printGivenMarketUsage(publicUrl, [DEMO_USERNAME, password], say);
    if (market) {
      const progress = (text: string) => process.stderr.write(text === '\n' ? text : `\r${text}`);
      // The API keeps serving whatever happens here: the seller can still connect by hand.
      await runMarketDemo({
        market,
        host,
        port,
        publicUrl,
        auth: [DEMO_USERNAME, password],
        say,
        progress,
        tickNow: () => events?.tickMarket() ?? Promise.resolve(),
      }).catch((error: unknown) => process.stderr.write(`\nThe market demo stopped: ${error instanceof Error ? error.message : String(error)}\n`));
    }
    say();
    say(stopLine(['the server', ...(market ? ['the marketplace simulator'] : []), ...(dynamo ? ['DynamoDB Local'] : [])]));
  } catch (error) {
    process.stderr.write(`\nnpm start failed: ${error instanceof Error ? error.message : String(error)}\n`);
    await shutdown(1);
  }
};

void main();
