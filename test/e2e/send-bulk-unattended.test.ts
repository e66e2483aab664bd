// Unattended runs end to end (docs/unattended.md: "Stopping"): the built CLI against the scripted
// test server with a latency, stopped the ways supervisors stop it (GNU timeout, repeated
// SIGTERM, SIGHUP with the terminal gone, a full disk) and then resumed. What counts is what the
// server received: every recipient accepted exactly once, and nothing left in doubt.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, MSGR, msgrCommand, ROOT, runCli, tempDir, type RunResult } from '../support/cli.js';
import { numbersOnlyCsv } from '../support/bulk-inputs.js';
import { waitFor } from '../support/daemon.js';
import { hold, useTestServer } from '../support/test-server.js';
import { tmpfs, unmount } from '../support/tmpfs.js';

const KEY = 'unattended-key-5678';
const MSG = ['--from', 'Acme', '--text', 'Hello there'];
const server = useTestServer({
  // A test that fails before it puts its scripted answer back must not leave it to the next:
  // a 429 left armed for the next test's first request made that batch arrive twice (its retry).
  reset: (s) => {
    s.answer = undefined;
    s.fallback = { status: 202, body: { ok: true }, delayMs: 200 };
  },
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function env(config: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: config, MSGR_API_KEY: KEY, MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: 'ACME01', ...extra });
}

interface Started {
  child: ReturnType<typeof spawn>;
  done: Promise<RunResult & { at: number }>;
}

