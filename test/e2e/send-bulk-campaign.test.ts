// A campaign as an operator runs it, end to end against real servers on 127.0.0.1: where a run
// sends (a resume against another target is refused), outcomes that last (message ids in the
// journal, `msgr runs`), changed files and follow-up campaigns (--skip-sent, --restart), and a
// state folder that cannot be written.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.js';
import { cleanEnv, killRepeatedly, msgrCommand, ROOT, runCli, tempDir, type RunResult } from '../support/cli.js';
import { type ReceivedRequest, type ScriptedResponse, startTestServer, type TestServer, useTestServer } from '../support/test-server.js';
import { waitFor } from '../support/daemon.js';

const KEY = 'test-key-1234';
const MSG = ['--from', 'Acme', '--text', 'Hello there'];

function env(baseUrl: string, configDir: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: configDir, MSGR_API_KEY: KEY, MSGR_BASE_URL: baseUrl, MSGR_ACCOUNT_REFERENCE: 'ACME01', ...extra });
}

function numbers(n: number, start = 0): string[] {
  return Array.from({ length: n }, (_, i) => `+4479111${String(start + i).padStart(5, '0')}`);
}

function writeCsv(path: string, list: string[]): string {
  writeFileSync(path, `msisdn,name\n${list.map((m, i) => `${m},N${i}`).join('\n')}\n`);
  return path;
}

function bulk(args: string[], e: Record<string, string>): Promise<RunResult> {
  return runCli(['send-bulk', ...args], { env: e, timeoutMs: 60_000 });
}

function runs(args: string[], e: Record<string, string>): Promise<RunResult> {
  return runCli(['runs', ...args], { env: e, timeoutMs: 60_000 });
}

/** Every number each server accepted (answered 2xx), in order. */
const acceptedBy = new WeakMap<TestServer, string[]>();

function sentNumbers(server: TestServer): string[] {
  return acceptedBy.get(server) ?? [];
}

function resetServer(server: TestServer): void {
  server.requests.length = 0;
  acceptedBy.set(server, []);
}

/** Accepts every request with one id per recipient: `id-<number>`. */
function acceptWithIds(server: TestServer): (r: ReceivedRequest) => ScriptedResponse {
  return (r) => {
    const recipients = (r.json as { recipients?: Array<{ msisdn: string }> } | undefined)?.recipients ?? [];
    const log = acceptedBy.get(server) ?? [];
    acceptedBy.set(server, log);
    log.push(...recipients.map((x) => x.msisdn));
    return { status: 202, body: { messages: recipients.map((x) => ({ msisdn: x.msisdn, id: `id-${x.msisdn}` })) } };
  };
}

function acceptThenRefuse(server: TestServer, n: number): void {
  let count = 0;
  const accept = acceptWithIds(server);
  server.answer = (r) => (++count <= n ? accept(r) : { status: 401, body: { title: 'Unauthorized' } });
}

function assertExactlyOnce(got: string[], expected: string[]): void {
  const dupes = got.filter((m, i) => got.indexOf(m) !== i);
  assert.deepEqual(dupes, [], 'a recipient got the message twice');
  assert.deepEqual([...got].sort(), [...expected].sort());
}

function assertNoBug(r: RunResult): void {
  assert.doesNotMatch(r.stderr, /internal error|bug in msgr/);
  assert.doesNotMatch(r.stderr, /\n\s+at .+:\d+:\d+/, 'stack trace without --verbose');
}

function csvRows(path: string): Array<Record<string, string>> {
  const [head, ...lines] = readFileSync(path, 'utf8').trim().split('\n');
  const cols = (head ?? '').split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i] ?? '', v])));
}

