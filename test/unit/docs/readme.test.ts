/**
 * The README's status table against what the service does: every status the OpenAPI document
 * gives an operation has a row, and the rows name the cases the handlers answer with it.
 */
import { readFileSync } from 'node:fs';

const ROOT = new URL('../../../', import.meta.url);
const readme = readFileSync(new URL('README.md', ROOT), 'utf8');
const openapi = JSON.parse(readFileSync(new URL('docs/openapi.json', ROOT), 'utf8')) as {
  paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
};

/** The rows of the table under "### Errors": status -> its "When" text. */
const statusRows = (): Map<string, string> => {
  const section = readme.slice(readme.indexOf('### Errors'), readme.indexOf('\n## ', readme.indexOf('### Errors')));
  return new Map([...section.matchAll(/^\| (\d{3}) \| (.+) \|$/gm)].map((match) => [match[1]!, match[2]!]));
};

describe('README status table', () => {
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
