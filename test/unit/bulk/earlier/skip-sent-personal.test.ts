// --skip-sent and --restart when rows have messages of their own: the rows an earlier run accepted
// are left out before rows are grouped into requests, so the preflight's counts, the requests the
// server receives, a dry run and the report agree. Run in-process (test/support/in-process.ts);
// the kill -9 case is e2e (send-bulk-skip-sent-personal).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir, type RunResult } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { type ReceivedRequest, type ScriptedResponse, type TestServer, useTestServer } from '../../../support/test-server.js';

const KEY = 'test-key-1234';
const HI = ['--from', 'Acme', '--text', 'Hi {{name}}'];

function env(baseUrl: string, configDir: string): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: configDir, MSGR_API_KEY: KEY, MSGR_BASE_URL: baseUrl, MSGR_ACCOUNT_REFERENCE: 'ACME01' });
}

function bulk(args: string[], e: Record<string, string>): Promise<RunResult> {
  return runInProcess(['send-bulk', ...args], { env: e, timeoutMs: 60_000 });
}

const uk = (i: number): string => `+4479111${String(i).padStart(5, '0')}`;

/** A CSV of `msisdn,name` rows: row i (from 1) is number uk(i). */
function writePeople(path: string, names: readonly string[]): string {
  writeFileSync(path, `msisdn,name\n${names.map((n, i) => `${uk(i + 1)},${n}`).join('\n')}\n`);
  return path;
}

interface Request {
  readonly text: string;
  readonly to: string[];
}

function requestOf(r: ReceivedRequest): Request {
  const body = r.json as { body: { text: string }; recipients: Array<{ msisdn: string }> };
  return { text: body.body.text, to: body.recipients.map((x) => x.msisdn) };
}

/** Accepts the first `n` requests with an id per recipient, then refuses the key (exit 3). */
function acceptThenRefuse(server: TestServer, n: number): void {
  let count = 0;
  server.answer = (r): ScriptedResponse => {
    if (++count > n) return { status: 401, body: { title: 'Unauthorized' } };
    return { status: 202, body: { messages: requestOf(r).to.map((m) => ({ msisdn: m, id: `id-${m}` })) } };
  };
}

function csvRows(path: string): Array<Record<string, string>> {
  const [head, ...lines] = readFileSync(path, 'utf8').trim().split('\n');
  const cols = (head ?? '').split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i] ?? '', v])));
}

// Rows 1-12; with --batch-size 2 and one request at a time, the first run's first two requests
// are Ann's rows 1 and 3, then Bob's rows 2 and 5.
const NAMES = ['Ann', 'Bob', 'Ann', 'Cy', 'Bob', 'Ann', 'Ann', 'Bob', 'Cy', 'Ann', 'Dee', 'Bob'];

