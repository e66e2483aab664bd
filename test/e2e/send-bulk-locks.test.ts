// A bulk run's lock as an operator meets it on this host (docs/unattended.md: "An overlapping run",
// "A stopped run"): a run suspended with Ctrl-Z keeps its lock, and a later command says so (exit
// 2) rather than "running now"; a key's run being sent now by another process refuses another
// message under the key; and the partial report a killed run left beside the report is removed by
// a later run writing it. Against the scriptable server on 127.0.0.1. Another host's lock needs no
// second process: test/unit/commands/send-bulk/once-the-cron-line.test.ts.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { cleanEnv, msgrCommand, ROOT, runCli, tempDir, type RunResult } from '../support/cli.js';
import { keyLock, quietFor } from '../support/run-lock.js';
import { type ReceivedRequest, type ScriptedResponse, useTestServer } from '../support/test-server.js';

const ACCEPT: ScriptedResponse = { status: 202, body: { status: 'accepted', messages: [{ id: 'm-1' }] } };

function env(baseUrl: string, config: string, extra: Record<string, string> = {}): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: config, MSGR_API_KEY: 'sk_test_locks', MSGR_BASE_URL: baseUrl, MSGR_ACCOUNT_REFERENCE: 'ACME01', ...extra });
}

function msgr(args: string[], e: Record<string, string>): Promise<RunResult> {
  return runCli(args, { env: e, timeoutMs: 60_000 });
}

/** A msgr started in the background: the child (to signal it) and how it ends. */
function start(args: string[], e: Record<string, string>): { child: ChildProcess; done: Promise<RunResult> } {
  const child = spawn(...msgrCommand(args), { cwd: ROOT, env: e, stdio: ['ignore', 'pipe', 'pipe'] });
  const done = new Promise<RunResult>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(ok(), `timed out waiting until ${what}`);
}

function recipients(requests: readonly ReceivedRequest[]): string[] {
  return requests.flatMap((q) => ((q.json as { recipients?: Array<{ msisdn: string }> } | undefined)?.recipients ?? []).map((r) => r.msisdn));
}

function texts(requests: readonly ReceivedRequest[]): string[] {
  return requests.map((q) => (q.json as { body?: { text?: string } } | undefined)?.body?.text ?? '');
}

function numbers(n: number, start: number): string[] {
  return Array.from({ length: n }, (_, i) => `+4479111${String(start + i).padStart(5, '0')}`);
}

function writeList(path: string, list: readonly string[]): string {
  writeFileSync(path, `msisdn\n${list.join('\n')}\n`);
  return path;
}

function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

const server = useTestServer({ reset: (s) => (s.answer = () => ACCEPT) });

/**
 * Starts `line` against a server answering each batch in 300 ms and suspends it (Ctrl-Z's
 * SIGSTOP) once it is sending; killed at the end of the test whatever happens.
 */
async function startStopped(t: TestContext, line: string[], e: Record<string, string>): Promise<{ child: ChildProcess; done: Promise<RunResult>; pid: number }> {
  server.answer = () => ({ ...ACCEPT, delayMs: 300 });
  const first = start(line, e);
  t.after(() => first.child.kill('SIGKILL'));
  await until('the first run is sending', () => server.requests.length > 0);
  first.child.kill('SIGSTOP');
  return { ...first, pid: first.child.pid ?? 0 };
}

/**
 * Answers each batch in `ms` while the test still needs the run to be sending (until the
 * returned function is called), then at once: the run stays "being sent now" for the commands
 * run beside it however long they take, and then finishes without waiting.
 */
function slowWhileNeeded(ms: number): () => void {
  let needed = true;
  server.answer = () => (needed ? { ...ACCEPT, delayMs: ms } : ACCEPT);
  return () => {
    needed = false;
  };
}

