/**
 * The signature check of docs/webhooks.md, exactly as a reader copies it: the fenced block after
 * the `signature-example` marker, written to a module and run by a separate Node process.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const DOC = new URL('../../docs/webhooks.md', import.meta.url);

export const signatureExample = (): string => {
  const text = readFileSync(DOC, 'utf8');
  const match = /<!-- signature-example -->\n```js\n([\s\S]*?)\n```/.exec(text);
  if (!match?.[1]) throw new Error('docs/webhooks.md has no ```js block after <!-- signature-example -->');
  return match[1];
};

/** A delivery as a receiver got it: the raw body and the headers, names in lower case. */
export interface ReceivedDelivery {
  readonly body: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** What the example's `verifyWebhook` says of each delivery, run now (its clock is the real one). */
export const verifyWithExample = (secret: string, deliveries: readonly ReceivedDelivery[]): boolean[] => {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-example-'));
  const module = join(dir, 'verify.mjs');
  writeFileSync(module, signatureExample());
  const script = `
    const { verifyWebhook } = await import(${JSON.stringify(pathToFileURL(module).href)});
    const { secret, deliveries } = JSON.parse(process.argv[1]);
    process.stdout.write(JSON.stringify(deliveries.map((d) => verifyWebhook(d.body, d.headers, secret))));
  `;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify({ secret, deliveries })], { encoding: 'utf8' });
  return JSON.parse(output) as boolean[];
};
