// `msgr api` end to end: the built CLI against a scriptable server on 127.0.0.1, where a process
// is the point: HTTPS through a proxy, and signals. What needs no process is proved in-process
// (test/unit/commands/api/requests-and-answers.test.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SAME_SIGNAL_MS } from '../../src/main.js';
import { cleanEnv, runCli, tempDir, type RunResult } from '../support/cli.js';
import { waitFor } from '../support/daemon.js';
import { hold, startTestServer, useTestServer } from '../support/test-server.js';

const KEY = 'sk_test_apikey_abcd9876';
const server = useTestServer();

/** `msgr api ARGS` spawned with the key, an account and a state folder of its own; `extra` adds to its environment. */
function api(args: string[], extra: Record<string, string>): Promise<RunResult> {
  return runCli(['api', ...args], { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: KEY, MSGR_ACCOUNT_REFERENCE: 'ACME01', ...extra }) });
}

describe('msgr api over HTTPS, as send does it', () => {
  test('untrusted certificate: exit 5 naming --ca-file; with --ca-file through HTTPS_PROXY: sent through the tunnel', async () => {
    const { makeCerts } = await import('../support/tls.js');
    const { startProxy } = await import('../support/proxy.js');
    const certs = makeCerts();
    const tls = await startTestServer({ tls: { key: certs.key, cert: certs.cert } });
    const proxy = await startProxy();
    try {
      const env = { MSGR_BASE_URL: tls.url };
      const refused = await api(['GET', '/v2/status'], env);
      assert.equal(refused.code, 5, refused.stderr);
      assert.match(refused.stderr, /--ca-file/);
      assert.equal(tls.requests.length, 0);
      const ok = await api(['GET', '/v2/status', '--ca-file', certs.caFile], { ...env, HTTPS_PROXY: proxy.url });
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(tls.requests.length, 1);
      assert.equal(tls.requests[0]!.headers['x-api-key'], KEY);
      assert.equal(proxy.tunnels.length, 1);
    } finally {
      await proxy.close();
      await tls.close();
    }
  });
});

describe('msgr api and signals, as send', () => {
  test('SIGTERM while the request is in flight: the answer is waited for and decides the exit code', async () => {
    const { spawn } = await import('node:child_process');
    const { BIN } = await import('../support/cli.js');
    // Held until msgr says it waits for it (10 s: only a failure).
    const answer = hold();
    server.script({ status: 202, body: { id: 'late' }, until: answer.until, delayMs: 10_000 });
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: KEY, MSGR_BASE_URL: server.url });
    const child = spawn(process.execPath, [BIN, 'api', '/v2/messages', '-f', 'a=b', '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const started = Date.now();
    while (server.requests.length === 0 && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 10));
    child.kill('SIGTERM');
    await waitFor('msgr to say it waits for the answer', () => /SIGTERM received: waiting/.test(stderr));
    answer.release();
    assert.equal(await exit, 0, stderr);
    assert.deepEqual(JSON.parse(stdout), { id: 'late' });
    assert.match(stderr, /SIGTERM received: waiting for the answer to the request in flight/);
    assert.equal(server.requests.length, 1);
  });

  test('a second Ctrl-C abandons the request in flight: its outcome is unknown (exit 6)', async () => {
    const { spawn } = await import('node:child_process');
    const { BIN } = await import('../support/cli.js');
    server.script({ status: 202, body: { id: 'late' }, delayMs: 10_000 });
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: KEY, MSGR_BASE_URL: server.url });
    const child = spawn(process.execPath, [BIN, 'api', '/v2/messages', '-f', 'a=b'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const started = Date.now();
    while (server.requests.length === 0 && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 10));
    child.kill('SIGINT');
    await waitFor('msgr to say it waits for the answer', () => /interrupted: waiting for the answer/.test(stderr));
    // A second SIGINT sooner is taken for the first delivered twice, not a second press.
    await new Promise((r) => setTimeout(r, SAME_SIGNAL_MS));
    child.kill('SIGINT');
    assert.equal(await exit, 6, stderr);
    assert.match(stderr, /msgr: interrupted: the request sent is left without its answer \(its outcome is unknown\)/);
    assert.equal(server.requests.length, 1);
  });
});