describe('a run suspended with Ctrl-Z', () => {
  test('a keyed run stopped on this host keeps its lock; a later tick says so under -q (pid, how long, what to do) and exits 2, and the run finishes once continued', async (t) => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const file = writeList(join(dir, 'today.csv'), numbers(3, 970));
    const line = ['send-bulk', file, '--once', 'reminders-stopped', '--from', 'Clinic', '--text', 'See you tomorrow', '--batch-size', '1', '--concurrency', '1', '--yes', '-q'];
    const first = await startStopped(t, line, env(server.url, config));
    const { pid } = first;
    // Twelve minutes later: its heartbeat stopped with it.
    const lock = keyLock(config, 'reminders-stopped');
    quietFor(lock, 12 * 60_000);
    const sent = server.requests.length;
    const tick = await msgr(line, env(server.url, config));
    assert.equal(tick.code, 2, tick.stderr);
    assert.match(tick.stderr, new RegExp(`^error: the msgr running this bulk job \\(pid ${pid}, started [^,]+, msgr send-bulk [^)]*--once reminders-stopped\\) has been stopped for 12 min \\(suspended, Ctrl-Z\\?\\): nothing is being sent, and this command sent nothing`, 'm'));
    assert.match(tick.stderr, new RegExp(`kill -CONT ${pid}`));
    assert.equal(server.requests.length, sent);
    assert.equal((JSON.parse(readFileSync(lock, 'utf8')) as { pid: number }).pid, pid, 'the stopped run keeps its lock');
    // msgr runs says it is stopped, not sending.
    const listed = await msgr(['runs', 'list', '--json'], env(server.url, config));
    const runs = (JSON.parse(listed.stdout) as { runs: Array<{ runId: string; sending: { pid: number; stopped: boolean } | null }> }).runs;
    assert.deepEqual(runs.map((r) => [r.sending?.pid, r.sending?.stopped]), [[pid, true]]);
    const shown = await msgr(['runs', 'show', runs[0]?.runId ?? '?'], env(server.url, config));
    assert.match(shown.stdout, new RegExp(`state +stopped \\(msgr pid ${pid} on \\S+, since [^,]+, suspended: no heartbeat for 12 min\\): nothing is being sent until it is continued \\(kill -CONT ${pid}\\)`));
    // Continued, the rest is answered at once.
    server.answer = () => ACCEPT;
    first.child.kill('SIGCONT');
    const done = await first.done;
    assert.deepEqual([done.code, done.stderr], [0, '']);
    assert.deepEqual(recipients(server.requests).sort(), numbers(3, 970));
  });

  test('without a key too: --resume beside a stopped run of the file says it is stopped, not only that another msgr runs it', async (t) => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const file = writeList(join(dir, 'list.csv'), numbers(3, 980));
    const line = ['send-bulk', file, '--from', 'Clinic', '--text', 'Hello', '--batch-size', '1', '--concurrency', '1', '--yes', '-q'];
    const first = await startStopped(t, line, env(server.url, config));
    const { pid } = first;
    const folder = readdirSync(join(config, 'runs')).find((f) => existsSync(join(config, 'runs', f, 'journal.jsonl.lock')));
    assert.ok(folder !== undefined);
    quietFor(join(config, 'runs', folder, 'journal.jsonl.lock'), 3 * 3600_000);
    const resume = await msgr([...line, '--resume'], env(server.url, config));
    assert.equal(resume.code, 2, resume.stderr);
    assert.match(resume.stderr, new RegExp(`\\(pid ${pid}, .*\\) has been stopped for 3 h`));
    server.answer = () => ACCEPT;
    first.child.kill('SIGCONT');
    assert.equal((await first.done).code, 0);
  });
});

describe('campaign keys: a run being sent now', () => {
  test('send-bulk --once: another message under a key whose run is being sent now is refused (exit 2), as send --once refuses it, not "running now" (exit 0, silent under -q)', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const file = writeList(join(dir, 'today.csv'), numbers(3, 300));
    const notNeeded = slowWhileNeeded(1500);
    const first = start(['send-bulk', file, '--once', 'reminders-busy', '--from', 'Clinic', '--text', 'See you tomorrow', '--batch-size', '1', '--concurrency', '1'], env(server.url, config));
    await until('the first run is sending', () => server.requests.length > 0);
    assert.equal(server.requests.length, 1, 'the first run is sending');
    const other = await msgr(['send-bulk', file, '--once', 'reminders-busy', '--from', 'Clinic', '--text', 'The clinic is closed tomorrow', '-q'], env(server.url, config));
    // The same command as the run being sent: that run's to finish, as before.
    const same = await msgr(['send-bulk', file, '--once', 'reminders-busy', '--from', 'Clinic', '--text', 'See you tomorrow', '-q', '--json'], env(server.url, config));
    notNeeded();
    const done = await first.done;
    assert.equal(done.code, 0, done.stderr);
    assert.equal(other.code, 2, `another message under the key: ${other.stderr}`);
    assert.match(other.stderr, /another message/);
    assert.match(other.stderr, /^error: --once reminders-busy was used for run \S+ \(started [^)]+\): \S+today\.csv, 3 rows, text "See you tomorrow", from Clinic; this command sends another message \(body differs\); nothing was sent$/m);
    // A run being sent cannot be abandoned: the hint does not offer --restart.
    assert.doesNotMatch(other.stderr, /--restart/);
    assert.equal(same.code, 0, same.stderr);
    assert.equal(same.stderr, '');
    assert.equal((JSON.parse(same.stdout) as { runningNow: { pid: number } }).runningNow.pid, first.child.pid);
    assert.deepEqual(texts(server.requests), ['See you tomorrow', 'See you tomorrow', 'See you tomorrow']);
  });

  test('other data under a key whose run is being sent now is refused too (exit 2), naming the file and its size', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const file = writeList(join(dir, 'today.csv'), numbers(3, 310));
    const other = writeList(join(dir, 'other.csv'), numbers(5, 320));
    const notNeeded = slowWhileNeeded(1000);
    const first = start(['send-bulk', file, '--once', 'reminders-busy-data', '--from', 'Clinic', '--text', 'See you tomorrow', '--batch-size', '1', '--concurrency', '1', '-q'], env(server.url, config));
    await until('the first run is sending', () => server.requests.length > 0);
    const refused = await msgr(['send-bulk', other, '--once', 'reminders-busy-data', '--from', 'Clinic', '--text', 'See you tomorrow', '-q'], env(server.url, config));
    notNeeded();
    assert.equal((await first.done).code, 0);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /other\.csv holds other data \(\d+ bytes, \d+ then\); nothing was sent/);
    assert.deepEqual(recipients(server.requests).sort(), numbers(3, 310));
  });
});

