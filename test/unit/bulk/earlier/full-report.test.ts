// `msgr runs report` of a run whose file is unchanged: every row, as the journal has it, in input
// order. The run is made in-process against a fake API (test/support/fake-api.ts) that accepts,
// rejects and leaves a batch without an answer; the report is compared row by row.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeRunReport } from '../../../../src/bulk/earlier/full-report.js';
import { ReportWriter } from '../../../../src/bulk/report/report-file.js';
import { ExitCode } from '../../../../src/errors.js';
import { tempDir } from '../../../support/cli.js';
import { accept, fakeApi } from '../../../support/fake-api.js';
import { fakeContext } from '../../../support/fake-context.js';
import { sendBulk } from '../../../support/in-process.js';

test('runs report: accepted rows with their ids, rejected, in doubt and never sent batches, rows set aside, in input order', async () => {
  const dir = tempDir('msgr-runs-report-');
  const file = join(dir, 'list.csv');
  // Lines 2-11: a duplicate (line 5 repeats line 2), an invalid number (line 8), eight rows to send.
  writeFileSync(file, 'msisdn,name\n+447911100001,A\n+447911100002,B\n+447911100003,C\n+447911100001,A\n+447911100004,D\n+447911100005,E\nnot a number,F\n+447911100006,G\n+447911100007,H\n+447911100008,I\n');
  const env = { MSGR_CONFIG_DIR: join(dir, 'state'), MSGR_API_KEY: 'fake-key-0123456789', MSGR_BASE_URL: 'https://api.example.test', MSGR_ACCOUNT_REFERENCE: 'ACME01', NO_COLOR: '1' };
  // Batches of 2: accepted, rejected, no answer (in doubt), then the run is stopped.
  const api = fakeApi((r, i) =>
    i === 0 ? accept(r, i)
    : i === 1 ? { kind: 'rejected', status: 400, body: {}, message: '400 Bad Request: from is not allowed', attempts: 1 }
    : { kind: 'unknown', message: 'timeout: no answer in 30 s', code: 'UND_ERR_HEADERS_TIMEOUT', attempts: 1 },
  );
  const stop = new AbortController();
  const ctx = { ...fakeContext({ env, http: api.http }), interrupt: stop.signal };
  const journal = join(dir, 'j.jsonl');
  let calls = 0;
  const http = api.http;
  const counted: typeof ctx = { ...ctx, http: async () => ({ ...(await ctx.http()), client: (o) => {
    const c = http(o);
    return { ...c, sendRaw: async (json, so) => {
      const out = await c.sendRaw(json, so);
      if (++calls === 3) stop.abort('SIGINT');
      return out;
    } };
  } }) };
  const err = await sendBulk(counted, [file, '--from', 'Acme', '--text', 'Hi', '--batch-size', '2', '--concurrency', '1', '--skip-invalid', '--journal', journal]);
  assert.equal(err?.exitCode, ExitCode.PARTIAL, err?.message);

  const path = join(dir, 'runs-report.csv');
  const writer = new ReportWriter(path, 4242);
  const r = await writeRunReport(fakeContext({ env }), journal, writer, () => undefined);
  writer.close();
  assert.deepEqual([r.rows, r.complete, r.withIds], [10, true, 2]);
  const lines = readFileSync(path, 'utf8').trim().split('\n');
  // The invalid row's reason is the number check's (bulk/input/number-check.ts), not this module's.
  assert.match(lines[7] ?? '', /^8,not a number,invalid,,,".*msisdn/);
  lines[7] = '(invalid)';
  assert.deepEqual(lines, [
    'line,number,outcome,status,message_id,error,request_fields',
    '2,+447911100001,accepted,202,id-+447911100001,,msisdn',
    '3,+447911100002,accepted,202,id-+447911100002,,msisdn',
    '4,+447911100003,rejected,400,,400 Bad Request: from is not allowed,msisdn',
    '5,+447911100001,duplicate,,,same number as line 2,',
    '6,+447911100004,rejected,400,,400 Bad Request: from is not allowed,msisdn',
    '7,+447911100005,in-doubt,,,"in doubt: sent, no answer (timeout: no answer in 30 s)",msisdn',
    '(invalid)',
    '9,+447911100006,in-doubt,,,"in doubt: sent, no answer (timeout: no answer in 30 s)",msisdn',
    '10,+447911100007,not-sent,,,interrupted before it was sent,msisdn',
    '11,+447911100008,not-sent,,,interrupted before it was sent,msisdn',
  ]);
});

test('runs report: a batch whose every number went on the --exclude list before a resume sent it is reported as excluded, as the resume reported it', async () => {
  const dir = tempDir('msgr-runs-report-');
  const file = join(dir, 'list.csv');
  const optouts = join(dir, 'optouts.txt');
  writeFileSync(file, 'msisdn\n+447911100001\n+447911100002\n+447911100003\n+447911100004\n+447911100005\n+447911100006\n');
  writeFileSync(optouts, '+447911199999\n');
  const env = { MSGR_CONFIG_DIR: join(dir, 'state'), MSGR_API_KEY: 'fake-key-0123456789', MSGR_BASE_URL: 'https://api.example.test', MSGR_ACCOUNT_REFERENCE: 'ACME01', NO_COLOR: '1' };
  const journal = join(dir, 'j.jsonl');
  const argv = [file, '--from', 'Acme', '--text', 'Hi', '--batch-size', '2', '--concurrency', '1', '--exclude', optouts, '--journal', journal];
  // The first run is stopped once its first batch is answered.
  const stop = new AbortController();
  const api = fakeApi((r, i) => {
    if (i === 0) stop.abort('SIGINT');
    return accept(r, i);
  });
  const err = await sendBulk({ ...fakeContext({ env, http: api.http }), interrupt: stop.signal }, argv);
  assert.equal(err?.exitCode, ExitCode.INTERRUPTED, err?.message);
  // Both numbers of the second batch go on the list; the resume leaves that batch out.
  writeFileSync(optouts, '+447911199999\n+447911100003\n+447911100004\n');
  const resumed = fakeApi();
  assert.equal(await sendBulk(fakeContext({ env, http: resumed.http }), ['--resume', '--journal', journal, '--yes']), undefined);
  assert.deepEqual(resumed.requests.map((r) => r.body.recipients?.map((x) => x.msisdn)), [['+447911100005', '+447911100006']]);
  // The list as the run started: the rows line up again, and the report is the whole file's.
  writeFileSync(optouts, '+447911199999\n');
  const path = join(dir, 'runs-report.csv');
  const writer = new ReportWriter(path, 4242);
  const r = await writeRunReport(fakeContext({ env }), journal, writer, () => undefined);
  writer.close();
  assert.deepEqual([r.rows, r.complete], [6, true]);
  assert.deepEqual(readFileSync(path, 'utf8').trim().split('\n').slice(3, 5), [
    '4,+447911100003,excluded,,,on the --exclude list since the run started,',
    '5,+447911100004,excluded,,,on the --exclude list since the run started,',
  ]);
});
