// What the in-process tests of `msgr send` share: a scriptable server on 127.0.0.1 that accepts
// every message unless a test scripts otherwise, the environment that points msgr at it, and
// `msgr send` run in-process (test/support/in-process.ts) with a message that passes every check.
import assert from 'node:assert/strict';
import { cleanEnv, tempDir, type RunResult } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { useTestServer, type TestServer } from '../../../support/test-server.js';

export const KEY = 'sk_test_abcdefgh12345678';
export const BASIC = ['send', '--to', '+447911123456', '--from', 'Acme', '--text', 'Hello there'];

export interface SendServer {
  server: TestServer;
  /** A state folder of its own, the key, the server's address and an account. */
  env: (extra?: Record<string, string | undefined>) => Record<string, string>;
  /** `msgr send` of BASIC and `args`, in-process. */
  send: (args?: string[], extraEnv?: Record<string, string | undefined>, input?: string) => Promise<RunResult>;
}

/** Call at a test file's top level: the server starts before its tests and is reset before each. */
export function useSendServer(): SendServer {
  const server = useTestServer({
    reset: (s) => {
      s.fallback = { status: 202, body: { id: 'msg-1', status: 'accepted' } };
    },
  });
  const env = (extra: Record<string, string | undefined> = {}): Record<string, string> =>
    cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: KEY, MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: 'ACME01', ...extra });
  const send = (args: string[] = [], extraEnv: Record<string, string | undefined> = {}, input?: string): Promise<RunResult> =>
    runInProcess([...BASIC, ...args], { env: env(extraEnv), ...(input !== undefined ? { input } : {}) });
  return { server, env, send };
}

export function assertNoKey(r: RunResult): void {
  assert.ok(!r.stdout.includes(KEY), 'API key leaked on stdout');
  assert.ok(!r.stderr.includes(KEY), 'API key leaked on stderr');
}

export function assertNoStack(r: RunResult): void {
  assert.doesNotMatch(r.stderr, /\n\s+at .+:\d+:\d+/, 'stack trace without --verbose');
}
