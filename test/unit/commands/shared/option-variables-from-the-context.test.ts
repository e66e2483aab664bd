// An option's environment variable (`--port`'s MSGR_LISTEN_PORT, `--url`'s MSGR_WEBHOOK_URL) is read
// from the Context's env, never from the process's (docs/design.md: "Choices"): a command run
// in-process takes the test's value, and a variable exported in the shell that runs the tests does
// not reach it. The flag comes first, then the variable, then the default.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { useTestServer } from '../../../support/test-server.js';

const CONTEXT_TOKEN = 'token-of-the-context-0123456789';
const PROCESS_TOKEN = 'token-of-the-process-0123456789';

/** `fn` with these variables set in this process's own environment, as before it afterwards. */
async function inProcessEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const was = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(was)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe("an option's environment variable comes from the Context", () => {
  test('msgr listen --print-url: the port and token of the Context are used, those set only in the process are not', async () => {
    await inProcessEnv({ MSGR_LISTEN_PORT: '5111', MSGR_LISTEN_TOKEN: PROCESS_TOKEN }, async () => {
      const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_LISTEN_PORT: '4999', MSGR_LISTEN_TOKEN: CONTEXT_TOKEN });
      const fromContext = await runInProcess(['listen', '--print-url'], { env });
      assert.equal(fromContext.code, 0, fromContext.stderr);
      assert.equal(fromContext.stdout, `http://127.0.0.1:4999/${CONTEXT_TOKEN}\n`);
      assert.equal((await runInProcess(['listen', '--print-url', '--port', '5000'], { env })).stdout, `http://127.0.0.1:5000/${CONTEXT_TOKEN}\n`, 'the flag comes before the variable');

      const notInContext = await runInProcess(['listen', '--print-url'], { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir() }) });
      assert.equal(notInContext.code, 0, notInContext.stderr);
      assert.match(notInContext.stdout, /^http:\/\/127\.0\.0\.1:4020\/[\w-]{16,}\n$/, 'the default port and a token msgr made');
      assert.ok(!notInContext.stdout.includes(PROCESS_TOKEN), notInContext.stdout);
    });
  });

  test('msgr listen: a bad MSGR_LISTEN_PORT in the Context is refused as the flag is', async () => {
    const r = await runInProcess(['listen', '--print-url'], { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_LISTEN_PORT: 'abc' }) });
    assert.equal(r.code, 2);
    assert.equal(r.stderr, 'error: --port: "abc" is not a whole number from 0 to 65,535\n');
  });

  describe('msgr trigger', () => {
    const server = useTestServer();
    test("the Context's MSGR_WEBHOOK_URL is where the event goes; one set only in the process is not", async () => {
      await inProcessEnv({ MSGR_WEBHOOK_URL: `${server.url}/from-the-process` }, async () => {
        const fromContext = await runInProcess(['trigger', 'delivered', '-q'], { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_WEBHOOK_URL: `${server.url}/from-the-context` }) });
        assert.equal(fromContext.code, 0, fromContext.stderr);
        // Without a URL in the Context, the listener's URL on this machine: here the test's server.
        const port = new URL(server.url).port;
        const notInContext = await runInProcess(['trigger', 'delivered', '-q'], { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_LISTEN_PORT: port, MSGR_LISTEN_TOKEN: CONTEXT_TOKEN }) });
        assert.equal(notInContext.code, 0, notInContext.stderr);
        assert.deepEqual(server.requests.map((r) => r.url), ['/from-the-context', `/${CONTEXT_TOKEN}`]);
      });
    });
  });
});