describe('--report after kill -9', () => {
  test('the partial report a killed run left is removed by the next run writing that report; one of a live process stays', async (t) => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const file = writeList(join(dir, 'today.csv'), numbers(3, 990));
    const report = join(dir, 'report.csv');
    const line = ['send-bulk', file, '--once', 'reminders-report', '--from', 'Clinic', '--text', 'See you tomorrow', '--batch-size', '1', '--concurrency', '1', '--yes', '-q', '--report', report];
    server.answer = () => ({ ...ACCEPT, delayMs: 500 });
    const first = start(line, env(server.url, config));
    t.after(() => first.child.kill('SIGKILL'));
    const partial = `${report}.msgr-${first.child.pid}.partial`;
    await until('the first run is sending', () => server.requests.length > 0 && existsSync(partial));
    first.child.kill('SIGKILL');
    assert.equal((await first.done).signal, 'SIGKILL');
    assert.ok(existsSync(partial), 'kill -9 leaves the partial report');
    // Another msgr writing this report right now (this test's own process stands for it), and
    // an old partial of a process that has ended.
    const live = `${report}.msgr-${process.pid}.partial`;
    writeFileSync(live, 'line,number,outcome,status,message_id,error\n');
    const older = `${report}.msgr-${deadPid()}.partial`;
    writeFileSync(older, '');
    server.answer = () => ACCEPT;
    // The batch in flight at the kill is in doubt: sent again under its Idempotency-Key, as the
    // run's hint offers.
    const next = await msgr([...line, '--resume', '--resend-in-doubt'], env(server.url, config));
    assert.deepEqual([next.code, next.stderr], [0, '']);
    assert.equal(existsSync(partial), false, 'the killed run\'s partial report is removed');
    assert.equal(existsSync(older), false);
    assert.ok(existsSync(live), 'a live process\'s partial report stays');
    assert.ok(statSync(report).size > 0);
    assert.equal(readdirSync(dir).sort().join(' '), ['report.csv', `report.csv.msgr-${process.pid}.partial`, 'state', 'today.csv'].sort().join(' '));
  });

  test('msgr runs report removes them too', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const file = writeList(join(dir, 'today.csv'), numbers(2, 995));
    const sent = await msgr(['send-bulk', file, '--once', 'reminders-runs-report', '--from', 'Clinic', '--text', 'Hi', '--yes', '-q', '--json'], env(server.url, config));
    assert.equal(sent.code, 0, sent.stderr);
    const { runId } = JSON.parse(sent.stdout) as { runId: string };
    const report = join(dir, 'outcomes.jsonl');
    const older = `${report}.msgr-${deadPid()}.partial`;
    writeFileSync(older, '{}\n');
    const written = await msgr(['runs', 'report', runId, '--report', report], env(server.url, config));
    assert.equal(written.code, 0, written.stderr);
    assert.equal(existsSync(older), false);
    assert.equal(readFileSync(report, 'utf8').trim().split('\n').length, 2);
  });
});
