/**
 * The docs against what the service does: every status the OpenAPI document gives an operation
 * has a row in the status table of docs/api.md, and the rows name the cases the handlers answer
 * with it. And the README stays a short entry point whose links all lead somewhere.
 */
import { readdirSync, readFileSync } from 'node:fs';

const ROOT = new URL('../../..', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, ROOT), 'utf8');
const readme = read('README.md');
const api = read('docs/api.md');
const openapi = JSON.parse(read('docs/openapi.json')) as {
  paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
};

/** The rows of the table under "## Errors" of docs/api.md: status -> its "When" text. */
const statusRows = (): Map<string, string> => {
  const start = api.indexOf('\n## Errors\n');
  expect(start).toBeGreaterThanOrEqual(0);
  const end = api.indexOf('\n## ', start + 1);
  const section = api.slice(start, end === -1 ? undefined : end);
  return new Map([...section.matchAll(/^\| (\d{3}) \| (.+) \|$/gm)].map((match) => [match[1]!, match[2]!]));
};

describe('docs/api.md status table', () => {
  it('has a row for every error status the OpenAPI document lists', () => {
    const documented = new Set(Object.values(openapi.paths).flatMap((operations) =>
      Object.values(operations).flatMap((operation) => Object.keys(operation.responses ?? {}))));
    const errors = [...documented].filter((status) => Number(status) >= 400).sort();
    expect(errors.filter((status) => !statusRows().has(status))).toEqual([]);
  });

  it('names the 409 of a PATCH without If-Match whose repricer kept changing', () => {
    expect(statusRows().get('409')).toMatch(/PATCH.*without `If-Match`.*kept changing/);
  });

  it('names the 409 of an Idempotency-Key still being processed', () => {
    expect(statusRows().get('409')).toMatch(/Idempotency-Key.*still being processed/);
  });
});

describe('README', () => {
  it('is at most 200 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
  });

  it('names the Node.js major version package.json requires to run the project', () => {
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    const major = /\d+/.exec(engines)?.[0];
    expect(readme).toContain(`Node.js ${major}`);
  });

  it('links every Markdown document of docs/', () => {
    const documents = readdirSync(new URL('docs/', ROOT)).filter((name) => name.endsWith('.md'));
    expect(documents.filter((name) => !readme.includes(`](docs/${name})`))).toEqual([]);
  });
});

describe('links between the documents', () => {
  const documents = ['README.md', ...readdirSync(new URL('docs/', ROOT)).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

  it.each(documents)('%s links only to files that exist', (document) => {
    const base = new URL(document, ROOT);
    const targets = [...read(document).matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)].map((match) => match[1]!).filter((target) => !/^[a-z]+:/.test(target));
    const missing = targets.filter((target) => {
      try {
        readFileSync(new URL(target, base));
        return false;
      } catch {
        return true;
      }
    });
    expect(missing).toEqual([]);
  });
});
