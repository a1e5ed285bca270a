import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { createLocalServer } from '../../tools/local/server.js';
import { operationIdOf } from '../../tools/openapi/document.js';
import { OPERATIONS } from '../../tools/openapi/operations.js';
import { ROUTES } from '../../lambdas/config/routes.js';
import { WEBHOOK_EVENT_TYPES } from '../../lambdas/domain/webhooks.js';
import { findChromium, launchChromium } from '../support/chromium.js';

/**
 * The API reference page of the local server, in headless Chromium (test/support/chromium.ts:
 * the one an npm package ships on x64 Linux, `CHROMIUM_PATH`, or one installed on the machine):
 * it renders the served document and lists every operation of the route table and every
 * webhook event, with no file from outside the server. Skipped, saying why, on a machine with
 * no browser the tests can run.
 */
const search = await findChromium();
if (!search.found) console.warn(`Skipping the /docs page tests: ${search.reason}.`);

let server: Server;
let baseUrl: string;
let profile: string;
let context: BrowserContext;
let page: Page;
const requested: string[] = [];
const pageErrors: string[] = [];

/** An operation of the paths: the page lists the webhooks' in a section of their own. */
const OPERATION = '.opblock:not(.webhooks .opblock)';

beforeAll(async () => {
  if (!search.found) return;
  // The page and GET /v1/openapi.json need no table: no DynamoDB is touched.
  server = createLocalServer({ quiet: true });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  profile = await mkdtemp(join(tmpdir(), 'repricer-docs-chromium-'));
  context = await launchChromium(profile, search.browser);
  page = context.pages()[0] ?? (await context.newPage());
  page.on('request', (request) => requested.push(request.url()));
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${baseUrl}/docs`);
  await page
    .locator(OPERATION)
    .nth(ROUTES.length - 1)
    .waitFor({ timeout: 30_000 });
}, 60_000);

afterAll(async () => {
  await context?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
  if (!server) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const TITLE = 'the API reference at /docs';
(search.found ? describe : describe.skip)(search.found ? TITLE : `${TITLE} (skipped: ${search.reason})`, () => {
  it('renders the document the API serves', async () => {
    await expect(page.locator('.info .title').first().textContent()).resolves.toContain('Repricer API');
    expect(requested).toContain(`${baseUrl}/v1/openapi.json`);
    expect(pageErrors).toEqual([]);
  });

  it('lists one operation per route', async () => {
    await expect(page.locator(OPERATION).count()).resolves.toBe(ROUTES.length);
  });

  it('lists each webhook event the service sends under Webhooks', async () => {
    const webhooks = page.locator('.webhooks .opblock');
    await expect(webhooks.count()).resolves.toBe(WEBHOOK_EVENT_TYPES.length);
    await expect(webhooks.locator('.opblock-summary-path').allTextContents()).resolves.toEqual(
      expect.arrayContaining(WEBHOOK_EVENT_TYPES.map((type) => expect.stringContaining(type))),
    );
  });

  it.each(ROUTES)('lists $name ($method $path) by its summary and operationId', async (route) => {
    // Prepare
    const block = page.locator(`.opblock-${route.method.toLowerCase()}`).filter({ has: page.locator(`[data-path="${route.path}"]`) });

    // Assess
    await expect(block.count()).resolves.toBe(1);
    await expect(block.locator('.opblock-summary-description').textContent()).resolves.toBe(OPERATIONS[route.name]?.summary);
    await expect(block.locator('.opblock-summary-operation-id').textContent()).resolves.toBe(operationIdOf(route));
  });

  it('loads nothing from outside the local server', () => {
    expect(requested.length).toBeGreaterThan(3);
    expect(requested.filter((url) => !url.startsWith(`${baseUrl}/`) && !url.startsWith('data:'))).toEqual([]);
  });
});