function start(command: string, args: string[], e: Record<string, string>): Started {
  const child = spawn(command, args, { cwd: ROOT, env: e, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const done = new Promise<RunResult & { at: number }>((resolve) =>
    child.on('exit', (code, signal) => {
      clearTimeout(killer);
      // 'exit' comes before the pipes are drained; what was written is read by then on loopback.
      setTimeout(() => resolve({ code, signal, stdout, stderr, at: Date.now() }), 50);
    }),
  );
  return { child, done };
}

function startBulk(args: string[], e: Record<string, string>): Started {
  return start(...msgrCommand(['send-bulk', ...args]), e);
}

/** Waits until the server has received n requests (their answers still to come). */
async function requestsArrived(n: number): Promise<void> {
  for (let waited = 0; server.requests.length < n && waited < 20_000; waited += 10) await sleep(10);
  assert.ok(server.requests.length >= n, `only ${server.requests.length} requests arrived`);
}

/** Resolves the moment the run's stderr says `line`: a stop sent then lands in what follows it. */
function stderrSays(run: Started, line: RegExp): Promise<void> {
  let said = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`msgr did not say ${line}: ${said}`)), 30_000);
    run.child.stderr?.on('data', (d: Buffer | string) => {
      said += String(d);
      if (!line.test(said)) return;
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Every recipient, once per request the server received. */
function received(): string[] {
  return server.requests.flatMap((r) => ((r.json as { recipients?: Array<{ msisdn: string }> } | undefined)?.recipients ?? []).map((x) => x.msisdn));
}

function assertExactlyOnce(got: string[], expected: string[]): void {
  const seen = new Set<string>();
  const twice = got.filter((m) => (seen.has(m) ? true : (seen.add(m), false)));
  assert.deepEqual(twice, [], 'a recipient was sent twice');
  assert.equal(got.length, expected.length, 'recipients missing');
  assert.deepEqual([...got].sort(), [...expected].sort());
}

function assertNoStack(r: RunResult): void {
  assert.doesNotMatch(r.stderr, /\n\s+at .+:\d+:\d+/, 'stack trace without --verbose');
  assert.doesNotMatch(r.stderr, /internal error|bug in msgr/);
}

interface Summary {
  accepted: number;
  acceptedEarlier: number;
  inDoubt: number;
  notSent: number;
  exitCode: number;
}

/**
 * The --resume that must finish the run: exit 0, nothing in doubt, every row accepted. The
 * server answers it at once: the latency only kept the stopped run sending until its stop.
 */
async function resumeCleanly(path: string, config: string, total: number): Promise<Summary> {
  server.fallback = { status: 202, body: { ok: true } };
  const r = await runCli(['send-bulk', path, '--resume', '--json'], { env: env(config), timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout) as Summary;
  assert.equal(doc.inDoubt, 0);
  assert.equal(doc.accepted, total);
  assert.ok(doc.acceptedEarlier > 0, 'the first run accepted nothing');
  assert.ok(doc.acceptedEarlier < total, 'the first run was not stopped before the end');
  return doc;
}

/**
 * A run of `path` in batches of `batchSize` that stops with batch 55 in doubt: the first batch
 * accepted, then the key refused (exit 3, the rest never sent), and batch 55's request written as
 * gone out with no answer, as one the network lost would be.
 */
async function runLeavingBatch55InDoubt(path: string, numbers: readonly string[], batchSize: number, config: string, journal: string, extra: readonly string[] = []): Promise<void> {
  let n = 0;
  server.answer = () => (++n <= 1 ? { status: 202, body: { ok: true } } : { status: 401, body: { title: 'Unauthorized' } });
  const first = await runCli(['send-bulk', path, ...MSG, ...extra, '--batch-size', String(batchSize), '--concurrency', '1', '--journal', journal], { env: env(config), timeoutMs: 60_000 });
  server.answer = undefined;
  assert.equal(first.code, 3, first.stderr);
  const lines = readFileSync(journal, 'utf8').split('\n');
  const send = JSON.parse(lines.find((l) => l.includes('"type":"send"')) ?? '') as { batch: number; first: number; key: string; lines: number[]; numbers: string[] };
  const from = 55 * batchSize;
  const late = { ...send, batch: 55, first: from, key: send.key.replace(/-0$/, '-55'), lines: send.lines.map((l) => l + from), numbers: numbers.slice(from, from + batchSize) };
  writeFileSync(journal, `${lines.join('\n').trimEnd()}\n${JSON.stringify(late)}\n{"type":"out","batch":55}\n`);
}

describe('stopping an unattended run, then --resume', () => {
  test('kill -9 while a batch waits to retry after a 429: it is not in doubt, and the resume sends it once', async () => {
    const { path, numbers } = numbersOnlyCsv(5);
    const config = tempDir();
    const journal = join(config, 'j.jsonl');
    let answered = 0;
    // The API answers the first attempt "too many requests, retry in 5 s": it did not take it.
    server.answer = () => (answered++ === 0 ? { status: 429, headers: { 'retry-after': '5' }, body: { title: 'Too Many Requests' } } : { status: 202, body: { ok: true } });
    const run = start(...msgrCommand(['send-bulk', path, ...MSG, '--journal', journal]), env(config));
    await requestsArrived(1);
    await sleep(300);
    run.child.kill('SIGKILL');
    assert.equal((await run.done).signal, 'SIGKILL');
    assert.equal(server.requests.length, 1, 'the retry was still waiting');
    const resumed = await runCli(['send-bulk', path, '--resume', '--journal', journal, '--json'], { env: env(config), timeoutMs: 30_000 });
    assert.equal(resumed.code, 0, resumed.stderr);
    const doc = JSON.parse(resumed.stdout) as { inDoubt: number; accepted: number };
    assert.deepEqual([doc.inDoubt, doc.accepted], [0, numbers.length]);
    assert.equal(server.requests.length, 2);
    server.answer = undefined;
  });

  test('GNU timeout without --foreground (SIGTERM to msgr, then to its process group): exit 124, and the resume sends the rest once', async () => {
    const { path, numbers } = numbersOnlyCsv(4000);
    const config = tempDir();
    // The limit runs out when the test says: once requests are at the API (each answered after
    // 200 ms, so the run is still sending), timeout gets SIGALRM, which is its limit running out
    // (GNU timeout signals msgr, then its group, and exits 124). A 2 s limit raced msgr's start
    // and, on a loaded machine, came before anything was sent.
    const run = start('timeout', ['600', ...MSGR, 'send-bulk', path, ...MSG, '--batch-size', '50'], env(config));
    await requestsArrived(2);
    run.child.kill('SIGALRM');
    const r = await run.done;
    // 124 is timeout's own "it timed out"; msgr itself ended with 130 after draining.
    assert.equal(r.code, 124, r.stderr);
    assert.match(r.stderr, /SIGTERM received: sending no new batches/);
    assert.match(r.stderr, /error: interrupted: [\d,]+ of 4,000 recipients accepted/);
    assert.match(r.stderr, /Resume with: msgr send-bulk \S+ --resume/);
    assert.doesNotMatch(r.stderr, /in doubt|msgr: interrupted/);
    assertNoStack(r);
    await resumeCleanly(path, config, numbers.length);
    assertExactlyOnce(received(), numbers);
  });

  test('three SIGTERMs 10 ms apart drain like one: exit 130, nothing in doubt', async () => {
    const { path, numbers } = numbersOnlyCsv(2000);
    const config = tempDir();
    const run = startBulk([path, ...MSG, '--batch-size', '50'], env(config));
    await requestsArrived(6);
    for (let i = 0; i < 3; i++) {
      run.child.kill('SIGTERM');
      await sleep(10);
    }
    const r = await run.done;
    assert.equal(r.code, 130, r.stderr);
    // Under a supervisor more SIGTERMs change nothing: only a SIGINT quits at once.
    assert.match(r.stderr, /SIGTERM received: sending no new batches, waiting for \d+ in flight; a SIGINT \(Ctrl-C\) quits at once/);
    assert.doesNotMatch(r.stderr, /Ctrl-C again/);
    assert.match(r.stderr, /Resume with: msgr send-bulk \S+ --resume/);
    assert.doesNotMatch(r.stderr, /in doubt|msgr: interrupted/);
    assertNoStack(r);
    await resumeCleanly(path, config, numbers.length);
    assertExactlyOnce(received(), numbers);
  });

  test('SIGTERM while requests hang: the drain times them out, and a stop with batches in doubt exits 7 (not 130), stopped "interrupted"', async () => {
    const { path } = numbersOnlyCsv(2000);
    const config = tempDir();
    let n = 0;
    // From the 5th request on, the server takes the request and never answers in time.
    server.answer = () => (++n <= 4 ? { status: 202, body: { ok: true } } : { status: 202, body: { ok: true }, delayMs: 4_000 });
    const run = startBulk([path, ...MSG, '--batch-size', '50', '--timeout', '1', '--json'], env(config));
    await requestsArrived(8);
    run.child.kill('SIGTERM');
    const r = await run.done;
    server.answer = undefined;
    assert.equal(r.code, 7, r.stderr);
    const doc = JSON.parse(r.stdout) as Summary & { stopped: string; inDoubtBatches: unknown[]; resume: string };
    assert.equal(doc.exitCode, 7);
    assert.equal(doc.stopped, 'interrupted');
    assert.equal(doc.accepted, 200);
    assert.equal(doc.inDoubt, 200);
    assert.equal(doc.notSent, 1600);
    assert.equal(doc.inDoubtBatches.length, 4);
    assert.match(doc.resume, /--resume/);
    assert.match(r.stderr, /error: interrupted: 200 of 2,000 recipients accepted, 200 in doubt/);
    assert.match(r.stderr, /\n {6}Check first whether the 200 recipients in doubt got the message \(`msgr runs show \S+` lists them\); send them again under their original Idempotency-Keys \(safe at an API that honours them\): msgr send-bulk \S+ --resume --resend-in-doubt/);
    assertNoStack(r);
  });

  test('a resume stopped before it reaches a batch an earlier run left in doubt still counts it: exit 7, not 130', async () => {
    const { path, numbers } = numbersOnlyCsv(3000);
    const config = tempDir();
    const journal = join(config, 'j.jsonl');
    // Batch 55 (rows 2,752-2,801) in doubt.
    await runLeavingBatch55InDoubt(path, numbers, 50, config, journal);

    const run = startBulk([path, '--resume', '--journal', journal, '--concurrency', '1', '--json'], env(config));
    await requestsArrived(4);
    run.child.kill('SIGINT');
    const r = await run.done;
    assert.equal(r.code, 7, r.stderr);
    const doc = JSON.parse(r.stdout) as Summary & { stopped: string };
    assert.equal(doc.stopped, 'interrupted');
    assert.equal(doc.inDoubt, 50);
    assert.match(r.stderr, /error: interrupted: [\d,]+ of 3,000 recipients accepted, 50 in doubt/);
    // Before it sends, the resume says what it has left of the file: not the whole file again.
    assert.match(r.stderr, /^ {2}left to send by this resume: 2,900 recipients \(earlier: 50 accepted, 50 in doubt, not sent again without --resend-in-doubt\)$/m);
  });

  test('a resume stopped in its preflight, before sending anything, still has the batch an earlier run left in doubt: exit 7, not 130', async () => {
    // Enough rows for batch 55 of 1,000 and a preflight that outlasts a stop sent the moment the
    // resume says it starts one (asserted below: it printed none of its lines). 300,000 rows, sent
    // after a 5 ms poll, took 2.1 s of CPU; these 60,000, sent at once, 0.9 s; a late stop fails.
    const numbers = Array.from({ length: 60_000 }, (_, i) => `+447911${String(i).padStart(6, '0')}`);
    const path = join(tempDir('msgr-unattended-csv-'), 'list.csv');
    writeFileSync(path, `msisdn\n${numbers.join('\n')}\n`);
    const config = tempDir();
    const journal = join(config, 'j.jsonl');
    await runLeavingBatch55InDoubt(path, numbers, 1000, config, journal);
    const before = server.requests.length;

    const run = startBulk([path, '--resume', '--journal', journal, '--concurrency', '1'], env(config));
    await stderrSays(run, /resuming run/);
    run.child.kill('SIGINT');
    const r = await run.done;
    assert.equal(r.code, 7, r.stderr);
    assert.match(r.stderr, /error: interrupted before anything was sent; 1 batch an earlier run left in doubt is still in doubt/);
    // The stop landed in the preflight: it printed none of its lines.
    assert.doesNotMatch(r.stderr, /^preflight: |left to send by this resume/m, 'the preflight was over before the stop');
    const runId = (JSON.parse(readFileSync(journal, 'utf8').split('\n')[0] ?? '') as { runId: string }).runId;
    assert.match(r.stderr, new RegExp(`hint: \`msgr runs show ${runId}\` lists them: check whether they arrived`));
    assert.equal(server.requests.length, before, 'nothing was sent');
  });

  test('a second Ctrl-C while a resume loads its --exclude list, before sending anything, still has the batch an earlier run left in doubt: exit 7, not 130', async () => {
    const numbers = Array.from({ length: 60 }, (_, i) => `+447911${String(i).padStart(6, '0')}`);
    const dir = tempDir('msgr-unattended-csv-');
    const path = join(dir, 'list.csv');
    writeFileSync(path, `msisdn\n${numbers.join('\n')}\n`);
    const exclude = join(dir, 'opt-out.txt');
    writeFileSync(exclude, '+447922000000\n');
    const config = tempDir();
    const journal = join(config, 'j.jsonl');
    await runLeavingBatch55InDoubt(path, numbers, 1, config, journal, ['--exclude', exclude]);
    const before = server.requests.length;
    // The list grew while the run was paused (a resume reads it as it is now): large enough that
    // loading it outlasts the gap between the two Ctrl-Cs (asserted below: the second one quit).
    // 1,000,000 lines take 1.3 s of CPU to load (1.1 s with each of 10,000 numbers 100 times, which
    // takes the test 0.35 s less to make); 20,000 lost the race on a loaded 2-core machine. The
    // first run's list is one line: it loaded the whole list too (2.5 s of CPU, now 0.9 s).
    writeFileSync(exclude, `${Array.from({ length: 10_000 }, (_, i) => `+447922${String(i).padStart(6, '0')}`).join('\n')}\n`.repeat(100));

    const run = startBulk([path, '--resume', '--journal', journal, '--json'], env(config));
    // The reserve is taken once the run can wind down, before the list is loaded.
    for (let waited = 0; !existsSync(`${journal}.reserve`) && waited < 20_000; waited += 5) await sleep(5);
    run.child.kill('SIGINT');
    await sleep(300);
    run.child.kill('SIGINT');
    const r = await run.done;
    assert.equal(r.code, 7, r.stderr);
    const error = (JSON.parse(r.stdout) as { error: { message: string; exitCode: number } }).error;
    assert.equal(error.exitCode, 7);
    // The second Ctrl-C quit: the list was still loading (after it, the first Ctrl-C would have
    // stopped the run at the preflight's end, "interrupted before anything was sent").
    assert.match(error.message, /^interrupted: quit at once/);
    assert.equal(server.requests.length, before, 'nothing was sent');
  });

  test('SIGHUP after the reader closed stdout and stderr (a dropped ssh session): exit 130, no crash, nothing in doubt', async () => {
    const { path, numbers } = numbersOnlyCsv(2000);
    const config = tempDir();
    const run = startBulk([path, ...MSG, '--batch-size', '50', '--json'], env(config));
    await requestsArrived(6);
    run.child.stdout?.destroy();
    run.child.stderr?.destroy();
    run.child.kill('SIGHUP');
    const r = await run.done;
    assert.equal(r.signal, null, 'killed by the signal');
    assert.equal(r.code, 130);
    await resumeCleanly(path, config, numbers.length);
    assertExactlyOnce(received(), numbers);
  });

  test('a terminal that hangs up (script(1)\'s pseudo-terminal closed, as when ssh drops): SIGHUP and EIO, nothing in doubt', async (t) => {
    try {
      execFileSync('script', ['--version'], { stdio: 'ignore' });
    } catch {
      t.skip('script(1) is not installed: no pseudo-terminal to hang up');
      return;
    }
    const { path, numbers } = numbersOnlyCsv(2000);
    const config = tempDir();
    const command = [...MSGR, 'send-bulk', path, ...MSG, '--batch-size', '50'].map((a) => `'${a}'`).join(' ');
    const run = start('script', ['-qfc', command, '/dev/null'], env(config, { TERM: 'xterm' }));
    await requestsArrived(6);
    // The terminal's other side goes away: the kernel hangs up msgr's terminal.
    run.child.kill('SIGKILL');
    await run.done;
    // msgr outlives its terminal until it has drained; the lock is gone once it has.
    const lock = join(config, 'runs', readdirSync(join(config, 'runs'))[0] ?? '', 'journal.jsonl.lock');
    for (let waited = 0; existsSync(lock) && waited < 20_000; waited += 50) await sleep(50);
    assert.equal(existsSync(lock), false, 'msgr is still running');
    await resumeCleanly(path, config, numbers.length);
    assertExactlyOnce(received(), numbers);
  });

  test('a second Ctrl-C still quits at once (within a second); the batches it cut off are in doubt, so it exits 7, and --resend-in-doubt completes them', async () => {
    server.fallback = { status: 202, body: { ok: true }, delayMs: 1500 };
    const { path, numbers } = numbersOnlyCsv(400);
    const config = tempDir();
    const run = startBulk([path, ...MSG, '--batch-size', '20', '--json'], env(config));
    await requestsArrived(4);
    run.child.kill('SIGINT');
    await sleep(250);
    const second = Date.now();
    run.child.kill('SIGINT');
    const r = await run.done;
    assert.equal(r.code, 7, r.stderr);
    assert.ok(r.at - second < 1_000, `exited ${r.at - second} ms after the second Ctrl-C`);
    assert.match(r.stderr, /interrupted: sending no new batches, waiting for \d+ in flight; Ctrl-C again to quit at once/);
    assert.match(r.stderr, /msgr: interrupted: batches are left in doubt \(a request sent has no answer written down\)/);
    // No summary is written: the command that continues the run is said all the same.
    const resumeLine = `Resume with: msgr send-bulk ${path} --resume`;
    assert.ok(r.stderr.includes(`\nhint: ${resumeLine}\n`), r.stderr);
    // --json still gets its one document, with the exit code.
    const doc = JSON.parse(r.stdout) as { error: { message: string; hint: string; exitCode: number } };
    assert.equal(doc.error.exitCode, 7);
    assert.match(doc.error.message, /^interrupted: quit at once/);
    assert.match(doc.error.hint, /`msgr runs show FILE` lists the run's batches in doubt, and --resume continues it/);
    assert.ok(doc.error.hint.endsWith(`\n      ${resumeLine}`), doc.error.hint);
    // The resumes are answered at once: the latency only kept batches in flight for the Ctrl-Cs.
    server.fallback = { status: 202, body: { ok: true } };
    // The spool (about 70 bytes a row) and the reserve go, as when the run drains: the journal stays.
    const left = (readdirSync(config, { recursive: true }) as string[]).map((f) => basename(f));
    assert.ok(left.includes('journal.jsonl'), left.join(' '));
    assert.deepEqual(left.filter((f) => /\.spool|\.reserve$/.test(f)), []);
    // Quitting at once is the person's choice to abandon the answers: those batches are in doubt.
    const listed = await runCli(['send-bulk', path, '--resume', '--json'], { env: env(config), timeoutMs: 60_000 });
    assert.equal(listed.code, 7, listed.stderr);
    assert.ok((JSON.parse(listed.stdout) as Summary).inDoubt > 0);
    const resent = await runCli(['send-bulk', path, '--resume', '--resend-in-doubt', '--json'], { env: env(config), timeoutMs: 60_000 });
    assert.equal(resent.code, 0, resent.stderr);
    assert.equal((JSON.parse(resent.stdout) as Summary).inDoubt, 0);
    // The API processes an Idempotency-Key once: count each key's recipients once.
    const byKey = new Map<string, string[]>();
    for (const q of server.requests) {
      const key = String(q.headers['idempotency-key']);
      if (!byKey.has(key)) byKey.set(key, ((q.json as { recipients: Array<{ msisdn: string }> }).recipients).map((x) => x.msisdn));
    }
    assertExactlyOnce([...byKey.values()].flat(), numbers);
  });
});

describe('msgr runs while a run is sending', () => {
  test('runs list and runs show name the process sending it (not "unfinished" with its batches in flight in doubt) and give no --resume, which its lock would refuse; once stopped, it is unfinished with nothing in doubt', async () => {
    server.fallback = { status: 202, body: { ok: true }, delayMs: 1500 };
    const config = tempDir();
    const { path } = numbersOnlyCsv(200);
    const run = startBulk([path, ...MSG, '--batch-size', '10', '--concurrency', '2'], env(config));
    await requestsArrived(2);
    interface Listed { runs: Array<{ sending: { pid: number; host: string; since: string } | null; inDoubt: number; finished: boolean }> }
    const list = await runCli(['runs', 'list', '--json'], { env: env(config) });
    assert.equal(list.code, 0, list.stderr);
    assert.equal((JSON.parse(list.stdout) as Listed).runs[0]?.sending?.pid, run.child.pid);
    const table = await runCli(['runs', 'list'], { env: env(config) });
    assert.match(table.stdout, /\ssending$/m);
    const show = await runCli(['runs', 'show', path], { env: env(config) });
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, new RegExp(`^state\\s+sending now \\(msgr pid ${run.child.pid} on .+\\): a batch without its answer yet is in flight`, 'm'));
    assert.doesNotMatch(show.stderr, /continue it with/);
    assert.match(show.stderr, /it is sending now; once it ends, `msgr runs show \S+` says what it left/);
    run.child.kill('SIGTERM');
    assert.equal((await run.done).code, 130);
    const after = JSON.parse((await runCli(['runs', 'list', '--json'], { env: env(config) })).stdout) as Listed;
    assert.deepEqual([after.runs[0]?.sending, after.runs[0]?.inDoubt, after.runs[0]?.finished], [null, 0, false]);
    const again = await runCli(['runs', 'show', path], { env: env(config) });
    assert.match(again.stdout, /^state\s+unfinished/m);
    assert.match(again.stderr, /continue it with: msgr send-bulk .* --resume/);
  });
});

describe('a full disk mid-run', () => {
  test('a 16 MB tmpfs filled while batches are in flight: exit 130 naming the folder and the space needed; --resume after freeing space exits 0 with nothing in doubt', async (t) => {
    const mount = tmpfs(t, '16m');
    if (mount === undefined) return;
    try {
      const { path, numbers } = numbersOnlyCsv(3000);
      const config = join(mount, 'state');
      mkdirSync(config);
      // Each request waits until the test answers it, so that batches are in flight, whatever the
      // machine's speed, when a "send" line meets the full disk. With every answer due at once, a
      // whole window's answers could come in one turn and the next window's lines find none in flight.
      const answers: Array<() => void> = [];
      server.answer = () => {
        const h = hold();
        answers.push(h.release);
        return { status: 202, body: { ok: true }, until: h.until };
      };
      const run = startBulk([path, ...MSG, '--batch-size', '50'], env(config));
      let stopping = false;
      void stderrSays(run, /sending no new batches/).then(() => (stopping = true), () => undefined);
      await requestsArrived(4);
      // Fill every byte left, while 4 requests are waiting for their answers.
      const filler = join(mount, 'filler');
      const fd = openSync(filler, 'w');
      const chunk = Buffer.alloc(64 * 1024, 1);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      } finally {
        closeSync(fd);
      }
      const small = Buffer.alloc(512, 1);
      const fd2 = openSync(join(mount, 'filler2'), 'w');
      try {
        for (;;) writeSync(fd2, small);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      } finally {
        closeSync(fd2);
      }
      // One answer at a time: each frees a slot for a new batch while the other three wait, until
      // a batch's "send" line finds no room (tmpfs gives room by the page: some lines still fit).
      for (let answered = 0; !stopping; answered++) {
        const before = server.requests.length;
        answers[answered]?.();
        await waitFor('a new batch, or msgr to stop sending', () => stopping || server.requests.length > before);
      }
      server.answer = undefined;
      for (const release of answers) release();
      const r = await run.done;
      assert.equal(r.code, 130, r.stderr);
      const runDir = join(config, 'runs', readdirSync(join(config, 'runs'))[0] ?? '');
      assert.match(r.stderr, new RegExp(`no space left in ${runDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      assert.match(r.stderr, /sending no new batches, recording the answers of \d+ in flight/);
      assert.match(r.stderr, /sending stopped with [\d,]+ of 3,000 recipients accepted, none in doubt; free at least [\d.]+ [KM]B there, then resume/);
      assert.match(r.stderr, /Resume with: msgr send-bulk \S+ --resume/);
      assert.doesNotMatch(r.stderr, /[\d,]+ in doubt|in doubt:/);
      assertNoStack(r);
      // Still full: the resume refuses before sending anything, and says what to free.
      const sentBefore = server.requests.length;
      const refused = await runCli(['send-bulk', path, '--resume'], { env: env(config), timeoutMs: 60_000 });
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /no space left in /);
      assertNoStack(refused);
      assert.equal(server.requests.length, sentBefore);
      rmSync(filler);
      rmSync(join(mount, 'filler2'));
      await resumeCleanly(path, config, numbers.length);
      assertExactlyOnce(received(), numbers);
    } finally {
      unmount(mount);
    }
  });
});

describe('a full disk under the report only', () => {
  test('the report\'s folder fills mid-run (the journal\'s has room): exit 130 naming that folder and the room the whole report needs, not the journal\'s reserve; the earlier report is as it was', async (t) => {
    const mount = tmpfs(t, '64k');
    if (mount === undefined) return;
    try {
      const { path, numbers } = numbersOnlyCsv(3000);
      const config = tempDir();
      const report = join(mount, 'r.csv');
      writeFileSync(report, 'old,report\n');
      server.fallback = { status: 202, body: { ok: true }, delayMs: 20 };
      const r = await runCli(['send-bulk', path, ...MSG, '--batch-size', '10', '--report', report], { env: env(config), timeoutMs: 60_000 });
      assert.equal(r.code, 130, r.stderr);
      assert.match(r.stderr, new RegExp(`^warning: no space left in ${mount} for the report: ${report} was not written`, 'm'));
      // 3,000 rows of report; the journal's reserve and input belong to another folder.
      assert.match(r.stderr, new RegExp(`^error: no space left in ${mount}: sending stopped with [\\d,]+ of 3,000 recipients accepted, none in doubt; free at least 384 KB there, then resume$`, 'm'));
      assertNoStack(r);
      assert.equal(readFileSync(report, 'utf8'), 'old,report\n');
      assert.ok(server.requests.length < numbers.length / 10, 'the run did not stop');
    } finally {
      unmount(mount);
    }
  });
});

describe('the --report file when the run does not end normally', () => {
  /** A report folder holding an earlier report. */
  function oldReport(dir = tempDir('msgr-report-')): string {
    const report = join(dir, 'r.csv');
    writeFileSync(report, 'old,report\n');
    return report;
  }

  /** What is left beside the report: msgr's own temporary file at most, named with its pid. */
  function leftBeside(report: string, pid: number | undefined): string[] {
    return readdirSync(dirname(report)).filter((f) => f !== basename(report)).map((f) => f.replace(String(pid), 'PID'));
  }

  test('two Ctrl-Cs: the old report stays as it was (it was emptied), and the one being written is removed', async () => {
    server.fallback = { status: 202, body: { ok: true }, delayMs: 1500 };
    const { path } = numbersOnlyCsv(400);
    const report = oldReport();
    const run = startBulk([path, ...MSG, '--batch-size', '20', '--report', report], env(tempDir()));
    await requestsArrived(4);
    run.child.kill('SIGINT');
    await sleep(250);
    run.child.kill('SIGINT');
    const r = await run.done;
    assert.match(r.stderr, /msgr: interrupted/);
    assert.equal(readFileSync(report, 'utf8'), 'old,report\n');
    assert.deepEqual(leftBeside(report, run.child.pid), []);
  });

  test('msgr runs report stopped by SIGTERM, SIGHUP or Ctrl-C: exit 130, the old report stays as it was, and neither its .partial nor the scratch spool in TMPDIR is left', async () => {
    server.fallback = { status: 202, body: { ok: true } };
    const config = tempDir();
    // A stop while the report is written exits 130, not 0 (asserted): 300 rows were enough on the
    // 2-core machine, 5,000 keep a margin; 100,000 took 1.4 s of CPU, these 0.7 s.
    const { path } = numbersOnlyCsv(5_000);
    const sent = await runCli(['send-bulk', path, ...MSG, '--batch-size', '500'], { env: env(config), timeoutMs: 60_000 });
    assert.equal(sent.code, 0, sent.stderr);
    for (const sig of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) {
      const report = oldReport();
      const tmp = tempDir('msgr-tmpdir-');
      const run = start(...msgrCommand(['runs', 'report', path, '--report', report, '--json']), env(config, { TMPDIR: tmp }));
      // Stopped while the report is being written (its temporary file is there).
      for (let waited = 0; leftBeside(report, run.child.pid).length === 0 && waited < 10_000; waited += 2) await sleep(2);
      run.child.kill(sig);
      const r = await run.done;
      assert.equal(r.code, 130, `${sig}: ${r.stderr}`);
      assert.equal((JSON.parse(r.stdout) as { error: { exitCode: number } }).error.exitCode, 130);
      assert.equal(readFileSync(report, 'utf8'), 'old,report\n');
      assert.deepEqual(leftBeside(report, run.child.pid), [], `${sig}: the report's temporary file was left`);
      // msgr's own scratch folders only (Node 22+ keeps its compile cache in TMPDIR too).
      assert.deepEqual(readdirSync(tmp).filter((f) => f.startsWith('msgr-')), [], `${sig}: scratch files were left in TMPDIR`);
      assertNoStack(r);
    }
  });

  test('kill -9: the old report stays as it was; the one being written is left aside as r.csv.msgr-<pid>.partial', async () => {
    const { path } = numbersOnlyCsv(2000);
    const report = oldReport();
    const run = startBulk([path, ...MSG, '--batch-size', '50', '--report', report], env(tempDir()));
    await requestsArrived(6);
    run.child.kill('SIGKILL');
    assert.equal((await run.done).signal, 'SIGKILL');
    assert.equal(readFileSync(report, 'utf8'), 'old,report\n');
    assert.deepEqual(leftBeside(report, run.child.pid), ['r.csv.msgr-PID.partial']);
  });

  test('a run stopped once (drained) writes its whole report, every row, over the old one, and leaves nothing beside it', async () => {
    const { path, numbers } = numbersOnlyCsv(2000);
    const report = oldReport();
    const run = startBulk([path, ...MSG, '--batch-size', '50', '--report', report], env(tempDir()));
    await requestsArrived(6);
    run.child.kill('SIGTERM');
    const r = await run.done;
    assert.equal(r.code, 130, r.stderr);
    const lines = readFileSync(report, 'utf8').trim().split('\n');
    assert.equal(lines[0], 'line,number,outcome,status,message_id,error,request_fields');
    assert.equal(lines.length, numbers.length + 1);
    assert.deepEqual(leftBeside(report, run.child.pid), []);
  });

  test('the report\'s folder fills up: the run stops, the old report stays as it was and no temporary file is left', async (t) => {
    const mount = tmpfs(t, '256k');
    if (mount === undefined) return;
    try {
      const { path } = numbersOnlyCsv(20000);
      const report = oldReport(mount);
      // Filled before the run: the report's first 64 KiB write finds no room.
      const fd = openSync(join(mount, 'filler'), 'w');
      try {
        for (;;) writeSync(fd, Buffer.alloc(4096, 1));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      } finally {
        closeSync(fd);
      }
      server.fallback = { status: 202, body: { ok: true } };
      const run = startBulk([path, ...MSG, '--batch-size', '100', '--report', report, '--json'], env(tempDir()));
      const r = await run.done;
      assert.equal(r.code, 130, r.stderr);
      const doc = JSON.parse(r.stdout) as { stopped: string; report: string | null };
      assert.equal(doc.stopped, 'disk-full');
      assert.equal(doc.report, null);
      assert.match(r.stderr, new RegExp(`no space left in ${mount.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      assert.equal(readFileSync(report, 'utf8'), 'old,report\n');
      assert.deepEqual(leftBeside(report, run.child.pid), ['filler']);
      assertNoStack(r);
    } finally {
      unmount(mount);
    }
  });
});
