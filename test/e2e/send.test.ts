// `msgr send` end to end, the built CLI (or the single executable file) against a scriptable server
// on 127.0.0.1: one send, --json, an error exit code, and what needs a process: signals while the
// request is in flight, and `msgr --help` as the launcher answers it. The rest of what send does is
// proved in-process in test/unit/commands/send/.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SAME_SIGNAL_MS } from '../../src/main.js';
import { cleanEnv, msgrCommand, runCli, tempDir, type RunResult } from '../support/cli.js';
import { waitFor } from '../support/daemon.js';
import { hold, useTestServer } from '../support/test-server.js';

const KEY = 'sk_test_abcdefgh12345678';
const server = useTestServer({
  reset: (s) => {
    s.fallback = { status: 202, body: { id: 'msg-1', status: 'accepted' } };
  },
});

function env(extra: Record<string, string | undefined> = {}): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: KEY, MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: 'ACME01', ...extra });
}

const BASIC = ['send', '--to', '+447911123456', '--from', 'Acme', '--text', 'Hello there'];

function send(args: string[] = [], extraEnv: Record<string, string | undefined> = {}, input?: string): Promise<RunResult> {
  return runCli([...BASIC, ...args], { env: env(extraEnv), ...(input !== undefined ? { input } : {}) });
}

function assertNoKey(r: RunResult): void {
  assert.ok(!r.stdout.includes(KEY), 'API key leaked on stdout');
  assert.ok(!r.stderr.includes(KEY), 'API key leaked on stderr');
}

function assertNoStack(r: RunResult): void {
  assert.doesNotMatch(r.stderr, /\n\s+at .+:\d+:\d+/, 'stack trace without --verbose');
}

