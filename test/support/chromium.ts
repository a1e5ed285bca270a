import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type BrowserContext } from 'playwright-core';

/**
 * The headless Chromium the browser tests drive, found in this order:
 *
 * 1. `CHROMIUM_PATH`: a Chromium or Chrome of the machine's own, when set.
 * 2. On x64 Linux, the one the `@sparticuz/chromium` dev dependency ships inside its npm
 *    package (a brotli-packed headless build with the NSS and expat libraries it links), so
 *    `npm ci` installs everything and nothing is downloaded at run time. It is unpacked once per
 *    package version into `node_modules/.cache/` (about 210 MB, a few seconds) and run with its
 *    own libraries first on `LD_LIBRARY_PATH`.
 * 3. Elsewhere (macOS, Windows, arm64 Linux, where that build cannot run), a Chrome, Chromium or
 *    Edge installed where those put themselves, or a browser Playwright downloaded.
 *
 * When none is found, `findChromium` says so and why, and the browser tests are skipped.
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

export interface Browser {
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

/** Unpacks the bundled browser (x64 Linux) once; concurrent callers end with the same complete directory. */
const bundledChromium = async (): Promise<Browser> => {
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

/** Where Chrome, Chromium and Edge install themselves, by platform. */
const installedBrowserPaths = (env: NodeJS.ProcessEnv = process.env): string[] => {
  if (process.platform === 'darwin') {
    const apps = ['Google Chrome.app/Contents/MacOS/Google Chrome', 'Chromium.app/Contents/MacOS/Chromium', 'Microsoft Edge.app/Contents/MacOS/Microsoft Edge'];
    return ['/Applications', join(homedir(), 'Applications')].flatMap((dir) => apps.map((app) => join(dir, app)));
  }
  if (process.platform === 'win32') {
    const roots = [env.PROGRAMFILES, env['PROGRAMFILES(X86)'], env.LOCALAPPDATA].filter((root): root is string => Boolean(root));
    const apps = ['Google\\Chrome\\Application\\chrome.exe', 'Chromium\\Application\\chrome.exe', 'Microsoft\\Edge\\Application\\msedge.exe'];
    return roots.flatMap((root) => apps.map((app) => join(root, app)));
  }
  return ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'microsoft-edge'].flatMap((name) => [
    join('/usr/bin', name),
    join('/snap/bin', name),
  ]);
};

/** The browser Playwright would have downloaded (`npx playwright install chromium`), if it has been. */
const playwrightChromium = (): string | undefined => {
  try {
    return chromium.executablePath();
  } catch {
    return undefined;
  }
};

export type ChromiumSearch = { readonly found: true; readonly browser: Browser } | { readonly found: false; readonly reason: string };

/** The browser the tests use on this machine, or why there is none. */
export const findChromium = async (): Promise<ChromiumSearch> => {
  const own = process.env.CHROMIUM_PATH?.trim();
  if (own) {
    // Asked for by name: a wrong path is an error, not a reason to skip.
    if (!existsSync(own)) throw new Error(`CHROMIUM_PATH names ${own}, which does not exist`);
    return { found: true, browser: { executablePath: own } };
  }
  if (process.platform === 'linux' && process.arch === 'x64') return { found: true, browser: await bundledChromium() };
  const installed = [...installedBrowserPaths(), playwrightChromium()].find((path): path is string => path !== undefined && existsSync(path));
  if (installed) return { found: true, browser: { executablePath: installed } };
  return {
    found: false,
    reason:
      `the Chromium of @sparticuz/chromium runs on x64 Linux only, and no Chrome, Chromium or Edge was found on this ${process.platform}/${process.arch} machine: ` +
      'install one or set CHROMIUM_PATH to its executable',
  };
};

/** A persistent headless context with its profile in `profileDir`, in the browser `findChromium` found. */
export const launchChromium = async (profileDir: string, browser: Browser): Promise<BrowserContext> =>
  chromium.launchPersistentContext(profileDir, {
    executablePath: browser.executablePath,
    ...(browser.env ? { env: browser.env } : {}),
    args: CHROMIUM_ARGS,
    headless: true,
  });
