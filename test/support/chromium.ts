import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type BrowserContext } from 'playwright-core';

/**
 * The headless Chromium the browser tests drive.
 *
 * By default it is the one the `@sparticuz/chromium` dev dependency ships inside its npm
 * package (a brotli-packed headless build for x64 Linux, with the NSS and expat libraries it
 * links), so `npm ci` installs everything and nothing is downloaded at run time. It is unpacked
 * once per package version into `node_modules/.cache/` (about 210 MB, a few seconds) and run
 * with its own libraries first on `LD_LIBRARY_PATH`.
 *
 * `CHROMIUM_PATH` names a Chromium or Chrome of the machine's own to use instead.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

interface Browser {
  readonly executablePath: string;
  readonly env?: Record<string, string>;
}

const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CACHE_DIR = join(PROJECT_ROOT, 'node_modules', '.cache');

/**
 * Runs the package's own unpacker in a child process whose `os.tmpdir()` (which is where it
 * writes) is `into`: each argument after the entry point is one packed file.
 */
const UNPACK_SCRIPT = `
const [entry, ...files] = process.argv.slice(1);
const { inflate } = await import(entry);
for (const file of files) await inflate(file);
`;

/** Unpacks the bundled browser once; concurrent callers end with the same complete directory. */
const bundledChromium = async (): Promise<Browser> => {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `The Chromium of @sparticuz/chromium runs on x64 Linux only; on ${process.platform}/${process.arch}, set CHROMIUM_PATH to a Chromium or Chrome of this machine.`,
    );
  }
  const entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
  const packageDir = join(dirname(entry), '..');
  const { version } = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const target = join(CACHE_DIR, `sparticuz-chromium-${version}`);
  const browser: Browser = {
    executablePath: join(target, 'chromium'),
    env: { ...definedEnv(), LD_LIBRARY_PATH: [join(target, 'al2023', 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':') },
  };
  if (existsSync(browser.executablePath)) return browser;

  await mkdir(CACHE_DIR, { recursive: true });
  const staging = await mkdtemp(join(CACHE_DIR, `sparticuz-chromium-${version}.unpacking-`));
  try {
    const packed = ['chromium.br', 'al2023.tar.br'].map((file) => join(packageDir, 'bin', file));
    await promisify(execFile)(process.execPath, ['--input-type=module', '-e', UNPACK_SCRIPT, pathToFileURL(entry).href, ...packed], {
      env: { ...process.env, TMPDIR: staging },
    });
    // The directory appears whole or not at all; a loser of a race keeps the winner's.
    await rename(staging, target).catch((error: NodeJS.ErrnoException) => {
      if (!existsSync(browser.executablePath)) throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return browser;
};

const definedEnv = (): Record<string, string> =>
  Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));

/** A persistent headless context with its profile in `profileDir`. */
export const launchChromium = async (profileDir: string): Promise<BrowserContext> => {
  const own = process.env.CHROMIUM_PATH?.trim();
  const browser: Browser = own ? { executablePath: own } : await bundledChromium();
  return chromium.launchPersistentContext(profileDir, {
    executablePath: browser.executablePath,
    ...(browser.env ? { env: browser.env } : {}),
    args: CHROMIUM_ARGS,
    headless: true,
  });
};
