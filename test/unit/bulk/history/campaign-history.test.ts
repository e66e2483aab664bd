// A campaign as an operator runs it: where a run sends (a resume against another target is
// refused), outcomes that last (message ids in the journal, `msgr runs`), changed files and
// follow-up campaigns (--skip-sent, --restart). Run in-process (test/support/in-process.ts) against
// servers on free ports of 127.0.0.1; what needs a process (kill -9, tmpfs) is e2e (send-bulk-campaign).
import assert from 'node:assert/strict';
import fs, { appendFileSync, readFileSync, readdirSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { realFile, runDirFor } from '../../../../src/bulk/history/state-folder.js';
import { cleanEnv, tempDir, type RunResult } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { type ReceivedRequest, type ScriptedResponse, type TestServer, useTestServer } from '../../../support/test-server.js';

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
  return runInProcess(['send-bulk', ...args], { env: e, timeoutMs: 60_000 });
}

function runs(args: string[], e: Record<string, string>): Promise<RunResult> {
  return runInProcess(['runs', ...args], { env: e, timeoutMs: 60_000 });
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

/** Accepts the first `n` requests, then refuses the key: the run stops (exit 3) with the rest not sent. */
/** A new file of `n` numbers in a folder of its own, sent once by a run that finished with every row accepted (with ids). */
async function finishedRun(server: TestServer, n: number, name = 'c.csv'): Promise<{ dir: string; config: string; list: string[]; file: string; first: RunResult; runId: string }> {
  resetServer(server);
  server.answer = acceptWithIds(server);
  const dir = tempDir();
  const config = join(dir, 'state');
  const list = numbers(n);
  const file = writeCsv(join(dir, name), list);
  const first = await bulk([file, ...MSG, '--json'], env(server.url, config));
  assert.equal(first.code, 0, first.stderr);
  return { dir, config, list, file, first, runId: (JSON.parse(first.stdout) as { runId: string }).runId };
}

function acceptThenRefuse(server: TestServer, n: number): void {
  let count = 0;
  const accept = acceptWithIds(server);
  server.answer = (r) => (++count <= n ? accept(r) : { status: 401, body: { title: 'Unauthorized' } });
}

/**
 * A new file of `n` numbers in a folder of its own, whose run stopped on a 401 after two batches of
 * 3 were accepted: unfinished, 6 numbers accepted. The server accepts everything from then on.
 */
async function stoppedRun(server: TestServer, n: number): Promise<{ dir: string; config: string; list: string[]; file: string }> {
  resetServer(server);
  acceptThenRefuse(server, 2);
  const dir = tempDir();
  const config = join(dir, 'state');
  const list = numbers(n);
  const file = writeCsv(join(dir, 'c.csv'), list);
  const first = await bulk([file, ...MSG, '--batch-size', '3', '--concurrency', '1'], env(server.url, config));
  assert.equal(first.code, 3, first.stderr);
  server.answer = acceptWithIds(server);
  return { dir, config, list, file };
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
  const b = useTestServer();

  test('--resume against another base URL or account is refused before anything is sent (both servers counted); the right target finishes it once, with a new key if need be', async () => {
    resetServer(a);
    resetServer(b);
    b.answer = acceptWithIds(b);
    acceptThenRefuse(a, 2);
    const dir = tempDir();
    const config = join(dir, 'state');
    const list = numbers(20);
    const file = writeCsv(join(dir, 'c.csv'), list);
    const first = await bulk([file, ...MSG, '--batch-size', '4', '--concurrency', '1'], env(a.url, config));
    assert.equal(first.code, 3, first.stderr);
    assert.equal(a.requests.length, 3);

    const other = await bulk([file, '--resume'], env(b.url, config));
    assert.equal(other.code, 2, other.stderr);
    assertNoBug(other);
    assert.match(other.stderr, new RegExp(`sent to ${a.url.replace(/[.:/]/g, '\\$&')}, account ACME01`));
    assert.match(other.stderr, new RegExp(`would send to ${b.url.replace(/[.:/]/g, '\\$&')}, account ACME01`));
    assert.match(other.stderr, /nothing was sent/);
    assert.doesNotMatch(other.stderr, new RegExp(KEY), 'the key itself never appears');

    const account = await bulk([file, '--resume'], env(a.url, config, { MSGR_ACCOUNT_REFERENCE: 'ACME02' }));
    assert.equal(account.code, 2, account.stderr);
    assert.match(account.stderr, /account ACME01 then, ACME02 now/);

    assert.equal(b.requests.length, 0, 'nothing reached the other server');
    assert.equal(a.requests.length, 3, 'nothing more reached the first server');

    // The same API and account with another key (a refused key replaced): it goes on, and says so.
    a.answer = acceptWithIds(a);
    const right = await bulk([file, '--resume'], env(a.url, config, { MSGR_API_KEY: 'another-key-5678' }));
    assert.equal(right.code, 0, right.stderr);
    assert.match(right.stderr, /the API key differs from the one run \S+ started with \(fingerprint [0-9a-f]{12} then, [0-9a-f]{12} now\)/);
    assert.doesNotMatch(right.stderr, /another-key-5678|test-key-1234/);
    assert.match(right.stderr, /resuming run \S+ with its journal's message exactly \(text "Hello there", from Acme, account ACME01\)/);
    assertExactlyOnce(sentNumbers(a), list);
  });

  test('a sandbox journal resumed for real (by --journal) is refused, naming both targets', async () => {
    resetServer(a);
    const dir = tempDir();
    const config = join(dir, 'state');
    const file = writeCsv(join(dir, 'c.csv'), numbers(8));
    const journal = join(dir, 'j.jsonl');
    // Refused key in the sandbox: the run stops with everything not sent.
    const trial = await bulk([file, ...MSG, '--sandbox', '--journal', journal], env(a.url, config, { MSGR_API_KEY: 'sandbox-key' }));
    assert.equal(trial.code, 0, trial.stderr);
    // Make the trial unfinished, as a Ctrl-C would leave it: drop its outcome lines.
    const lines = readFileSync(journal, 'utf8').trim().split('\n').filter((l) => !l.includes('"type":"done"'));
    writeFileSync(journal, `${lines.join('\n')}\n`);
    const r = await bulk([file, '--resume', '--journal', journal], env(a.url, config));
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /sent to the sandbox, account ACME01, key [0-9a-f]{12}; this run would send to http:\/\/127\.0\.0\.1:\d+, account ACME01.*it ran against the sandbox, this run sends for real/);
    assert.equal(a.requests.length, 0);
  });

  test('a journal written by the previous msgr (no target, no numbers) still resumes, saying the target is unknown', async () => {
    resetServer(a);
    acceptThenRefuse(a, 1);
    const dir = tempDir();
    const config = join(dir, 'state');
    const list = numbers(10);
    const file = writeCsv(join(dir, 'c.csv'), list);
    const journal = join(dir, 'j.jsonl');
    const first = await bulk([file, ...MSG, '--batch-size', '5', '--concurrency', '1', '--journal', journal], env(a.url, config));
    assert.equal(first.code, 3, first.stderr);
    const legacy = readFileSync(journal, 'utf8')
      .trim()
      .split('\n')
      .map((l) => {
        const rec = JSON.parse(l) as Record<string, unknown>;
        delete rec.target;
        delete rec.lines;
        delete rec.numbers;
        delete rec.ids;
        return JSON.stringify(rec);
      });
    writeFileSync(journal, `${legacy.join('\n')}\n`);
    a.answer = acceptWithIds(a);
    const r = await bulk([file, '--resume', '--journal', journal], env(a.url, config));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /does not say where it sent \(an earlier msgr wrote it\)/);
    assertExactlyOnce(sentNumbers(a), list);
    const shown = await runs(['list'], env(a.url, config));
    assert.equal(shown.code, 0, shown.stderr);
  });
});

