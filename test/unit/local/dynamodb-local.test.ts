import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { freePort, SHORT_LIVED_JVM, startDynamoDbLocal } from '../../../tools/local/dynamodb-local.js';

/** The failure paths and what java is started with: none of them runs a java process. */
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

  it('starts java with telemetry off and the JVM options asked for, and leaves this process’s environment as it was', async () => {
    // Prepare: a spawn that notes the environment java would inherit, then fails as a missing java does
    const seen: Record<string, string | undefined>[] = [];
    const noting = () => {
      seen.push({ telemetry: process.env.DDB_LOCAL_TELEMETRY, jvm: process.env.JDK_JAVA_OPTIONS });
      return spawn('java-that-is-not-installed', [], { stdio: 'pipe' });
    };
    const before = { telemetry: process.env.DDB_LOCAL_TELEMETRY, jvm: process.env.JDK_JAVA_OPTIONS };

    // Act
    for (const jvmOptions of [undefined, SHORT_LIVED_JVM]) {
      await expect(
        startDynamoDbLocal({ port: await freePort(), startupTimeoutMs: 10_000, spawn: noting, ...(jvmOptions ? { jvmOptions } : {}) }),
      ).rejects.toThrow(/Java was not found/);
    }

    // Assess
    expect(seen).toEqual([
      { telemetry: '0', jvm: before.jvm },
      { telemetry: '0', jvm: [before.jvm, ...SHORT_LIVED_JVM].filter(Boolean).join(' ') },
    ]);
    expect({ telemetry: process.env.DDB_LOCAL_TELEMETRY, jvm: process.env.JDK_JAVA_OPTIONS }).toEqual(before);
  });
});