describe('run identity: a resume sends where the run started, or not at all', () => {
  const a = useTestServer();

  test('a sandbox trial keeps its state apart: it neither blocks nor shadows the real run of the same file', async () => {
    resetServer(a);
    a.answer = acceptWithIds(a);
    const dir = tempDir();
    const config = join(dir, 'state');
    const list = numbers(12);
    const file = writeCsv(join(dir, 'c.csv'), list);
    // A sandbox trial of the file, killed part way once its journal exists (or finished, on a fast
    // machine): either way its journal must not stand in the real run's way. (Killed at a fixed
    // 600 ms, a loaded machine had made the sandbox's runs folder but no journal yet.)
    const sbx = spawn(...msgrCommand(['send-bulk', file, ...MSG, '--sandbox', '--batch-size', '1', '--concurrency', '1']), { cwd: ROOT, env: env(a.url, config), stdio: 'ignore' });
    let ended = false;
    const closed = new Promise((r) => sbx.on('close', r)).then(() => (ended = true));
    const sandboxRuns = join(config, 'sandbox', 'runs');
    const journaled = (): boolean => existsSync(sandboxRuns) && readdirSync(sandboxRuns, { recursive: true }).some((f) => String(f).endsWith('journal.jsonl'));
    await waitFor("the sandbox trial's journal", () => ended || journaled(), 30_000);
    sbx.kill('SIGKILL');
    await closed;
    assert.ok(journaled(), 'the sandbox trial wrote its journal');
    const resumeReal = await bulk([file, '--resume'], env(a.url, config));
    assert.equal(resumeReal.code, 2, resumeReal.stderr);
    assert.match(resumeReal.stderr, /nothing to resume/);
    assert.match(resumeReal.stderr, /There is a sandbox run of this file .*with --sandbox/);
    const real = await bulk([file, ...MSG], env(a.url, config));
    assert.equal(real.code, 0, real.stderr);
    assert.doesNotMatch(real.stderr, /earlier run|unfinished run/);
    assertExactlyOnce(sentNumbers(a), list);
  });

});

describe('outcomes that last: message ids in the journal, msgr runs', () => {
  const server = useTestServer();

  test('runs show of a run whose resume is sending, then was killed: neither is told as the earlier process\'s stop', async () => {
    resetServer(server);
    acceptThenRefuse(server, 1);
    const dir = tempDir();
    const config = join(dir, 'state');
    const file = writeCsv(join(dir, 'k.csv'), numbers(6));
    const first = await bulk([file, ...MSG, '--batch-size', '2', '--concurrency', '1'], env(server.url, config));
    assert.equal(first.code, 3, first.stderr);
    const stopped = await runs(['show', file], env(server.url, config));
    assert.match(stopped.stdout, /state\s+unfinished \(last stop: auth\)/);

    // The resume's request gets no answer while it runs; then it is killed.
    const answered = server.requests.length;
    server.answer = () => ({ status: 202, body: {}, delayMs: 5_000 });
    const child = spawn(...msgrCommand(['send-bulk', file, '--resume', '--concurrency', '1']), { cwd: ROOT, env: env(server.url, config), stdio: 'ignore' });
    const closed = new Promise((r) => child.on('close', r));
    for (let i = 0; i < 200 && server.requests.length === answered; i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(server.requests.length > answered, 'the resume sent its request');
    const sending = await runs(['show', file], env(server.url, config));
    assert.match(sending.stdout, new RegExp(`state\\s+sending now \\(msgr pid ${child.pid ?? 0} on `));
    child.kill('SIGKILL');
    await closed;
    const killed = await runs(['show', file], env(server.url, config));
    assert.equal(killed.code, 0, killed.stderr);
    assert.match(killed.stdout, /state\s+unfinished \(its last process wrote no stop: it was killed, or the machine went down\)/);
    assert.doesNotMatch(killed.stdout, /last stop: auth/);
    assert.match(killed.stdout, /in doubt\s+2\b/);
    server.answer = acceptWithIds(server);
  });

});

describe('kill -9 with --skip-sent and --resume', () => {
  let sbx: RunningSandbox;
  let record: string;
  before(async () => {
    record = join(tempDir('msgr-bulk-rec-'), 'record.jsonl');
    sbx = await startSandbox({ port: 0, record, apiKey: KEY, latencyMs: 25 });
  });
  after(async () => {
    await sbx.close();
  });

  test('a follow-up of an extended file, killed at random points and resumed, reaches every number exactly once', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const base = numbers(150);
    const file = writeCsv(join(dir, 'c.csv'), base);
    const first = await bulk([file, ...MSG, '--batch-size', '10', '--json'], env(sbx.url, config));
    assert.equal(first.code, 0, first.stderr);
    const runId = (JSON.parse(first.stdout) as { runId: string }).runId;
    const extended = [...numbers(150, 1000), ...base.slice(0, 75), ...numbers(150, 2000), ...base.slice(75)];
    const file2 = writeCsv(join(dir, 'c2.csv'), extended);
    const journal = join(config, 'follow.jsonl');
    const args = [file2, ...MSG, '--batch-size', '4', '--concurrency', '3', '--skip-sent', runId, '--journal', journal];
    const resume = [file2, '--resume', '--resend-in-doubt', '--journal', journal];
    const kills = await killRepeatedly({ args, resume, journal, env: env(sbx.url, config) });
    assert.ok(kills >= 1);
    const final = await bulk(existsSync(journal) ? resume : args, env(sbx.url, config));
    assert.equal(final.code, 0, final.stderr);
    const got = readFileSync(record, 'utf8').trim().split('\n').flatMap((l) => (JSON.parse(l) as { request: { recipients: Array<{ msisdn: string }> } }).request.recipients.map((x) => x.msisdn));
    assertExactlyOnce(got, [...base, ...numbers(150, 1000), ...numbers(150, 2000)]);
    if (existsSync(journal)) {
      const rep = join(dir, 'follow.csv');
      const r = await runs(['report', journal, '--report', rep], env(sbx.url, config));
      assert.equal(r.code, 0, r.stderr);
      const rows = csvRows(rep);
      assert.equal(rows.length, extended.length);
      assert.ok(rows.every((x) => (x.outcome === 'accepted' || x.outcome === 'already-sent') && /^sbx_m_/.test(x.message_id ?? '')), 'every row has the id of the run that accepted it');
    }
  });
});