describe('outcomes that last: message ids in the journal, msgr runs', () => {
  const server = useTestServer();

  test('following the resume hint with the same --report keeps the first run\'s ids; runs report has every accepted row\'s id', async () => {
    resetServer(server);
    acceptThenRefuse(server, 3);
    const dir = tempDir();
    const config = join(dir, 'state');
    const list = numbers(30);
    const file = writeCsv(join(dir, 'c.csv'), list);
    const report = join(dir, 'rc.csv');
    const first = await bulk([file, ...MSG, '--batch-size', '4', '--concurrency', '1', '--report', report], env(server.url, config));
    assert.equal(first.code, 3, first.stderr);
    const hint = /Resume with: (msgr send-bulk .*)/.exec(first.stderr)?.[1] ?? '';
    assert.match(hint, /--report \S*rc\.csv/);
    server.answer = acceptWithIds(server);
    const again = await bulk([file, '--resume', '--report', report], env(server.url, config));
    assert.equal(again.code, 0, again.stderr);
    const rows = csvRows(report);
    assert.equal(rows.length, 30);
    for (const row of rows) {
      assert.equal(row.outcome, 'accepted');
      assert.equal(row.message_id, `id-${row.number}`, `line ${row.line} lost its id`);
    }

    const full = join(dir, 'full.jsonl');
    const json = JSON.parse((await runs(['list', '--json'], env(server.url, config))).stdout) as { runs: Array<{ runId: string; accepted: number; finished: boolean; target: { baseUrl: string } }> };
    assert.equal(json.runs.length, 1);
    const run = json.runs[0];
    assert.deepEqual([run?.accepted, run?.finished, run?.target.baseUrl], [30, true, server.url]);
    const rep = await runs(['report', run?.runId ?? '', '--report', full], env(server.url, config));
    assert.equal(rep.code, 0, rep.stderr);
    assert.match(rep.stderr, /wrote 30 rows .*\(30 with a message id\)/);
    const lines = readFileSync(full, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { line: number; number: string; outcome: string; messageId: string | null });
    assert.deepEqual(lines.map((l) => [l.line, l.outcome, l.messageId]), list.map((m, i) => [i + 2, 'accepted', `id-${m}`]));

    // The file changed: the journal alone still gives every sent row and its id.
    writeFileSync(file, 'msisdn\n+447911199999\n');
    const fromJournal = join(dir, 'journal-only.csv');
    const rep2 = await runs(['report', file, '--report', fromJournal], env(server.url, config));
    assert.equal(rep2.code, 0, rep2.stderr);
    assert.match(rep2.stderr, /changed since the run: the report lists the 30 rows the run sent/);
    assert.deepEqual(csvRows(fromJournal).map((r) => r.message_id), list.map((m) => `id-${m}`));
  });

  test('runs show and runs report name a run by its CSV file after the file was moved away', async () => {
    const { dir, config, list, file, runId } = await finishedRun(server, 4, 'gone.csv');
    renameSync(file, join(dir, 'archived.csv'));
    const show = await runs(['show', file], env(server.url, config));
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, new RegExp(`run\\s+${runId}`));
    const report = join(dir, 'r.csv');
    const rep = await runs(['report', file, '--report', report], env(server.url, config));
    assert.equal(rep.code, 0, rep.stderr);
    assert.match(rep.stderr, /gone or changed since the run/);
    assert.deepEqual(csvRows(report).map((r) => r.message_id), list.map((m) => `id-${m}`));
    // A path that never had a run is still no run.
    const never = await runs(['show', join(dir, 'never.csv')], env(server.url, config));
    assert.equal(never.code, 2);
    assert.match(never.stderr, /no run ".*never\.csv"/);
  });

  test('runs list and show: target, rows, accepted, in doubt, not sent, finished or not; prune removes only old finished runs', async () => {
    resetServer(server);
    const dir = tempDir();
    const config = join(dir, 'state');
    server.answer = acceptWithIds(server);
    const done = writeCsv(join(dir, 'done.csv'), numbers(6));
    assert.equal((await bulk([done, ...MSG], env(server.url, config))).code, 0);
    acceptThenRefuse(server, 1);
    const open = writeCsv(join(dir, 'open.csv'), numbers(6, 100));
    assert.equal((await bulk([open, ...MSG, '--batch-size', '2', '--concurrency', '1'], env(server.url, config))).code, 3);

    const narrow = await runs(['list'], env(server.url, config));
    assert.match(narrow.stdout, /^\w{8} +\d\d-\d\d \d\d:\d\dZ +done\.csv +ACME01 +6 of 6 +finished$/m);
    assert.match(narrow.stdout, /^\w{8} +\d\d-\d\d \d\d:\d\dZ +open\.csv +ACME01 +2 of 6 +unfinished$/m);
    const list = await runs(['list', '--wide'], env(server.url, config));
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^RUN\s+STARTED\s+FILE\s+TARGET\s+ROWS\s+ACCEPTED\s+IN DOUBT\s+NOT SENT\s+STATE/);
    assert.match(list.stdout, /done\.csv\s+http:\/\/127\.0\.0\.1:\d+ ACME01\s+6\s+6\s+0\s+0\s+finished/);
    assert.match(list.stdout, /open\.csv\s+http:\/\/127\.0\.0\.1:\d+ ACME01\s+6\s+2\s+0\s+4\s+unfinished/);

    const show = await runs(['show', open], env(server.url, config));
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /state\s+unfinished/);
    assert.match(show.stdout, /target\s+http:\/\/127\.0\.0\.1:\d+, account ACME01, key [0-9a-f]{12}/);
    assert.match(show.stderr, /continue it with: msgr send-bulk \S+open\.csv --resume --base-url http:\/\/127\.0\.0\.1:\d+ \(with the API key/m);

    // Both journals a month old: only the finished one goes.
    const old = new Date(Date.now() - 40 * 86_400_000);
    for (const d of readdirSync(join(config, 'runs'))) utimesSync(join(config, 'runs', d, 'journal.jsonl'), old, old);
    const dry = await runs(['prune', '--older-than', '30d', '--dry-run'], env(server.url, config));
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /would remove \S+\s+\S+done\.csv/);
    assert.equal(readdirSync(join(config, 'runs')).length, 2, 'a dry run removes nothing');
    const pruned = await runs(['prune', '--older-than', '30d'], env(server.url, config));
    assert.equal(pruned.code, 0, pruned.stderr);
    assert.match(pruned.stdout, /removed \S+\s+\S+done\.csv/);
    assert.match(pruned.stderr, /removed 1 finished or abandoned run\b.*\n.*kept 1 unfinished/);
    const after = JSON.parse((await runs(['list', '--json'], env(server.url, config))).stdout) as { runs: Array<{ file: string }> };
    assert.deepEqual(after.runs.map((r) => r.file), [open]);

    const bad = await runs(['prune', '--older-than', 'soon'], env(server.url, config));
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--older-than: "soon" is not an age/);
    const missing = await runs(['show', 'nosuchrun1'], env(server.url, config));
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no run "nosuchrun1"/);
  });

  test('runs show of a run kept by --journal elsewhere names that journal, and its command finishes that run, not another of the file', async () => {
    resetServer(server);
    const dir = tempDir();
    const config = join(dir, 'state');
    server.answer = acceptWithIds(server);
    const list = numbers(6, 300);
    const file = writeCsv(join(dir, 'camp.csv'), list);
    // The file's own run folder holds an unfinished run too: the one a bare --resume would find.
    // msgr refuses to start a second run beside it; an older msgr did not, so the journal is
    // moved aside while the second run starts.
    acceptThenRefuse(server, 1);
    assert.equal((await bulk([file, ...MSG, '--batch-size', '2', '--concurrency', '1'], env(server.url, config))).code, 3);
    const ownJournal = join(runDirFor(config, realFile(file)), 'journal.jsonl');
    renameSync(ownJournal, `${ownJournal}.aside`);
    const kept = join(dir, 'kept here', 'journal.jsonl');
    acceptThenRefuse(server, 1);
    assert.equal((await bulk([file, ...MSG, '--batch-size', '3', '--concurrency', '1', '--journal', kept], env(server.url, config))).code, 3);
    renameSync(`${ownJournal}.aside`, ownJournal);

    const show = await runs(['show', kept], env(server.url, config));
    assert.equal(show.code, 0, show.stderr);
    const command = /continue it with: msgr (.+?) \(with the API key/m.exec(show.stderr)?.[1];
    assert.equal(command, `send-bulk ${file} --resume --journal '${kept}' --base-url ${server.url}`);

    resetServer(server);
    server.answer = acceptWithIds(server);
    const resumed = await bulk([file, '--resume', '--journal', kept], env(server.url, config));
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(server.requests.map((r) => (r.json as { recipients: unknown[] }).recipients.length), [3], 'the --journal run\'s one batch of 3 left, not the other run\'s batches of 2');
    assert.deepEqual(sentNumbers(server), list.slice(3));
    const own = await runs(['show', file], env(server.url, config));
    assert.match(own.stderr, /continue it with: msgr send-bulk \S+camp\.csv --resume --base-url http:\/\/127\.0\.0\.1:\d+ \(with the API key as the run had it/m);
  });

  test('runs show of a run started with --base-url and no profile: its command resumes the run (the base URL is in it, the key is not)', async () => {
    resetServer(server);
    const dir = tempDir();
    const config = join(dir, 'state');
    // No MSGR_BASE_URL: the base URL is known only from the command line, then from the journal.
    const e = cleanEnv({ MSGR_CONFIG_DIR: config, MSGR_API_KEY: KEY, MSGR_ACCOUNT_REFERENCE: 'ACME01' });
    const list = numbers(6, 400);
    const file = writeCsv(join(dir, 'i5.csv'), list);
    acceptThenRefuse(server, 1);
    assert.equal((await bulk([file, ...MSG, '--base-url', server.url, '--batch-size', '2', '--concurrency', '1'], e)).code, 3);

    const show = await runs(['show', file], e);
    assert.equal(show.code, 0, show.stderr);
    const command = /continue it with: msgr (\S.*?)(?: \(with the API key|$)/m.exec(show.stderr)?.[1] ?? '';
    assert.equal(command, `send-bulk ${file} --resume --base-url ${server.url}`);
    assert.doesNotMatch(show.stdout + show.stderr, new RegExp(KEY));

    server.answer = acceptWithIds(server);
    const resumed = await bulk([...command.split(' ').slice(1), '--json'], e);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual([(JSON.parse(resumed.stdout) as { accepted: number }).accepted], [6]);
    assertExactlyOnce(sentNumbers(server), list);
  });
});

describe('changed files and follow-up campaigns', () => {
  const server = useTestServer();

  test('an extended file with --skip-sent goes only to the new numbers; the report counts "already sent" with the earlier id', async () => {
    const { dir, config, list, file, runId } = await finishedRun(server, 20);
    const extended = [...list, ...numbers(5, 500)];
    writeCsv(file, extended);
    const report = join(dir, 'r.csv');
    const second = await bulk([file, ...MSG, '--validity', '2h', '--skip-sent', runId, '--report', report, '--json'], env(server.url, config));
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stderr, new RegExp(`20 rows already sent \\(accepted by run ${runId}\\): left out`));
    assert.match(second.stderr, /skipped before sending: 20 already sent/);
    const summary = JSON.parse(second.stdout) as Record<string, unknown>;
    assert.deepEqual([summary.toSend, summary.alreadySent, summary.accepted], [5, 20, 5]);
    assertExactlyOnce(sentNumbers(server), extended);
    const rows = csvRows(report);
    assert.equal(rows.filter((r) => r.outcome === 'already-sent').length, 20);
    assert.deepEqual(rows.map((r) => r.message_id), extended.map((m) => `id-${m}`));

    // Another message is not "the same message": refused, nothing sent.
    const before = server.requests.length;
    const other = await bulk([file, '--from', 'Acme', '--text', 'Something else', '--skip-sent', runId, '--restart'], env(server.url, config));
    assert.equal(other.code, 2, other.stderr);
    assert.match(other.stderr, /sent another message \(body differs\)/);
    assert.equal(server.requests.length, before);
  });

  test('a cron job repeating its whole command line: --resume takes --skip-sent naming the runs the run left out, and refuses another', async () => {
    resetServer(server);
    server.answer = acceptWithIds(server);
    const dir = tempDir();
    const config = join(dir, 'state');
    const list = numbers(20);
    const first = await bulk([writeCsv(join(dir, 'a.csv'), list), ...MSG, '--json'], env(server.url, config));
    assert.equal(first.code, 0, first.stderr);
    const runId = (JSON.parse(first.stdout) as { runId: string }).runId;
    const other = await bulk([writeCsv(join(dir, 'o.csv'), numbers(3, 900)), ...MSG, '--json'], env(server.url, config));
    const otherId = (JSON.parse(other.stdout) as { runId: string }).runId;
    // The follow-up stops part way (the key refused after one request): unfinished.
    const extended = [...list, ...numbers(30, 500)];
    const file = writeCsv(join(dir, 'b.csv'), extended);
    const command = [file, ...MSG, '--skip-sent', runId, '--batch-size', '10', '--json'];
    resetServer(server);
    acceptThenRefuse(server, 1);
    const stopped = await bulk(command, env(server.url, config));
    assert.equal(stopped.code, 3, stopped.stderr);
    const refused = await bulk([...command.slice(0, -3), '--skip-sent', otherId, '--resume'], env(server.url, config));
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, new RegExp(`--resume: --skip-sent ${otherId} differs from run \\S+, which left out the numbers of ${runId}`));
    server.answer = acceptWithIds(server);
    const resumed = await bulk([...command, '--resume'], env(server.url, config));
    assert.equal(resumed.code, 0, resumed.stderr);
    assertExactlyOnce(sentNumbers(server), extended.slice(20));

    // The same with the file itself named (`--skip-sent a.csv`, the file extended in place): on
    // the resume the name finds the run being resumed, which is no other run.
    resetServer(server);
    server.answer = acceptWithIds(server);
    const same = join(dir, 'same.csv');
    writeCsv(same, list);
    // The same list as a.csv's, sent again on purpose.
    assert.equal((await bulk([same, ...MSG, '--json', '--again'], env(server.url, config))).code, 0);
    writeCsv(same, extended);
    const inPlace = [same, ...MSG, '--skip-sent', same, '--batch-size', '10', '--json'];
    resetServer(server);
    acceptThenRefuse(server, 1);
    assert.equal((await bulk(inPlace, env(server.url, config))).code, 3);
    server.answer = acceptWithIds(server);
    const again = await bulk([...inPlace, '--resume'], env(server.url, config));
    assert.equal(again.code, 0, again.stderr);
    assertExactlyOnce(sentNumbers(server), extended.slice(20));
  });

  test('up-arrow, Enter on a finished file: refused naming how many and both intents; --skip-sent sends only the new rows, --again every row; a dry run and a preview predict the refusal', async () => {
    const { dir, config, list, file, first, runId } = await finishedRun(server, 3);
    assert.doesNotMatch(first.stderr, /already sent to/);
    // Tomorrow's list: the same file with two rows more.
    const grown = [...list, ...numbers(2, 50)];
    writeCsv(file, grown);
    const refused = await bulk([file, ...MSG], env(server.url, config));
    assert.equal(refused.code, 2, refused.stderr);
    assertNoBug(refused);
    assert.match(refused.stderr, new RegExp(`^error: \\S+c\\.csv: this run would message 3 rows whose numbers run ${runId} \\(finished [^)]+\\) already sent to \\(with --skip-sent it sends to 2, with --again to 5\\); nothing was sent$`, 'm'));
    assert.match(refused.stderr, /^hint: Say which you mean: add --skip-sent to leave them out .*, or --again to message them again on purpose/m);
    assert.equal(sentNumbers(server).length, 3, 'the refused run sent nothing');
    const doc = await bulk([file, ...MSG, '--json'], env(server.url, config));
    assert.equal(doc.code, 2);
    const refusal = JSON.parse(doc.stdout) as { exitCode: number; stopped: string; sentBefore: number; earlierRuns: string[] };
    assert.deepEqual([refusal.exitCode, refusal.stopped, refusal.sentBefore, refusal.earlierRuns], [2, 'sent-before', 3, [runId]]);
    // A dry run and a preview predict the refusal, with the totals of the command as given.
    const dry = await bulk([file, ...MSG, '--dry-run'], env(server.url, config));
    assert.equal(dry.code, 2, dry.stderr);
    assert.match(dry.stderr, /to send: 5 recipients in 1 request/);
    assert.match(dry.stderr, /a run of the campaign now \(not this --dry-run\) would message 3 rows whose numbers run \S+ \(finished [^)]+\) already sent to/);
    const preview = await bulk([file, ...MSG, '--preview', '5'], env(server.url, config));
    assert.equal(preview.code, 2, preview.stderr);
    assert.equal(preview.stdout.match(/^line \d+ → /gm)?.length, 5, preview.stdout);
    assert.match(preview.stderr, /a run of the campaign now \(not this --preview\) would message 3 rows whose numbers/);
    assert.equal(sentNumbers(server).length, 3);

    // The hint's commands are accepted: --skip-sent leaves out what the finished run accepted.
    const report = join(dir, 'skip.csv');
    const skip = await bulk([file, ...MSG, '--skip-sent', '--report', report], env(server.url, config));
    assert.equal(skip.code, 0, skip.stderr);
    assert.match(skip.stderr, new RegExp(`3 rows already sent \\(accepted by run ${runId}\\): left out`));
    assert.deepEqual(sentNumbers(server).slice(3), grown.slice(3));
    assert.deepEqual(csvRows(report).map((r) => r.outcome), ['already-sent', 'already-sent', 'already-sent', 'accepted', 'accepted']);
    // Up-arrow, Enter once more: every number had the message; --skip-sent again leaves out all.
    const none = await bulk([file, ...MSG, '--skip-sent'], env(server.url, config));
    assert.equal(none.code, 0, none.stderr);
    assert.match(none.stderr, /nothing left to send: every row to send had already been accepted by an earlier run \(5\)/);
    // --again: today's reminder to the same list, on purpose.
    const again = await bulk([file, ...MSG, '--again', '--json'], env(server.url, config));
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /--again: sending again to the numbers earlier runs of this file accepted \(3 runs; the last: run \S+ \(finished [^)]+\)\)/);
    assert.deepEqual(sentNumbers(server).slice(5), grown);
    // The journal says what the run meant.
    const header = JSON.parse(readFileSync(join(runDirFor(config, realFile(file)), 'journal.jsonl'), 'utf8').split('\n')[0] ?? '') as { again?: boolean; runId: string };
    assert.deepEqual([header.again, header.runId], [true, (JSON.parse(again.stdout) as { runId: string }).runId]);
    // Another account is another place: its runs are no reason to stop.
    const elsewhere = await bulk([file, ...MSG], env(server.url, config, { MSGR_ACCOUNT_REFERENCE: 'ACME02' }));
    assert.equal(elsewhere.code, 0, elsewhere.stderr);
    assert.equal(sentNumbers(server).length, 15);
  });

  test('the same list under another name, or piped on stdin, is the same file run again', async () => {
    const { dir, config, list, file, runId } = await finishedRun(server, 4);
    const copy = join(dir, 'copy of c.csv');
    writeFileSync(copy, readFileSync(file));
    const other = await bulk([copy, ...MSG], env(server.url, config));
    assert.equal(other.code, 2, other.stderr);
    assert.match(other.stderr, new RegExp(`this run would message 4 rows whose numbers run ${runId} of the same data \\(\\S+c\\.csv, finished [^)]+\\) already sent to`));
    const piped = await runInProcess(['send-bulk', '-', ...MSG], { env: env(server.url, config), input: readFileSync(file, 'utf8'), timeoutMs: 60_000 });
    assert.equal(piped.code, 2, piped.stderr);
    assert.match(piped.stderr, /^error: stdin: this run would message 4 rows whose numbers run \S+ of the same data/m);
    assert.equal(sentNumbers(server).length, 4);
    // Other data under that name is another list: it goes without a word.
    writeCsv(copy, numbers(3, 600));
    const fresh = await bulk([copy, ...MSG], env(server.url, config));
    assert.equal(fresh.code, 0, fresh.stderr);
    assert.deepEqual(sentNumbers(server), [...list, ...numbers(3, 600)]);
  });

  test('a finished run with another message: only --again is offered, and it is accepted; --skip-sent leaves none of its numbers out and says why', async () => {
    const { config, file, runId } = await finishedRun(server, 3);
    const other = [file, '--from', 'Acme', '--text', 'Hello again'];
    const refused = await bulk(other, env(server.url, config));
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, new RegExp(`this run would message 3 rows whose numbers run ${runId} \\(finished [^)]+\\) already sent to; nothing was sent`));
    assert.match(refused.stderr, /^hint: Add --again to message them again on purpose .*That run sent another message \(body differs\), so --skip-sent, .* would leave none out/m);
    assert.doesNotMatch(refused.stderr, /add --skip-sent/);
    assert.equal(sentNumbers(server).length, 3);
    const skip = await bulk([...other, '--skip-sent', '--dry-run'], env(server.url, config));
    assert.equal(skip.code, 0, skip.stderr);
    assert.match(skip.stderr, new RegExp(`run ${runId} of this file sent another message \\(body differs\\): --skip-sent does not leave out the numbers it accepted`));
    const again = await bulk([...other, '--again'], env(server.url, config));
    assert.equal(again.code, 0, again.stderr);
    assertNoBug(again);
    assert.equal(sentNumbers(server).length, 6);
  });

  test('a changed file: --resume is refused, --restart leaves out what the abandoned run accepted and says how many; --include-sent sends to everyone', async () => {
    const { config, list, file } = await stoppedRun(server, 12);
    const extended = [...list, ...numbers(3, 700)];
    writeCsv(file, extended);
    const resume = await bulk([file, '--resume'], env(server.url, config));
    assert.equal(resume.code, 2, resume.stderr);
    assert.match(resume.stderr, /changed since run .*--restart: it leaves out every number this run accepted/s);
    const restart = await bulk([file, ...MSG, '--restart'], env(server.url, config));
    assert.equal(restart.code, 0, restart.stderr);
    assert.match(restart.stderr, /6 rows already sent \(accepted by run \S+\): left out/);
    assertExactlyOnce(sentNumbers(server), extended);

    // --include-sent opts out: everyone again (a new campaign on purpose).
    acceptThenRefuse(server, 0);
    const dir2 = tempDir();
    const file2 = writeCsv(join(dir2, 'd.csv'), numbers(4, 900));
    assert.equal((await bulk([file2, ...MSG, '--concurrency', '1'], env(server.url, join(dir2, 'state')))).code, 3);
    resetServer(server);
    server.answer = acceptWithIds(server);
    const all = await bulk([file2, ...MSG, '--restart', '--include-sent'], env(server.url, join(dir2, 'state')));
    assert.equal(all.code, 0, all.stderr);
    assert.doesNotMatch(all.stderr, /already sent/);
    assert.equal(sentNumbers(server).length, 4);
  });

  test('a --restart that stops before sending (no message given) leaves the unfinished run unfinished: the --restart run after it still leaves out what that run accepted', async () => {
    const { config, list, file } = await stoppedRun(server, 12);
    // The message forgotten: refused before anything is sent, so nothing was abandoned.
    const typo = await bulk([file, '--from', 'Acme', '--restart'], env(server.url, config));
    assert.equal(typo.code, 2, typo.stderr);
    assert.match(typo.stderr, /no message/);
    const listed = await runs(['list', '--json'], env(server.url, config));
    assert.deepEqual((JSON.parse(listed.stdout) as { runs: Array<{ status?: string; abandoned: boolean; finished: boolean }> }).runs.map((r) => [r.abandoned, r.finished]), [[false, false]]);
    const restart = await bulk([file, ...MSG, '--restart'], env(server.url, config));
    assert.equal(restart.code, 0, restart.stderr);
    assert.match(restart.stderr, /6 rows already sent \(accepted by run \S+\): left out/);
    assertExactlyOnce(sentNumbers(server), list);
  });

  test('numbers in doubt in the skipped run are listed, not silently left out', async () => {
    resetServer(server);
    let count = 0;
    const accept = acceptWithIds(server);
    server.answer = (r) => (++count === 2 ? { status: 500, body: { title: 'boom' } } : accept(r));
    const dir = tempDir();
    const config = join(dir, 'state');
    const list = numbers(6);
    const file = writeCsv(join(dir, 'c.csv'), list);
    const first = await bulk([file, ...MSG, '--batch-size', '2', '--concurrency', '1', '--json'], env(server.url, config));
    assert.equal(first.code, 7, first.stderr);
    const runId = (JSON.parse(first.stdout) as { runId: string }).runId;
    // Its process ended on its own, not the run: an unfinished run is not said to have finished.
    const shown = await runs(['show', runId], env(server.url, config));
    assert.match(shown.stdout, /state\s+unfinished \(its last process ended on its own, leaving rows not sent or in doubt\)\n/);
    assert.equal((JSON.parse((await runs(['show', runId, '--json'], env(server.url, config))).stdout) as { lastStop: string }).lastStop, 'finished');
    const follow = writeCsv(join(dir, 'follow.csv'), list);
    server.answer = acceptWithIds(server);
    const r = await bulk([follow, ...MSG, '--skip-sent', runId], env(server.url, config));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /4 rows already sent/);
    assert.match(r.stderr, new RegExp(`2 numbers were in doubt in run ${runId} \\(sent, no answer\\): they are not left out.*msgr runs report ${runId}`));
  });
});

