/**
 * `npm run market -- --port 4000 --seed 1 ...`: the marketplace simulator on its own (see
 * docs/market-simulator.md; `--help` lists every option). Prints its URLs and the demo seller's
 * API key once; stops on Ctrl-C, or by itself after --lifetime-ms.
 */
import { parseMarketArgs, helpText } from '../tools/market/cli-args.js';
import { createMarketSimulator, DEFAULT_SHAPES } from '../tools/market/index.js';
import { MarketOptionError } from '../tools/market/options.js';

const say = (line = '') => process.stdout.write(`${line}\n`);

const main = async (): Promise<void> => {
  const { help, options } = parseMarketArgs(process.argv.slice(2));
  if (help) {
    say(helpText());
    return;
  }
  const market = await createMarketSimulator(options);
  const { options: resolved } = market;
  const firstPlid = market.simulation.market.products[0]?.plid;
  say(`Marketplace simulator on ${market.url} (seed ${resolved.seed}, ${resolved.products} products, ${resolved.competitors} competitors each)`);
  say(`  Seller API:  ${market.sellerApiUrl}/offers   (header X-API-Key)`);
  say(`  API key:     ${market.apiKey}   (printed once; the seller id is ${resolved.sellerId})`);
  for (const seller of market.sellers.slice(1)) {
    // Only the demo seller's key is printed whole; the other accounts' keys are for callers in this process.
    say(`  Seller:      ${seller.sellerId} (${seller.displayName}), key ending ${seller.apiKey.slice(-4)}`);
  }
  say(`  Storefront:  ${market.storefrontUrl}/rest/v-1-10-0/product-details/PLID${firstPlid ?? '<plid>'}`);
  say(`  Control:     ${market.url}/_control/state  (tests and benchmarks only)`);
  say(
    resolved.webhook.url === undefined
      ? '  Webhooks:    off (--webhook-url http://127.0.0.1:PORT/... to send them)'
      : `  Webhooks:    ${resolved.webhook.url}, ${resolved.webhook.signature} signatures, secret ${market.webhookSecret}`,
  );
  const reported = Object.entries(resolved.shapes).filter(([key, value]) => DEFAULT_SHAPES[key as keyof typeof DEFAULT_SHAPES] !== value);
  say(`  Shapes:      ${reported.length === 0 ? 'the defaults' : reported.map(([key, value]) => `${key}=${String(value)}`).join(', ')}`);
  say(
    `  Bots tick every ${resolved.tickIntervalMs} ms (at most ${resolved.maxTicks} ticks); batches settle after ${resolved.batchDelayMs} ms; stops after ${resolved.lifetimeMs} ms.`,
  );
  const stop = () => {
    void market.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
};

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof MarketOptionError ? error.message : String(error)}\n`);
  process.exit(1);
});