describe('a state folder that cannot be written is an environment error, before anything is sent', () => {
  let server: TestServer;
  let mounts: string[] = [];
  const canMount = process.platform === 'linux' && spawnSync('mount', ['--version']).status === 0;
  before(async () => {
    server = await startTestServer();
    server.answer = acceptWithIds(server);
  });
  after(async () => {
    for (const m of mounts) spawnSync('umount', [m]);
    mounts = [];
    await server.close();
  });

  function mountTmpfs(options: string): string | undefined {
    const dir = tempDir('msgr-mnt-');
    const r = spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir]);
    if (r.status !== 0) return undefined;
    mounts.push(dir);
    return dir;
  }

  test('a read-only state folder: exit 2 with the path and what to do, never "a bug in msgr"', async (t) => {
    // Tests run as root, where chmod does not stop writes: a read-only mount does.
    const ro = canMount ? mountTmpfs('size=1m,ro') : undefined;
    if (ro === undefined) {
      t.skip('cannot mount a read-only tmpfs here (needs root and mount)');
      return;
    }
    resetServer(server);
    const file = writeCsv(join(tempDir(), 'c.csv'), numbers(5));
    const r = await bulk([file, ...MSG], env(server.url, ro));
    assert.equal(r.code, 2, r.stderr);
    assertNoBug(r);
    assert.match(r.stderr, new RegExp(`cannot create the folder ${ro}/runs \\(the file system is read-only, EROFS\\); nothing was sent`));
    assert.match(r.stderr, /--journal, or MSGR_CONFIG_DIR/);
    assert.equal(server.requests.length, 0);
  });

  test('a full disk under the state folder: exit 2 with the path and what to do', async (t) => {
    const full = canMount ? mountTmpfs('size=64k') : undefined;
    if (full === undefined) {
      t.skip('cannot mount a small tmpfs here (needs root and mount)');
      return;
    }
    mkdirSync(join(full, 'runs'), { recursive: true });
    spawnSync('dd', ['if=/dev/zero', `of=${join(full, 'fill')}`, 'bs=4k']);
    resetServer(server);
    const file = writeCsv(join(tempDir(), 'c.csv'), numbers(5));
    const r = await bulk([file, ...MSG], env(server.url, full));
    assert.equal(r.code, 2, r.stderr);
    assertNoBug(r);
    assert.match(r.stderr, new RegExp(`no space left in ${full}\\S*: the run stopped before sending anything; free at least [\\d.]+ [KM]?B there`));
    assert.equal(server.requests.length, 0);
    rmSync(join(full, 'fill'));
  });

});