describe('a successful send', () => {
  test('posts the spec request with the key header and prints the response', async () => {
    const r = await send();
    assert.equal(r.code, 0, r.stderr);
    assert.equal(server.requests.length, 1);
    const req = server.requests[0]!;
    assert.equal(req.method, 'POST');
    assert.equal(req.url, '/v2/messages');
    assert.equal(req.headers['x-api-key'], KEY);
    assert.equal(req.headers['content-type'], 'application/json');
    assert.match(String(req.headers['user-agent']), /^msgr\/\d+\.\d+\.\d+ node\/v\d+/);
    assert.match(String(req.headers['idempotency-key']), /^msgr-[0-9a-f-]{36}$/);
    assert.deepEqual(req.json, {
      accountReference: 'ACME01',
      channel: 'SMS',
      from: 'Acme',
      body: { text: 'Hello there' },
      recipients: [{ msisdn: '+447911123456' }],
    });
    assert.deepEqual(JSON.parse(r.stdout), { id: 'msg-1', status: 'accepted' });
    assert.match(r.stderr, /accepted by the API \(HTTP 202\)/);
    assert.match(r.stderr, /not yet delivered/);
    assertNoKey(r);
  });

  test('--json prints exactly one JSON document and nothing else on stdout', async () => {
    const r = await send(['--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { id: 'msg-1', status: 'accepted' });
  });

});

describe('an error answer', () => {
  test('401 → exit 3 with the status and the server message; --json puts the error body on stdout', async () => {
    server.script({ status: 401, body: { type: 'about:blank', title: 'Unauthorized', status: 401, detail: 'API key not recognised' }, headers: { 'content-type': 'application/problem+json' } });
    const r = await send(['--json']);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /HTTP 401/);
    assert.match(r.stderr, /API key not recognised/);
    const doc = JSON.parse(r.stdout) as { error: { message: string; hint: string; exitCode: number; status: number; body: { detail: string } } };
    assert.deepEqual(Object.keys(doc.error), ['message', 'hint', 'exitCode', 'status', 'body']);
    assert.equal(doc.error.exitCode, 3);
    assert.equal(doc.error.status, 401);
    assert.match(doc.error.message, /HTTP 401/);
    assert.match(doc.error.hint, /API key/);
    assert.equal(doc.error.body.detail, 'API key not recognised');
    assert.equal(server.requests.length, 1);
    assertNoKey(r);
    assertNoStack(r);
  });

});

/** Starts `msgr send` and resolves once its request has reached the server. */
async function startInFlight(): Promise<{ child: ReturnType<typeof import('node:child_process').spawn>; out: () => string; err: () => string; exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }> }> {
  const { spawn } = await import('node:child_process');
  const child = spawn(...msgrCommand([...BASIC, '--json']), { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, at: Date.now() })));
  const started = Date.now();
  while (server.requests.length === 0 && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 10));
  assert.equal(server.requests.length, 1, `the request never arrived: ${stderr}`);
  return { child, out: () => stdout, err: () => stderr, exit };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('signals while the request is in flight', () => {
  test('three SIGTERMs 10 ms apart: the answer is waited for and reported, with its exit code', async () => {
    // Held until msgr says it waits, after the last signal was sent (10 s: only a failure).
    const answer = hold();
    server.script({ status: 202, body: { id: 'late-1' }, until: answer.until, delayMs: 10_000 });
    const run = await startInFlight();
    for (let i = 0; i < 3; i++) {
      run.child.kill('SIGTERM');
      await sleep(10);
    }
    await waitFor('msgr to say it waits for the answer', () => /SIGTERM received: waiting/.test(run.err()));
    answer.release();
    const r = await run.exit;
    assert.equal(r.code, 0, run.err());
    assert.deepEqual(JSON.parse(run.out()), { id: 'late-1' });
    assert.match(run.err(), /SIGTERM received: waiting for the answer to the request in flight \(at most 30 s\)/);
    assert.match(run.err(), /accepted by the API \(HTTP 202\)/);
    assert.equal(server.requests.length, 1);
  });

  test('SIGHUP after the reader closed stdout and stderr: the answer still decides the exit code', async () => {
    server.script({ status: 422, body: { detail: 'bad sender' }, delayMs: 600 });
    const run = await startInFlight();
    run.child.stdout?.destroy();
    run.child.stderr?.destroy();
    run.child.kill('SIGHUP');
    const r = await run.exit;
    // 4: the API's own verdict, not a crash (1) and not a death by SIGHUP.
    assert.equal(r.signal, null);
    assert.equal(r.code, 4);
    assert.equal(server.requests.length, 1);
  });

  test('a retry not yet started is dropped on SIGTERM: not sent (exit 5), no second attempt', async () => {
    server.script({ status: 429, headers: { 'retry-after': '5' }, body: { title: 'slow down' } });
    const run = await startInFlight();
    await waitFor('msgr to say it will retry', () => /retrying in/.test(run.err()));
    run.child.kill('SIGTERM');
    const r = await run.exit;
    assert.equal(r.code, 5, run.err());
    assert.equal(server.requests.length, 1);
  });

  test('Ctrl-C waits for the answer; a second Ctrl-C quits at once and says so: the outcome is unknown (exit 6), not "interrupted, nothing sent"', async () => {
    server.script({ status: 202, delayMs: 10_000 });
    const run = await startInFlight();
    run.child.kill('SIGINT');
    await waitFor('msgr to say it waits for the answer', () => /interrupted: waiting for the answer to the request in flight/.test(run.err()));
    assert.match(run.err(), /interrupted: waiting for the answer to the request in flight/);
    // A second SIGINT sooner is taken for the first delivered twice, not a second press.
    await sleep(SAME_SIGNAL_MS);
    const second = Date.now();
    run.child.kill('SIGINT');
    const r = await run.exit;
    assert.equal(r.code, 6, run.err());
    assert.ok(r.at - second < 1_000, `took ${r.at - second} ms after the second Ctrl-C`);
    assert.match(run.err(), /msgr: interrupted: the request sent is left without its answer \(its outcome is unknown\)/);
    // Under --json, one document on stdout still says what happened.
    const doc = JSON.parse(run.out()) as { error: { message: string; exitCode: number; hint: string } };
    assert.equal(doc.error.exitCode, 6);
    assert.equal(doc.error.message, 'interrupted: quit at once, without waiting for the answer to the request in flight');
    // A single send has no run to show or resume: the hint says what is true of it.
    assert.match(doc.error.hint, /check whether it arrived before sending it again/);
    assert.doesNotMatch(doc.error.hint, /runs show|--resume/);
  });
});

test('msgr --help documents the exit codes', async () => {
  const r = await runCli(['--help']);
  assert.equal(r.code, 0);
  for (const code of ['0', '1', '2', '3', '4', '5', '6', '7', '130']) assert.match(r.stdout, new RegExp(`^\\s+${code}\\s+\\S`, 'm'));
});
