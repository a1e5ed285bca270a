import { Readable } from 'node:stream';
import { runCli } from '../../../tools/admin/cli.js';

const run = async (args: readonly string[]) => {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { out: (text) => (stdout += text), err: (text) => (stderr += text), input: Readable.from(['']) });
  return { code, stdout, stderr };
};

describe('runCli', () => {
  const before = { ...process.env };
  beforeEach(() => {
    // A table name set, so no command here reaches for the local defaults.
    process.env.TABLE_NAME = 'cli-test-table';
  });
  afterEach(() => {
    process.env = { ...before };
  });

  it.each([
    [[], 'No command given'],
    [['nonsense'], 'Unknown command: nonsense'],
    [['import', 'file.ndjson'], 'import needs <file.ndjson> and --client <username>'],
    [['connectors', 'import'], 'connectors import needs exactly one <file.ndjson>'],
    [['rebuild', 'extra'], 'rebuild takes only --client <username>'],
  ])('answers %j with status 2, the reason and the usage on stderr, nothing on stdout', async (args, reason) => {
    // Act
    const result = await run(args);

    // Assess
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(reason);
    expect(result.stderr).toContain('Usage: npm run cli --');
    expect(result.stdout).toBe('');
  });

  it('answers a failing command with status 1 and its message, without the usage', async () => {
    // Act: a file that is not there
    const result = await run(['connectors', 'import', '/nonexistent/connectors.ndjson']);

    // Assess
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Error: .*no such file/m);
    expect(result.stderr).not.toContain('Usage:');
  });
});
