// Resumes as cron runs them: a finished run resumed again says "nothing to do" (and nothing at all
// under -q), a refusal offers only what would be accepted, and the --exclude list may grow while a
// run is paused: the numbers added are left out of what is not sent yet, the batches that may have
// left keep their bodies and keys. Run in-process (test/support/in-process.ts) against the
// scriptable server on 127.0.0.1.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir, type RunResult } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { type ReceivedRequest, type ScriptedResponse, useTestServer } from '../../../support/test-server.js';

const KEY = 'test-key-1234';
const MSG = ['--from', 'Acme', '--text', 'Hello there'];

function env(baseUrl: string, config: string): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: config, MSGR_API_KEY: KEY, MSGR_BASE_URL: baseUrl, MSGR_ACCOUNT_REFERENCE: 'ACME01' });
}

function numbers(n: number, start = 0): string[] {
  return Array.from({ length: n }, (_, i) => `+4479112${String(start + i).padStart(5, '0')}`);
}

function writeCsv(path: string, list: readonly string[]): string {
  writeFileSync(path, `msisdn,name\n${list.map((m, i) => `${m},N${i}`).join('\n')}\n`);
  return path;
}

function bulk(args: string[], e: Record<string, string>): Promise<RunResult> {
  return runInProcess(['send-bulk', ...args], { env: e, timeoutMs: 60_000 });
}

function recipients(r: ReceivedRequest): string[] {
  return ((r.json as { recipients?: Array<{ msisdn: string }> } | undefined)?.recipients ?? []).map((x) => x.msisdn);
}

const ACCEPT: ScriptedResponse = { status: 202, body: { status: 'accepted' } };
const REFUSE: ScriptedResponse = { status: 401, body: { title: 'Unauthorized' } };

function csvRows(path: string): Array<Record<string, string>> {
  const [head, ...lines] = readFileSync(path, 'utf8').trim().split('\n');
  const cols = (head ?? '').split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i] ?? '', v])));
}

describe('cron-friendly resumes', () => {
  const server = useTestServer({ reset: (s) => (s.answer = () => ACCEPT) });

  test('--resume of a finished run: "nothing to do", exit 0, nothing sent; under -q nothing at all, however often cron comes round', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    // A value under a column with no name: a warning on every preflight, even under -q.
    const file = join(dir, 'today.csv');
    writeFileSync(file, `msisdn,name,\n${numbers(4).map((m, i) => `${m},N${i},note`).join('\n')}\n`);
    const first = await bulk([file, ...MSG, '-q'], env(server.url, config));
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /^warning: 4 rows have values in a column with no name/m);
    const sent = server.requests.length;
    const loud = await bulk([file, ...MSG, '--resume'], env(server.url, config));
    assert.equal(loud.code, 0, loud.stderr);
    assert.match(loud.stderr, /^nothing to do: run \S+ finished at \S+ \(4 accepted\); nothing was sent\n$/);
    for (let tick = 0; tick < 3; tick++) {
      const quiet = await bulk([file, ...MSG, '--resume', '-q'], env(server.url, config));
      assert.equal(quiet.code, 0, quiet.stderr);
      assert.equal(quiet.stderr, '', 'a cron mail');
      assert.equal(quiet.stdout, '');
    }
    const json = await bulk([file, '--resume', '-q', '--json'], env(server.url, config));
    assert.equal(json.code, 0, json.stderr);
    assert.equal(json.stderr, '');
    const doc = JSON.parse(json.stdout) as { nothingToDo: boolean; accepted: number; exitCode: number; once: string | null };
    assert.deepEqual([doc.nothingToDo, doc.accepted, doc.exitCode, doc.once], [true, 4, 0, null]);
    assert.equal(server.requests.length, sent, 'nothing was sent');
  });

  test('an unfinished run whose file changed: a new start is refused offering --restart only, not the --resume that would be refused; --restart is accepted', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const list = numbers(6, 100);
    const file = writeCsv(join(dir, 'today.csv'), list);
    server.script(ACCEPT, REFUSE);
    const first = await bulk([file, ...MSG, '--batch-size', '2', '--concurrency', '1'], env(server.url, config));
    assert.equal(first.code, 3, first.stderr);
    // Unchanged: both ways are offered.
    const same = await bulk([file, ...MSG], env(server.url, config));
    assert.equal(same.code, 2, same.stderr);
    assert.match(same.stderr, /^hint: Continue it with --resume .*, or abandon it with --restart/m);
    // The next export at the same path.
    const next = [list[0] ?? '', ...list.slice(3), ...numbers(2, 200)];
    writeCsv(file, next);
    const refused = await bulk([file, ...MSG], env(server.url, config));
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /^error: an unfinished run of this file exists \(run \S+, started \S+\)$/m);
    assert.match(refused.stderr, /^hint: It cannot be continued \(\S+today\.csv changed since run \S+ started\): abandon it with --restart /m);
    assert.doesNotMatch(refused.stderr, /--resume/);
    const before = server.requests.length;
    const restart = await bulk([file, ...MSG, '--restart'], env(server.url, config));
    assert.equal(restart.code, 0, restart.stderr);
    assert.match(restart.stderr, /1 row already sent \(accepted by run \S+\): left out/);
    assert.deepEqual(server.requests.slice(before).flatMap(recipients), next.slice(1));
  });
});