describe('--skip-sent with a message per row', () => {
  const server = useTestServer();

  test('a follow-up sends exactly to the numbers left, each its own text, grouped over the rows that remain; the dry run counts the same; the report lists the rows already sent', async () => {
    server.requests.length = 0;
    acceptThenRefuse(server, 2);
    const dir = tempDir('msgr-ssp-');
    const config = join(dir, 'state');
    const first = await bulk([writePeople(join(dir, 'c.csv'), NAMES), ...HI, '--batch-size', '2', '--concurrency', '1', '--json'], env(server.url, config));
    assert.equal(first.code, 3, first.stderr);
    const runId = (JSON.parse(first.stdout) as { runId: string }).runId;
    const firstAccepted = server.requests.slice(0, 2).map(requestOf);
    assert.deepEqual(firstAccepted, [
      { text: 'Hi Ann', to: [uk(1), uk(3)] },
      { text: 'Hi Bob', to: [uk(2), uk(5)] },
    ]);

    // The follow-up: one row added, and Bob of row 2 renamed: his number had this campaign (the
    // same template), so it is left out although its text would now differ.
    const names = [...NAMES, 'Ann'];
    names[1] = 'Robert';
    const follow = writePeople(join(dir, 'follow.csv'), names);
    server.answer = (r) => ({ status: 202, body: { messages: requestOf(r).to.map((m) => ({ msisdn: m, id: `id-${m}` })) } });
    const args = [follow, ...HI, '--batch-size', '2', '--concurrency', '1', '--skip-sent', runId];

    const before = server.requests.length;
    const dry = await bulk([...args, '--dry-run', '--json'], env(server.url, config));
    assert.equal(dry.code, 0, dry.stderr);
    const d = JSON.parse(dry.stdout) as { toSend: number; alreadySent: number; requests: number; messages: { messages: number }; firstRequest: { body: { text: string }; recipients: Array<{ msisdn: string }> } };
    assert.deepEqual([d.toSend, d.alreadySent, d.requests, d.messages.messages], [9, 4, 5, 9]);
    assert.deepEqual([d.firstRequest.body.text, d.firstRequest.recipients.map((x) => x.msisdn)], ['Hi Ann', [uk(6), uk(7)]]);
    assert.match(dry.stderr, /to send: 9 recipients in 5 requests/);
    assert.match(dry.stderr, new RegExp(`4 rows already sent \\(accepted by run ${runId}\\): left out`));
    assert.equal(server.requests.length, before, 'the dry run sent nothing');

    const report = join(dir, 'follow-report.csv');
    const second = await bulk([...args, '--report', report, '--json'], env(server.url, config));
    assert.equal(second.code, 0, second.stderr);
    const s = JSON.parse(second.stdout) as Record<string, unknown>;
    assert.deepEqual([s.toSend, s.alreadySent, s.requests, s.accepted], [9, 4, 5, 9]);
    assert.match(second.stderr, /skipped before sending: 4 already sent/);
    // Rows 1, 2, 3 and 5 left out before grouping: Ann's rows 6 and 7 are now her first request,
    // and her row 10 waits for row 13.
    assert.deepEqual(server.requests.slice(before).map(requestOf), [
      { text: 'Hi Ann', to: [uk(6), uk(7)] },
      { text: 'Hi Cy', to: [uk(4), uk(9)] },
      { text: 'Hi Bob', to: [uk(8), uk(12)] },
      { text: 'Hi Ann', to: [uk(10), uk(13)] },
      { text: 'Hi Dee', to: [uk(11)] },
    ]);
    const rows = csvRows(report);
    assert.deepEqual(rows.map((r) => [r.line, r.number, r.outcome, r.message_id]), names.map((_, i) => {
      const n = uk(i + 1);
      return [String(i + 2), n, [1, 2, 3, 5].includes(i + 1) ? 'already-sent' : 'accepted', `id-${n}`];
    }));
    assert.match(rows[0]?.error ?? '', new RegExp(`accepted by run ${runId}`));

    // Another template is another message: refused, nothing sent.
    const count = server.requests.length;
    const other = await bulk([follow, '--from', 'Acme', '--text', 'Hello {{name}}', '--skip-sent', runId], env(server.url, config));
    assert.equal(other.code, 2, other.stderr);
    assert.match(other.stderr, /sent another message \(body differs\)/);
    const column = await bulk([follow, '--text-column', 'name', '--from', 'Acme', '--skip-sent', runId], env(server.url, config));
    assert.equal(column.code, 2, column.stderr);
    assert.match(column.stderr, /sent another message \(body, --text-column differ\)/);
    assert.equal(server.requests.length, count);
  });

  test('a number an earlier run accepted, with a further message in the new file: sent that message when the journal says which it had (--allow-duplicates), else the run stops naming its lines', async () => {
    server.requests.length = 0;
    server.answer = (r) => ({ status: 202, body: { messages: requestOf(r).to.map((m) => ({ msisdn: m, id: `id-${m}` })) } });
    const dir = tempDir('msgr-ssp-');
    const config = join(dir, 'state');
    const appt = ['--from', 'Clinic', '--text', '{{child}} on {{day}}'];
    const v1 = join(dir, 'v1.csv');
    writeFileSync(v1, `msisdn,child,day\n${uk(1)},Ann,Mon\n${uk(2)},Eve,Wed\n`);
    // One message a number: the journal names the numbers, not which message each had.
    const first = await bulk([v1, ...appt, '--json'], env(server.url, config));
    assert.equal(first.code, 0, first.stderr);
    const runId = (JSON.parse(first.stdout) as { runId: string }).runId;
    // Tom's appointment is added for Ann's parent's phone, and a new family.
    const v2 = join(dir, 'v2.csv');
    writeFileSync(v2, `msisdn,child,day\n${uk(1)},Ann,Mon\n${uk(2)},Eve,Wed\n${uk(1)},Tom,Tue\n${uk(3)},Max,Fri\n`);
    const before = server.requests.length;
    // Two messages to one number: --allow-duplicates says each is meant; which one it had is not known.
    const second = await bulk([v2, ...appt, '--allow-duplicates', '--skip-sent', runId], env(server.url, config));
    assert.equal(second.code, 2, second.stderr);
    assert.match(second.stderr, new RegExp(`^error: .*v2\\.csv: 1 number with several messages in this file was messaged by run ${runId}, whose journal does not say which of its messages it had; nothing was sent:\\n  \\${uk(1)}: lines 2, 4$`, 'm'));
    assert.match(second.stderr, new RegExp(`msgr runs report ${runId} --report sent\\.csv`));
    assert.equal(server.requests.length, before);
    // A run with --allow-duplicates journals each recipient's message: its follow-up sends exactly the messages not had.
    const v3 = join(dir, 'v3.csv');
    writeFileSync(v3, `msisdn,child,day\n${uk(5)},Kim,Mon\n${uk(5)},Lou,Tue\n${uk(6)},Ned,Wed\n`);
    const third = await bulk([v3, ...appt, '--allow-duplicates', '--json'], env(server.url, config));
    assert.equal(third.code, 0, third.stderr);
    const thirdId = (JSON.parse(third.stdout) as { runId: string }).runId;
    writeFileSync(v3, `msisdn,child,day\n${uk(5)},Kim,Mon\n${uk(5)},Lou,Tue\n${uk(6)},Ned,Wed\n${uk(5)},Sam,Thu\n${uk(6)},Ned,Wed\n`);
    const at = server.requests.length;
    const fourth = await bulk([v3, ...appt, '--allow-duplicates', '--skip-sent', thirdId], env(server.url, config));
    assert.equal(fourth.code, 0, fourth.stderr);
    assert.match(fourth.stderr, /3 rows already sent/);
    assert.deepEqual(server.requests.slice(at).map(requestOf), [{ text: 'Sam on Thu', to: [uk(5)] }]);
  });

  test('--restart of an abandoned personalised run leaves out what it accepted; --include-sent sends to every row', async () => {
    server.requests.length = 0;
    acceptThenRefuse(server, 1);
    const dir = tempDir('msgr-ssp-restart-');
    const config = join(dir, 'state');
    const file = writePeople(join(dir, 'c.csv'), NAMES);
    const sizes = ['--batch-size', '2', '--concurrency', '1'];
    const opts = [...HI, ...sizes];
    assert.equal((await bulk([file, ...opts], env(server.url, config))).code, 3);
    // The file changes (one row more), so the run cannot be resumed: restarted.
    writePeople(file, [...NAMES, 'Eve']);
    server.answer = (r) => ({ status: 202, body: { messages: requestOf(r).to.map((m) => ({ msisdn: m, id: `id-${m}` })) } });
    const before = server.requests.length;
    // A dry run of the restart counts what it would leave out, and abandons nothing.
    const dry = await bulk([file, ...opts, '--restart', '--dry-run', '--json'], env(server.url, config));
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stderr, /--restart would abandon the unfinished run \S+; nothing is abandoned now/);
    const d = JSON.parse(dry.stdout) as Record<string, unknown>;
    assert.equal(server.requests.length, before);
    const restart = await bulk([file, ...opts, '--restart', '--json'], env(server.url, config));
    assert.equal(restart.code, 0, restart.stderr);
    assert.match(restart.stderr, /abandoned run \S+; its journal is kept as/);
    assert.match(restart.stderr, /2 rows already sent \(accepted by run \S+\): left out/);
    const s = JSON.parse(restart.stdout) as Record<string, unknown>;
    assert.deepEqual([s.toSend, s.alreadySent, s.accepted], [11, 2, 11]);
    assert.deepEqual([d.toSend, d.alreadySent, d.requests], [s.toSend, s.alreadySent, s.requests]);
    assert.equal(server.requests.length - before, s.requests);
    const sent = server.requests.slice(before).map(requestOf);
    const got = sent.flatMap((r) => r.to.map((m) => [m, r.text]));
    assert.deepEqual(got.map(([m]) => m).sort(), [2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13].map(uk).sort(), 'rows 1 and 3 (accepted) were left out');
    const names = [...NAMES, 'Eve'];
    for (const [m, text] of got) assert.equal(text, `Hi ${names[Number(m?.slice(-5)) - 1] ?? ''}`);

    // --include-sent: every row again, on purpose (a new message to the list: --again).
    acceptThenRefuse(server, 1);
    const bang = ['--from', 'Acme', '--text', 'Hi {{name}}!', ...sizes];
    assert.equal((await bulk([file, ...bang, '--again'], env(server.url, config))).code, 3);
    server.answer = (r) => ({ status: 202, body: { messages: requestOf(r).to.map((m) => ({ msisdn: m, id: `id-${m}` })) } });
    const from = server.requests.length;
    const all = await bulk([file, ...bang, '--restart', '--include-sent'], env(server.url, config));
    assert.equal(all.code, 0, all.stderr);
    assert.doesNotMatch(all.stderr, /already sent/);
    assert.equal(server.requests.slice(from).flatMap((r) => requestOf(r).to).length, 13);
  });
});
