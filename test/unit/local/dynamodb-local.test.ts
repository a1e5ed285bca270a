import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { freePort, startDynamoDbLocal } from '../../../tools/local/dynamodb-local.js';

/** The failure paths only: they fail before any java process runs. */
describe('startDynamoDbLocal', () => {
  it('finds a free port', async () => {
    const port = await freePort();
    expect(Number.isInteger(port) && port > 0 && port < 65_536).toBe(true);
  });

  it('says so at once when the port is taken', async () => {
    // Prepare
    const port = await freePort();
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(port, resolve));

    // Act
    const started = Date.now();
    const attempt = startDynamoDbLocal({ port });

    // Assess
    try {
      await expect(attempt).rejects.toThrow(`Port ${port} is already in use`);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      blocker.close();
    }
  });

  it('says Java is missing when the command cannot be found', async () => {
    const withoutJava = () => spawn('java-that-is-not-installed', [], { stdio: 'pipe' });
    await expect(startDynamoDbLocal({ port: await freePort(), startupTimeoutMs: 10_000, spawn: withoutJava })).rejects.toThrow(/Java was not found on PATH/);
  });
});
