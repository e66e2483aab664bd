// `msgr send-bulk` end to end: the built CLI against the sandbox (in this process, recording
// every accepted request) or the scriptable test server. Asserts on what the server received.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type RunningSandbox } from '../../src/sandbox/server.js';
import { msgrCommand, ROOT, runCli, tempDir, type RunResult } from '../support/cli.js';
import { useTestServer } from '../support/test-server.js';
import { assertExactlyOnce, recipients, sandbox, env, numbersCsv, MSG } from '../support/bulk-inputs.js';

function bulk(args: string[], e: Record<string, string>, input?: string): Promise<RunResult> {
  return runCli(['send-bulk', ...args], { env: e, timeoutMs: 30_000, ...(input !== undefined ? { input } : {}) });
}

/** Spawns the CLI and lets the test signal it. */
function start(args: string[], e: Record<string, string>): { child: ReturnType<typeof spawn>; done: Promise<RunResult> } {
  const child = spawn(...msgrCommand(['send-bulk', ...args]), { cwd: ROOT, env: e, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<RunResult>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

describe('send-bulk against the sandbox', () => {
  let sbx: { server: RunningSandbox; record: string };
  before(async () => {
    sbx = await sandbox();
  });
  after(async () => {
    await sbx.server.close();
  });

  test('a lock stops a second run on the same journal and names the other process', async () => {
    const { path } = numbersCsv(2);
    const journal = join(tempDir(), 'j.jsonl');
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' });
    try {
      const { hostname } = await import('node:os');
      writeFileSync(`${journal}.lock`, JSON.stringify({ pid: holder.pid, host: hostname(), startedAt: '2026-01-01T00:00:00Z', command: 'msgr send-bulk x.csv' }));
      const r = await bulk([path, ...MSG, '--journal', journal], env(sbx.server.url));
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, new RegExp(`another msgr is already running this bulk job: pid ${holder.pid}`));
    } finally {
      holder.kill();
    }
  });

  test('a lock left by a killed process that nobody has reaped yet (a zombie) does not stop the next run', async (t) => {
    if (process.platform !== 'linux') {
      t.skip('zombies are read from /proc (Linux)');
      return;
    }
    const { path } = numbersCsv(2);
    const journal = join(tempDir(), 'j.jsonl');
    // bash starts a child and becomes a long sleep, which never reaps it: the child ends once
    // bash has become the sleep (bash would reap it before the exec) and stays a zombie, as a msgr
    // killed by `timeout -s KILL` stays one until PID 1 reaps it. (A child that slept 1 s made
    // the test wait that second.)
    // At most 10 s: should bash never become the sleep, the child must not poll for ever.
    const child = "i=0; until grep -qx sleep /proc/$PPID/comm || [ $i -ge 1000 ]; do i=$((i+1)); sleep 0.01; done";
    const parent = spawn('bash', ['-c', `sh -c '${child}' & echo $!; exec sleep 20`], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = Number(await new Promise<string>((done) => parent.stdout.once('data', (d: Buffer) => done(d.toString().trim()))));
      for (let i = 0; i < 250 && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z '); i++) await new Promise((r) => setTimeout(r, 20));
      assert.match(readFileSync(`/proc/${pid}/stat`, 'utf8'), /\) Z /, 'no zombie to test with');
      const { hostname } = await import('node:os');
      writeFileSync(`${journal}.lock`, JSON.stringify({ pid, host: hostname(), startedAt: '2026-01-01T00:00:00Z', command: 'msgr send-bulk x.csv' }));
      const r = await bulk([path, ...MSG, '--journal', journal], env(sbx.server.url));
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /already running/);
    } finally {
      parent.kill();
    }
  });

  test('kill -9 at random points, then --resume: every valid row arrives exactly once', async () => {
    const { server, record } = await sandbox({ latencyMs: 25 });
    try {
      const { path, numbers } = numbersCsv(400);
      const config = tempDir();
      const journal = join(config, 'journal.jsonl');
      const args = [path, ...MSG, '--batch-size', '4', '--concurrency', '3', '--journal', journal];
      const resume = [path, '--resume', '--resend-in-doubt', '--journal', journal];
      let kills = 0;
      for (let i = 0; i < 4; i++) {
        // A kill before the journal's header was written leaves nothing to resume: start again.
        const run = start(existsSync(journal) ? resume : args, env(server.url, {}, config));
        await new Promise((r) => setTimeout(r, 250 + Math.random() * 350));
        run.child.kill('SIGKILL');
        const r = await run.done;
        if (r.signal !== 'SIGKILL') break;
        kills++;
        if (kills === 1) assert.ok(recipients(record).length < numbers.length, 'the first kill came after the run had finished');
      }
      assert.ok(kills >= 1);
      const final = await bulk(existsSync(journal) ? resume : args, env(server.url, {}, config));
      assert.ok(final.code === 0, final.stderr);
      assertExactlyOnce(record, numbers);
    } finally {
      await server.close();
    }
  });

  test('first Ctrl-C: in-flight batches finish, the resume command is printed, exit 130; --resume finishes', async () => {
    const { server, record } = await sandbox({ latencyMs: 80 });
    try {
      const { path, numbers } = numbersCsv(80);
      const config = tempDir();
      const run = start([path, ...MSG, '--batch-size', '2', '--concurrency', '2'], env(server.url, {}, config));
      // Interrupt once sending is under way, however slow the machine is today.
      for (let waited = 0; recipients(record).length === 0 && waited < 15_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
      run.child.kill('SIGINT');
      const r = await run.done;
      assert.equal(r.code, 130, r.stderr);
      assert.match(r.stderr, /interrupted: \d+ of 80 recipients accepted/);
      assert.match(r.stderr, /Resume with: msgr send-bulk \S+ --resume/);
      const sent = recipients(record).length;
      assert.ok(sent > 0 && sent < 80, `sent ${sent}`);
      const again = await bulk([path, '--resume'], env(server.url, {}, config));
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stderr, new RegExp(`80 of 80 recipients accepted \\(${sent} before this resume\\)`));
      assertExactlyOnce(record, numbers);
    } finally {
      await server.close();
    }
  });
});

describe('send-bulk against a scripted server', () => {
  const server = useTestServer();

  test('sixteen requests waiting at once to retry a 429: each is sent again, and Node warns of nothing on stderr', async () => {
    server.requests.length = 0;
    server.fallback = { status: 202, body: {} };
    server.script(...Array.from({ length: 16 }, () => ({ status: 429, headers: { 'retry-after': '1' }, body: { title: 'slow down' }, delayMs: 100 })));
    const { path, numbers } = numbersCsv(16);
    const r = await bulk([path, ...MSG, '--batch-size', '1', '--concurrency', '16'], env(server.url));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(server.requests.length, 32);
    const sent = server.requests.map((q) => (q.json as { recipients: Array<{ msisdn: string }> }).recipients[0]?.msisdn);
    assert.deepEqual([...new Set(sent)].sort(), [...numbers].sort());
    // One listener per request waiting to retry, on the run's one stop signal: not a leak.
    assert.doesNotMatch(r.stderr, /MaxListenersExceededWarning|\(node:\d+\)/);
  });
});