describe('the cost of history: earlier runs of the same file', () => {
  const first = useTestServer();
  const later = useTestServer();

  test("a finished run kept by --journal elsewhere notes itself finished: later commands of the file take its state from the runs' index, not its journal read whole", async () => {
    resetServer(first);
    first.answer = acceptWithIds(first);
    const dir = tempDir();
    const config = join(dir, 'state');
    const file = writeCsv(join(dir, 'daily.csv'), numbers(4, 700));
    const kept = join(dir, 'kept', 'journal.jsonl');
    const sent = await bulk([file, ...MSG, '--journal', kept], env(first.url, config));
    assert.equal(sent.code, 0, sent.stderr);
    // Each later command looks for an unfinished run of the file, this one among them. It goes to
    // another server: not an earlier run of the same campaign, so nothing else needs its journal.
    const reads: string[] = [];
    const realStream = fs.createReadStream;
    fs.createReadStream = ((path: Parameters<typeof realStream>[0], options?: Parameters<typeof realStream>[1]) => {
      reads.push(String(path));
      return realStream(path, options);
    });
    syncBuiltinESMExports();
    const readsOfKept = async (): Promise<number> => {
      reads.length = 0;
      const dry = await bulk([file, ...MSG, '--dry-run'], env(later.url, config));
      assert.equal(dry.code, 0, dry.stderr);
      return reads.filter((p) => p === kept).length;
    };
    try {
      // The run noted itself finished as it ended: no later command reads its journal.
      assert.equal(await readsOfKept(), 0, 'the first command after the run');
      assert.equal(await readsOfKept(), 0, 'the next one');
      // Changed since it was noted: read again once, and noted again.
      appendFileSync(kept, '\n');
      assert.equal(await readsOfKept(), 1, 'once after it changed');
      assert.equal(await readsOfKept(), 0, 'not again');
    } finally {
      fs.createReadStream = realStream;
      syncBuiltinESMExports();
    }
  });
});
