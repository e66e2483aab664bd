// `msgr send-bulk` as a user runs it: against the sandbox (in this process, recording every
// accepted request), asserting on what it received, what the command printed and its exit code.
// Run in-process (test/support/in-process.ts); locks between processes, kill -9 and Ctrl-C are
// e2e (send-bulk).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type RunningSandbox } from '../../../../src/sandbox/server.js';
import { ROOT, tempDir, type RunResult } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { assertExactlyOnce, readRecord, recipients, sandbox, env, csv, numbersCsv, MSG } from '../../../support/bulk-inputs.js';

const FIXTURES = join(ROOT, 'fixtures', 'bulk');

function bulk(args: string[], e: Record<string, string>, input?: string): Promise<RunResult> {
  return runInProcess(['send-bulk', ...args], { env: e, timeoutMs: 30_000, ...(input !== undefined ? { input } : {}) });
}

function assertNoStack(r: RunResult): void {
  assert.doesNotMatch(r.stderr, /\n\s+at .+:\d+:\d+/, 'stack trace without --verbose');
  assert.doesNotMatch(r.stderr, /internal error/);
}

describe('send-bulk against the sandbox', () => {
  let sbx: { server: RunningSandbox; record: string };
  before(async () => {
    sbx = await sandbox();
  });
  after(async () => {
    await sbx.server.close();
  });

  test('every valid row arrives exactly once with its variables and metaData; invalid, duplicate and excluded rows never do', async () => {
    const dir = tempDir();
    const report = join(dir, 'report.csv');
    // Line 5 repeats line 2's number with another name: --first-per-number keeps line 2's.
    const r = await bulk(
      [join(FIXTURES, 'mixed.csv'), ...MSG, '--default-country', 'GB', '--skip-invalid', '--first-per-number', '--exclude', join(FIXTURES, 'optouts.csv'), '--var-columns', 'First name,code', '--meta-columns', 'campaign', '--batch-size', '2', '--report', report, '--json'],
      env(sbx.server.url),
    );
    assert.equal(r.code, 0, r.stderr);
    assertNoStack(r);
    const recs = readRecord(sbx.record);
    assert.equal(recs.length, 3, 'five recipients in batches of two');
    const got = new Map(recipients(sbx.record).map((x) => [x.msisdn, x]));
    assert.deepEqual([...got.keys()].sort(), ['+447911123401', '+447911123402', '+447911123403', '+447911123404', '+447911123406']);
    assert.deepEqual(got.get('+447911123401'), { msisdn: '+447911123401', variables: { 'First name': 'Ann', code: '007' }, metaData: { campaign: 'spring' } });
    assert.deepEqual(got.get('+447911123402')?.variables, { 'First name': 'Bob "B" Smith', code: '0' });
    assert.deepEqual(got.get('+447911123403')?.variables, { 'First name': 'Cé', code: '1;2' });
    // A cell's CR LF goes into the message as one LF, as in a rendered text.
    assert.deepEqual(got.get('+447911123406')?.variables, { 'First name': 'Multi\nline', code: '012' });
    const keys = recs.map((x) => x.idempotencyKey ?? '');
    const summary = JSON.parse(r.stdout) as Record<string, unknown>;
    // Batches in flight at once reach the server in any order.
    assert.deepEqual([...keys].sort(), [0, 1, 2].map((i) => `msgr-${String(summary.runId)}-${i}`));
    assert.equal(recs[0]?.request.accountReference, 'ACME01');
    assert.deepEqual(recs[0]?.request.body, { text: 'Hello there' });
    assert.deepEqual(
      [summary.rows, summary.valid, summary.invalid, summary.duplicates, summary.excluded, summary.toSend, summary.requests, summary.accepted, summary.exitCode],
      [8, 7, 1, 1, 1, 5, 3, 5, 0],
    );
    const lines = readFileSync(report, 'utf8').trim().split('\n');
    assert.equal(lines[0], 'line,number,outcome,status,message_id,error,request_fields');
    const outcomes = lines.slice(1).map((l) => l.split(',').slice(0, 3).join(','));
    assert.deepEqual(outcomes, [
      '2,+447911123401,accepted',
      '3,+447911123402,accepted',
      '4,+447911123403,accepted',
      '5,+447911123401,duplicate',
      '6,12,invalid',
      '7,+447911123404,accepted',
      '8,+447911123405,excluded',
      '9,+447911123406,accepted',
    ]);
    assert.match(lines[1] ?? '', /,202,sbx_m_[0-9a-f]+_0,,msisdn; variables\.First name; variables\.code; metaData\.campaign$/);
    // A duplicate names the row it repeats, and why it was left out.
    assert.equal(lines[4], '5,+447911123401,duplicate,,,another message to the number of line 2: left out by --first-per-number,');
    assert.equal(summary.differentMessages, 1);
    assert.match(lines[5] ?? '', /^6,12,invalid,,,"?Phone: .*cannot be a phone number/);
  });

  test('a duplicate names the line it repeats, also across the two halves of a split preflight', async () => {
    // 1,500 rows whose last 500 repeat the first 500 numbers: the split puts the repeats in the
    // second half, their first rows in the first.
    const numbers = Array.from({ length: 1500 }, (_, i) => `+4479111${String(i % 1000).padStart(5, '0')}`);
    const path = csv(['msisdn,name', ...numbers.map((m, i) => `${m},N${i % 1000}`)]);
    for (const split of ['1000', 'off']) {
      const report = join(tempDir(), 'r.csv');
      const r = await bulk([path, ...MSG, '--report', report, '--verbose'], env(sbx.server.url, { MSGR_BULK_PARALLEL_MIN_BYTES: split }));
      assert.equal(r.code, 0, r.stderr);
      if (split !== 'off') assert.match(r.stderr, /preflight: two threads, the second from line \d+/);
      const dups = readFileSync(report, 'utf8').trim().split('\n').filter((l) => l.includes(',duplicate,'));
      assert.equal(dups.length, 500, split);
      assert.deepEqual(dups.filter((l) => { const [line, , , , , error] = l.split(','); return error !== `same number as line ${Number(line) - 1000}`; }), [], split);
    }
  });

  test('one invalid row stops the run before anything is sent (exit 2), listing the line and column', async () => {
    const before = readRecord(sbx.record).length;
    const path = csv(['msisdn,name', '+447911123401,A', '+1 555,B', 'hello,C', '+447911123402,D']);
    const report = join(tempDir(), 'r.csv');
    const r = await bulk([path, ...MSG, '--json', '--report', report], env(sbx.server.url));
    assert.equal(r.code, 2, r.stderr);
    assert.deepEqual(readFileSync(report, 'utf8').trim().split('\n').slice(1).map((l) => l.split(',').slice(0, 3).join(',')), [
      '2,+447911123401,not-sent',
      '3,+1 555,invalid',
      '4,hello,invalid',
      '5,+447911123402,not-sent',
    ]);
    assert.match(r.stderr, /2 invalid rows; nothing was sent/);
    assert.match(r.stderr, /1 row: numbers that cannot be phone numbers \(column msisdn\)\n\s+line 3: "\+1 555" cannot be a phone number/);
    assert.match(r.stderr, /1 row: numbers with characters that are not digits \(column msisdn\)\n\s+line 4: "hello" has characters that are not digits/);
    assert.match(r.stderr, /--skip-invalid/);
    const doc = JSON.parse(r.stdout) as { invalid: number; exitCode: number; problems: Array<{ line: number }> };
    assert.equal(doc.invalid, 2);
    assert.equal(doc.exitCode, 2);
    assert.deepEqual(doc.problems.map((p) => p.line), [3, 4]);
    assert.equal(readRecord(sbx.record).length, before);
    assertNoStack(r);
  });

  test('--dry-run prints the totals and the first request, and sends nothing', async () => {
    const before = readRecord(sbx.record).length;
    const { path } = numbersCsv(5);
    const r = await bulk([path, '--from', 'Acme', '--text', `Price: 5€ ’ok’ ${'x'.repeat(60)}`, '--batch-size', '2', '--dry-run'], env(sbx.server.url));
    assert.equal(r.code, 0, r.stderr);
    const req = JSON.parse(r.stdout) as { recipients: Array<{ msisdn: string; variables: unknown }>; body: unknown };
    // msgr fills in the text: no column rides along as a variable.
    assert.deepEqual(req.recipients, [{ msisdn: '+447911100000' }, { msisdn: '+447911100001' }]);
    assert.match(r.stderr, /5 rows, 5 valid/);
    assert.match(r.stderr, /to send: 5 recipients in 3 requests/);
    assert.match(r.stderr, /UCS-2 \(forced by ’ \(U\+2019\)\), 75 characters: 2 SMS parts per message, 10 in total/);
    assert.equal(readRecord(sbx.record).length, before);
  });

  test('--dry-run --report: a run the preflight lets through writes no report and says so; --json has report null', async () => {
    const { path } = numbersCsv(3);
    const report = join(tempDir(), 'dry-report.csv');
    const r = await bulk([path, ...MSG, '--dry-run', '--report', report, '--json'], env(sbx.server.url));
    assert.equal(r.code, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { report: unknown }).report, null);
    assert.match(r.stderr, /dry run: no report written to .*dry-report\.csv: nothing was sent/);
    assert.equal(existsSync(report), false);
  });

  test('reads the CSV from stdin with -', async () => {
    const before = recipients(sbx.record).length;
    const r = await bulk(['-', ...MSG, '--yes'], env(sbx.server.url), 'msisdn\n+447911123499\n+447911123498\n');
    assert.equal(r.code, 0, r.stderr);
    const got = recipients(sbx.record).slice(before).map((x) => x.msisdn);
    assert.deepEqual(got, ['+447911123499', '+447911123498']);
  });

  test('a refused key stops the run (exit 3); fixing it and --resume sends everything once', async () => {
    const { server, record } = await sandbox();
    try {
      const { path, numbers } = numbersCsv(7);
      const config = tempDir();
      const bad = await bulk([path, ...MSG, '--batch-size', '2'], env(server.url, { MSGR_API_KEY: 'wrong-key-999' }, config));
      assert.equal(bad.code, 3, bad.stderr);
      assert.match(bad.stderr, /refused the key or the account \(HTTP 401\)/);
      assert.match(bad.stderr, /Resume with: msgr send-bulk \S+ --resume/);
      // A wrong account cannot be fixed by a resume: the hint says what can.
      assert.match(bad.stderr, /A fixed key can resume the run; another --account cannot .*--account and --restart/);
      assert.ok(!bad.stderr.includes('wrong-key-999'), 'key leaked');
      assert.equal(readRecord(record).length, 0);
      // Without --resume the unfinished run is not silently replaced.
      const again = await bulk([path, ...MSG, '--batch-size', '2'], env(server.url, {}, config));
      assert.equal(again.code, 2);
      assert.match(again.stderr, /an unfinished run of this file exists/);
      // A resume sends exactly what the run started with: other message flags are refused,
      // the same full command line (a cron job's) is accepted.
      const other = await bulk([path, '--from', 'Acme', '--text', 'Something else', '--resume'], env(server.url, {}, config));
      assert.equal(other.code, 2, other.stderr);
      assert.match(other.stderr, /--resume: --text differs from run \S+, which sends "Hello there"/);
      const ok = await bulk([path, ...MSG, '--batch-size', '2', '--resume'], env(server.url, {}, config));
      assert.equal(ok.code, 0, ok.stderr);
      assertExactlyOnce(record, numbers);
      assert.deepEqual(readRecord(record)[0]?.request.body, { text: 'Hello there' });
    } finally {
      await server.close();
    }
  });

  test('a run that read stdin resumes from its spooled copy with the printed command', async () => {
    const { server, record } = await sandbox();
    try {
      const config = tempDir();
      const input = 'msisdn,name\n+447911123481,A\n+447911123482,B\n+447911123483,C\n';
      const bad = await bulk(['-', ...MSG, '--yes'], env(server.url, { MSGR_API_KEY: 'wrong-key-999' }, config), input);
      assert.equal(bad.code, 3, bad.stderr);
      const m = /Resume with: (msgr send-bulk --resume --journal (\S+) --yes)/.exec(bad.stderr);
      assert.ok(m !== null, bad.stderr);
      const journal = (m[2] ?? '').replace(/^'|'$/g, '');
      const ok = await bulk(['--resume', '--journal', journal, '--yes'], env(server.url, {}, config));
      assert.equal(ok.code, 0, ok.stderr);
      assertExactlyOnce(record, ['+447911123481', '+447911123482', '+447911123483']);
    } finally {
      await server.close();
    }
  });

  test('an unwritable --report fails before anything is sent and leaves no run behind', async () => {
    const before = readRecord(sbx.record).length;
    const { path } = numbersCsv(2, 500);
    const config = tempDir();
    const bad = await bulk([path, ...MSG, '--report', join(tempDir(), 'no-such-dir', 'r.csv')], env(sbx.server.url, {}, config));
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--report: cannot write .*no-such-dir\/r\.csv \(there is no folder .*no-such-dir\)\nhint: Give a report path in a folder that exists/);
    assert.doesNotMatch(bad.stderr, /ENOENT/);
    assert.equal(readRecord(sbx.record).length, before);
    const ok = await bulk([path, ...MSG], env(sbx.server.url, {}, config));
    assert.equal(ok.code, 0, ok.stderr);
  });

  test('--resume refuses a file that changed since the run started', async () => {
    const { path } = numbersCsv(3);
    const config = tempDir();
    const bad = await bulk([path, ...MSG], env(sbx.server.url, { MSGR_API_KEY: 'wrong-key-999' }, config));
    assert.equal(bad.code, 3);
    writeFileSync(path, 'msisdn,name\n+447911100000,N0\n+447911100009,N1\n+447911100002,N2\n');
    const r = await bulk([path, '--resume'], env(sbx.server.url, {}, config));
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /changed since run \S+ started/);
  });

  test('--resume after the run\'s --exclude list was moved away says so, and sends nothing until it is back', async () => {
    const { path } = numbersCsv(3, 600);
    const config = tempDir();
    const list = join(tempDir(), 'optouts.txt');
    writeFileSync(list, '+447911100601\n');
    const before = readRecord(sbx.record).length;
    const bad = await bulk([path, ...MSG, '--exclude', list], env(sbx.server.url, { MSGR_API_KEY: 'wrong-key-999' }, config));
    assert.equal(bad.code, 3, bad.stderr);
    renameSync(list, `${list}.moved`);
    const r = await bulk([path, '--resume'], env(sbx.server.url, {}, config));
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`--resume: the exclude file ${list.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} that run \\S+ started with is gone\\nhint: Put it back at that path, unchanged`));
    assert.doesNotMatch(r.stderr, /Check the file name|a relative path/);
    assert.equal(readRecord(sbx.record).length, before);
    renameSync(`${list}.moved`, list);
    const ok = await bulk([path, '--resume'], env(sbx.server.url, {}, config));
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(readRecord(sbx.record).slice(before).flatMap((x) => x.request.recipients.map((m) => m.msisdn)), ['+447911100600', '+447911100602']);
  });

  test('429 storms slow the whole run down and everything still arrives once', async () => {
    const { server, record } = await sandbox({ rateLimit: 15 });
    try {
      const { path, numbers } = numbersCsv(30);
      const r = await bulk([path, ...MSG, '--batch-size', '1', '--concurrency', '4'], env(server.url));
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /throttled \d+ times? \(429\/503\); the run slowed down/);
      assertExactlyOnce(record, numbers);
    } finally {
      await server.close();
    }
  });

  test('500s mid-run leave batches in doubt (exit 7); --resume --resend-in-doubt completes them without duplicates', async () => {
    const { server, record } = await sandbox({ errorRate: 0.25, seed: 7 });
    try {
      const { path, numbers } = numbersCsv(60);
      const config = tempDir();
      const first = await bulk([path, ...MSG, '--batch-size', '3', '--concurrency', '2', '--json'], env(server.url, {}, config));
      assert.equal(first.code, 7, first.stderr);
      const doc = JSON.parse(first.stdout) as { inDoubt: number; accepted: number; exitCode: number; resume: string };
      assert.ok(doc.inDoubt > 0);
      assert.equal(doc.exitCode, 7);
      assert.match(doc.resume, /--resume/);
      assert.match(first.stderr, /in doubt: batch \d+ \(3 recipients from line \d+, Idempotency-Key msgr-/);
      // Without --resend-in-doubt, in-doubt batches are listed, not sent.
      const listed = await bulk([path, '--resume'], env(server.url, {}, config));
      assert.notEqual(listed.code, 0);
      assert.match(listed.stderr, /in doubt/);
      let last: RunResult | undefined;
      for (let i = 0; i < 15; i++) {
        last = await bulk([path, '--resume', '--resend-in-doubt'], env(server.url, {}, config));
        if (last.code === 0) break;
        assert.equal(last.code, 7, last.stderr);
      }
      assert.equal(last?.code, 0, last?.stderr);
      assertExactlyOnce(record, numbers);
    } finally {
      await server.close();
    }
  });

});
