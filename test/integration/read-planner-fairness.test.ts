/**
 * The read planner as it runs in the loop, on the table (lambdas/read-planning/plan-reads.ts): a
 * minute of budget shared between tenants by their due looks, one lease per page, and a page
 * shared by tenants read once for all of them.
 */
import type { QueueMessage } from '../../lambdas/queue/sender.js';
import type { StoreFrontReadMessage } from '../../lambdas/events/market-sync.js';
import { startTestApi, type TestApi } from '../support/local-api.js';
import { capturingSender } from '../support/sqs-events.js';

let api: TestApi;
let watches: typeof import('../../lambdas/data/market/page-watches.js');
let planning: typeof import('../../lambdas/read-planning/plan-reads.js');
let settings: typeof import('../../lambdas/config/read-planner.js');

beforeAll(async () => {
  api = await startTestApi();
  watches = await import('../../lambdas/data/market/page-watches.js');
  planning = await import('../../lambdas/read-planning/plan-reads.js');
  settings = await import('../../lambdas/config/read-planner.js');
}, 120_000);

afterAll(async () => {
  await api?.close();
});

const pagesOf = (messages: readonly QueueMessage[]) => messages.map((message) => (JSON.parse(message.body) as StoreFrontReadMessage).productLineId);

describe('the read planner on the table', () => {
  it("gives a small tenant its share of a short budget against a large one's backlog, and admits each look once", async () => {
    // Arrange: at 0.1 reads a second a minute holds 6 looks. The large tenant has 40 pages due,
    // the small one 3; one page (S-1) is sold by both, so it costs each half a read.
    const budget = { ...settings.READ_PLANNER, readsPerSecond: 0.1 };
    const now = api.clock.now();
    const watch = (productLineId: string, clientId: string, at: number) =>
      watches.watchPage({ connector: 'takealot', productLineId }, { clientId, code: `${clientId}-${productLineId}`, repriced: true }, at, budget);
    for (let n = 0; n < 40; n++) await watch(`L-${n}`, 'large', now - 60_000 - n);
    for (let n = 0; n < 3; n++) await watch(`S-${n}`, 'small', now - 1_000);
    await watch('S-1', 'large', now - 1_000);
    const sender = capturingSender();

    // Act
    const first = await planning.planStorefrontReads(sender, budget)(now);
    const firstPages = pagesOf(sender.take());
    const again = await planning.planStorefrontReads(sender, budget)(now);
    const againPages = pagesOf(sender.take());

    // Assert: the small tenant's 3 pages are all in, though every one of the large tenant's was due longer.
    expect(first.reads).toBe(6);
    expect(firstPages.filter((page) => page.startsWith('S-')).sort()).toEqual(['S-0', 'S-1', 'S-2']);
    expect(firstPages.filter((page) => page.startsWith('L-'))).toHaveLength(3);
    // Leased: a second plan at the same time admits none of them again (it takes the next of the backlog).
    expect(againPages.filter((page) => firstPages.includes(page))).toEqual([]);
    expect(again.reads).toBe(6);
    expect(new Set(firstPages).size).toBe(firstPages.length);
  });

  it('brings a page forward for the tenant that asked, never within the floor of its last look', async () => {
    const budget = settings.READ_PLANNER;
    const now = api.clock.now();
    await watches.watchPage({ connector: 'takealot', productLineId: 'F-1' }, { clientId: 'tenant', code: 'F-1', repriced: false }, now, budget);
    await watches.recordPageLook('takealot', 'F-1', { at: now, marketPrint: 'a', contested: false }, budget);
    const looked = await watches.getPageWatch('takealot', 'F-1');
    // Only watched, never seen moving: the next look is hours away.
    expect(watches.dueTimeOf(looked!.dueSk) - now).toBeGreaterThan(3_600_000);

    await watches.bringPageForward('takealot', 'F-1', { reason: 'event', clientId: 'tenant', atMs: now + 1_000 }, budget);
    const forward = await watches.getPageWatch('takealot', 'F-1');
    expect(watches.dueTimeOf(forward!.dueSk)).toBe(now + budget.floorSeconds * 1000);
    // A tenant that does not watch the page brings nothing forward.
    await watches.bringPageForward('takealot', 'F-1', { reason: 'event', clientId: 'stranger', atMs: now + 1_000 }, budget);
    expect((await watches.getPageWatch('takealot', 'F-1'))!.dueSk).toBe(forward!.dueSk);
  });

  it('deletes the watch when its last watcher leaves, and keeps it while another tenant watches', async () => {
    const budget = settings.READ_PLANNER;
    const page = { connector: 'takealot', productLineId: 'W-1' };
    await watches.watchPage(page, { clientId: 'a', code: 'A-1', repriced: true }, api.clock.now(), budget);
    await watches.watchPage(page, { clientId: 'b', code: 'B-1', repriced: false }, api.clock.now(), budget);
    await watches.unwatchPage(page, { clientId: 'a', code: 'A-1' });
    const left = await watches.getPageWatch('takealot', 'W-1');
    expect(left?.watchers).toEqual([{ clientId: 'b', code: 'B-1' }]);
    expect(left?.watch.watchers).toEqual([{ tenant: 'b', repriced: false }]);
    await watches.unwatchPage(page, { clientId: 'b', code: 'B-1' });
    expect(await watches.getPageWatch('takealot', 'W-1')).toBeUndefined();
  });
});
