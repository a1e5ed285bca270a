/**
 * Every `npm run cli -- ...` command the operator's pages give (a deploy's steps, the runbook,
 * the point-in-time restore) is one the CLI has: a renamed command cannot leave a procedure
 * that fails halfway through an incident.
 */
import { readFileSync } from 'node:fs';
import { USAGE } from '../../../tools/admin/cli.js';

const PAGES = ['docs/deploy.md', 'docs/operations.md', 'docs/administration.md'];

/** The command and subcommand of each `npm run cli -- [--stage <s>] <command> <subcommand>` on a page. */
const commandsOn = (page: string): string[] =>
  [...readFileSync(new URL(`../../../${page}`, import.meta.url), 'utf8').matchAll(/npm run cli -- (?:--stage[ =]\S+ )?([a-z]+)(?: ([a-z-]+))?/g)].map(
    ([, command, subcommand]) => (['import', 'rebuild'].includes(command!) ? command! : `${command} ${subcommand ?? ''}`.trim()),
  );

/** The commands the usage lists, as `command subcommand` (or `command` alone). */
const listed = new Set(
  [...USAGE.matchAll(/^ {2}([a-z]+)(?: ([a-z-]+))?/gm)].map(([, command, subcommand]) =>
    ['import', 'rebuild'].includes(command!) ? command! : `${command} ${subcommand ?? ''}`.trim(),
  ),
);

describe("the operator's pages", () => {
  it.each(PAGES)('%s names only commands the CLI has', (page) => {
    const commands = commandsOn(page);
    expect(commands.length).toBeGreaterThan(0);
    // A command written without its subcommand (`clients ...`) stands for the family.
    const known = (command: string) => listed.has(command) || [...listed].some((entry) => entry.startsWith(`${command} `));
    expect(commands.filter((command) => !known(command))).toEqual([]);
  });

  it('give the point-in-time restore, the redrive and the first deploy their commands', () => {
    const operations = commandsOn('docs/operations.md');
    expect(operations).toEqual(expect.arrayContaining(['restore copy', 'queues redrive', 'queues list', 'pushes stop', 'pushes resume', 'rebuild']));
    expect(commandsOn('docs/deploy.md')).toEqual(expect.arrayContaining(['connectors import', 'clients create']));
  });
});