describe('a cron line resuming a run', () => {
  const server = useTestServer({ reset: (s) => (s.answer = () => ACCEPT) });

  test('the preflight\'s warnings about the file (a landline) are given when the run starts, not again under -q on every resume tick', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const [a, b] = numbers(2, 800) as [string, string];
    const file = writeCsv(join(dir, 'c.csv'), [a, '+442071234567', b]);
    const line = [file, ...MSG, '--batch-size', '1', '--concurrency', '1', '-q'];
    server.script(ACCEPT, REFUSE);
    const first = await bulk(line, env(server.url, config));
    assert.equal(first.code, 3, first.stderr);
    assert.match(first.stderr, /^warning: 1 row to send has a landline number by its numbering plan \(line 3\)/m);
    const tick = await bulk([...line, '--resume'], env(server.url, config));
    assert.equal(tick.code, 0, tick.stderr);
    assert.equal(tick.stderr, '', 'a cron mail about what the first run said');
    assert.deepEqual(server.requests.slice(2).flatMap(recipients), ['+442071234567', b]);
    // Without -q it is still said, for people.
    server.script(ACCEPT, REFUSE);
    const other = writeCsv(join(dir, 'd.csv'), ['+442071234567', a]);
    assert.equal((await bulk([other, ...MSG, '--batch-size', '1', '--concurrency', '1', '--again', '-q'], env(server.url, config))).code, 3);
    const said = await bulk([other, '--resume'], env(server.url, config));
    assert.match(said.stderr, /^ {2}1 row to send has a landline number/m);
    assert.doesNotMatch(said.stderr, /^warning: .*landline/m);
  });
});

describe('an --exclude list that grows while a run is paused', () => {
  const server = useTestServer({ reset: (s) => (s.answer = () => ACCEPT) });

  test('numbers added are left out of the batches not sent yet (counted as excluded since the start, in the summary, --json and the report); numbers taken off are refused', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const n = numbers(10, 300);
    const file = writeCsv(join(dir, 'c.csv'), n);
    const optouts = join(dir, 'optouts.txt');
    writeFileSync(optouts, `${n[9] ?? ''}\n`);
    const args = [file, ...MSG, '--exclude', optouts, '--batch-size', '2', '--concurrency', '1'];
    server.script(ACCEPT, ACCEPT, REFUSE);
    const first = await bulk(args, env(server.url, config));
    assert.equal(first.code, 3, first.stderr);
    assert.deepEqual(server.requests.flatMap(recipients), n.slice(0, 6));

    // While it is paused: one who already had it, and two whose batches were never sent, reply STOP.
    writeFileSync(optouts, `${[n[9], n[1], n[5], n[6]].join('\n')}\n`);
    const before = server.requests.length;
    const report = join(dir, 'r.csv');
    const resumed = await bulk([file, '--resume', '--report', report, '--json'], env(server.url, config));
    assert.equal(resumed.code, 0, resumed.stderr);
    // Which of them the run had already messaged is said, and the rows left to send count without theirs.
    assert.match(resumed.stderr, /3 numbers went on the --exclude list \S+ since run \S+ started: 2 rows of theirs left out of the batches not sent yet\n {2}1 of them had been sent the message by this run before they went on the list: (\S+)\n/);
    assert.equal(/before they went on the list: (\S+)\n/.exec(resumed.stderr)?.[1], n[1]);
    assert.match(resumed.stderr, /left to send by this resume: 3 recipients \(earlier: 4 accepted\)/);
    assert.match(resumed.stderr, /skipped before sending: 1 excluded, 2 on the --exclude list since the run started/);
    const sent = server.requests.slice(before);
    assert.deepEqual(sent.map(recipients), [[n[4]], [n[7]], [n[8]]]);
    const runId = (JSON.parse(resumed.stdout) as { runId: string }).runId;
    assert.deepEqual(sent.map((r) => r.headers['idempotency-key']), [`msgr-${runId}-2`, `msgr-${runId}-3`, `msgr-${runId}-4`]);
    const doc = JSON.parse(resumed.stdout) as { excludedAfterStart: number; accepted: number; notSent: number; excluded: number; exitCode: number };
    assert.deepEqual([doc.excludedAfterStart, doc.accepted, doc.notSent, doc.excluded, doc.exitCode], [2, 7, 0, 1, 0]);
    const rows = csvRows(report);
    assert.deepEqual(rows.map((r) => r.outcome), ['accepted', 'accepted', 'accepted', 'accepted', 'accepted', 'excluded', 'excluded', 'accepted', 'accepted', 'excluded']);
    assert.equal(rows[5]?.error, 'on the --exclude list since the run started');
    const shown = await runInProcess(['runs', 'list', '--json'], { env: env(server.url, config) });
    const run = (JSON.parse(shown.stdout) as { runs: Array<{ finished: boolean; notSent: number; accepted: number }> }).runs[0];
    assert.deepEqual([run?.finished, run?.accepted, run?.notSent], [true, 7, 0]);

    // Taken off the list while another run is paused: refused, naming the number.
    const other = writeCsv(join(dir, 'd.csv'), numbers(6, 400));
    writeFileSync(optouts, `${numbers(1, 405)[0] ?? ''}\n${numbers(1, 404)[0] ?? ''}\n`);
    server.script(ACCEPT, REFUSE);
    assert.equal((await bulk([other, ...MSG, '--exclude', optouts, '--batch-size', '2', '--concurrency', '1'], env(server.url, config))).code, 3);
    writeFileSync(optouts, `${numbers(1, 405)[0] ?? ''}\n`);
    const held = server.requests.length;
    const removed = await bulk([other, '--resume'], env(server.url, config));
    assert.equal(removed.code, 2, removed.stderr);
    assert.match(removed.stderr, new RegExp(`^error: --resume: 1 number was taken off the --exclude list \\S+ since run \\S+ started \\(\\${numbers(1, 404)[0] ?? ''}\\); nothing was sent$`, 'm'));
    assert.match(removed.stderr, /put them back on the list and resume, or start a new run with --restart/);
    assert.equal(server.requests.length, held);
  });

  test('a batch that may have left keeps its Idempotency-Key on a later resume; its resend leaves out, and names, a number that went on the list since (it may have had the message)', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const n = numbers(9, 500);
    const file = writeCsv(join(dir, 'c.csv'), n);
    const optouts = join(dir, 'optouts.txt');
    writeFileSync(optouts, '');
    server.script(ACCEPT, ACCEPT, REFUSE);
    assert.equal((await bulk([file, ...MSG, '--exclude', optouts, '--batch-size', '2', '--concurrency', '1'], env(server.url, config))).code, 3);

    // Resume 1, with one number of batch 2 opted out: batch 2 leaves without it and gets no answer.
    writeFileSync(optouts, `${n[5] ?? ''}\n`);
    let at = server.requests.length;
    server.script({ status: 500, body: { title: 'boom' } }, REFUSE);
    const one = await bulk([file, '--resume', '--concurrency', '1'], env(server.url, config));
    assert.equal(one.code, 3, one.stderr);
    const doubtful = server.requests[at];
    assert.deepEqual(recipients(doubtful as ReceivedRequest), [n[4]]);

    // Resume 2, with a number of a batch never sent on the list too: the batch in doubt goes
    // again under its key, byte for byte.
    writeFileSync(optouts, `${[n[5], n[7]].join('\n')}\n`);
    at = server.requests.length;
    server.script({ status: 500, body: { title: 'boom' } }, REFUSE);
    const two = await bulk([file, '--resume', '--resend-in-doubt', '--concurrency', '1'], env(server.url, config));
    assert.equal(two.code, 3, two.stderr);
    assert.equal(server.requests[at]?.body, doubtful?.body, 'the batch in doubt went again byte for byte');
    assert.equal(server.requests[at]?.headers['idempotency-key'], doubtful?.headers['idempotency-key']);

    // Resume 3: the batch in doubt's own number opted out since: its resend leaves it out (the
    // batch is then empty: not sent), and names it; the rest go.
    writeFileSync(optouts, `${[n[5], n[4], n[7]].join('\n')}\n`);
    at = server.requests.length;
    const three = await bulk([file, '--resume', '--resend-in-doubt', '--concurrency', '1', '--json'], env(server.url, config));
    assert.equal(three.code, 0, three.stderr);
    assert.match(three.stderr, new RegExp(`warning: 1 number in the batches in doubt opted out \\(or went on the --exclude list\\) since run \\S+ started, and is left out of their resend \\(the first request may have reached it\\): \\${n[4] ?? ''}`));
    const sent = server.requests.slice(at);
    assert.deepEqual(sent.map(recipients), [[n[6]], [n[8]]], `${one.stderr}\n${three.stderr}`);
    const doc = JSON.parse(three.stdout) as { excludedAfterStart: number; accepted: number; notSent: number };
    assert.deepEqual([doc.excludedAfterStart, doc.accepted, doc.notSent], [3, 6, 0]);
  });
});
