// Numbers outside the numbering plan are invalid rows: named with their line, left out with
// --skip-invalid, sent only with --allow-unlisted-numbers. Run in-process
// (test/support/in-process.ts) against a server on 127.0.0.1 that records every request.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir, type RunResult } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { useTestServer } from '../../../support/test-server.js';

const KEY = 'sk_test_mistakes_1234567';
const server = useTestServer();

function env(extra: Record<string, string | undefined> = {}): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: KEY, MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: 'ACME01', ...extra });
}

function file(content: string | Buffer, name = 'in.csv'): string {
  const path = join(tempDir('msgr-mistakes-'), name);
  writeFileSync(path, content);
  return path;
}

function bulk(args: string[], extra: Record<string, string | undefined> = {}): Promise<RunResult> {
  return runInProcess(['send-bulk', ...args], { env: env(extra), timeoutMs: 30_000 });
}

interface Body {
  body?: { text?: string; templateId?: string };
  recipients?: Array<{ msisdn: string; variables?: Record<string, string> }>;
}

/** Every recipient the server received, in order of the requests. */
function recipients(): Array<{ msisdn: string; variables?: Record<string, string> }> {
  return server.requests.flatMap((r) => (r.json as Body | undefined)?.recipients ?? []);
}

describe('numbers outside the numbering plan are invalid rows', () => {
  const path = (): string => file('Mobile,Name\n07911 123456,Ann\n07911 12345,Bob\n01632 96,Cy\n+447700900123,Dee\n');

  test('one digit short, a national 0 kept, the drama range: the run stops (exit 2, nothing sent) naming each line and why', async () => {
    const r = await bulk([path(), '--from', 'Acme', '--text', 'Hi {{Name}}', '--default-country', 'GB', '--json']);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(server.requests.length, 0);
    assert.match(r.stderr, /in\.csv: 3 invalid rows; nothing was sent:\n {2}2 rows: numbers a digit short or long, or with a national 0 kept \(column Mobile\)\n/);
    assert.match(r.stderr, /\n {4}line 3: "07911 12345" is \+44791112345, too short for a \+44 \(United Kingdom\) number: one digit missing\?\n/);
    assert.match(r.stderr, /\n {4}line 4: "01632 96" is \+440163296, with the national 0 kept after the country code \(\+44 0…\); without it, too short for a \+44 \(United Kingdom\) number\n/);
    assert.match(r.stderr, /\n {2}1 row: numbers in no range of the numbering plan \(column Mobile\)\n {4}line 5: \+447700900123 is not in the numbering plan of \+44 \(United Kingdom\): no range of its numbers holds it\n/);
    // The flag is offered for the number in no range, never for a mistyped one.
    assert.match(r.stderr, /hint: Check these numbers in the file: a digit missing or one too many, or a national 0 kept after the country code\.\n {6}Check these numbers\. Numbers in ranges newer than msgr's phone data \(libphonenumber-js\) can be sent with --allow-unlisted-numbers\.\n {6}Fix the rows, or add --skip-invalid to send the 1 other recipient/);
    const doc = JSON.parse(r.stdout) as { causes: Array<{ cause: string; lines: number[] }> };
    assert.deepEqual(doc.causes.map((c) => [c.cause, c.lines]), [['mistyped', [3, 4]], ['unlisted', [5]]]);
  });

  test('--skip-invalid leaves them out as any invalid row; --allow-unlisted-numbers sends a number in no range of the plan, says so, and never a mistyped one', async () => {
    const skip = await bulk([path(), '--from', 'Acme', '--text', 'Hi {{Name}}', '--default-country', 'GB', '--skip-invalid']);
    assert.equal(skip.code, 0, skip.stderr);
    assert.deepEqual(recipients().map((x) => x.msisdn), ['+447911123456']);
    assert.match(skip.stderr, /warning: 3 invalid rows will not be sent:\n {2}2 rows: numbers a digit short or long/);
    server.requests.length = 0;
    // A digit lost in the spreadsheet is no range newer than the phone data: still refused.
    const mistyped = await bulk([path(), '--from', 'Acme', '--text', 'Hi {{Name}}', '--default-country', 'GB', '--allow-unlisted-numbers']);
    assert.equal(mistyped.code, 2, mistyped.stderr);
    assert.equal(server.requests.length, 0);
    assert.match(mistyped.stderr, /2 invalid rows; nothing was sent:\n {2}2 rows: numbers a digit short or long, or with a national 0 kept/);
    assert.doesNotMatch(mistyped.stderr, /hint:[^\n]*--allow-unlisted-numbers/, 'the flag is not offered for mistyped numbers');
    const allowed = await bulk([path(), '--from', 'Acme', '--text', 'Hi {{Name}}', '--default-country', 'GB', '--allow-unlisted-numbers', '--skip-invalid']);
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.deepEqual(recipients().map((x) => x.msisdn).sort(), ['+447700900123', '+447911123456']);
    assert.match(allowed.stderr, /\n {2}outside the known numbering plan, sent as --allow-unlisted-numbers says: 1 row: \+447700900123 \(line 5\)\n/);
  });

  test('an opt-out list may name a number outside the plan: it is still left out', async () => {
    const opt = file('+447700900123\n', 'opt.txt');
    const r = await bulk([path(), '--from', 'Acme', '--text', 'Hi {{Name}}', '--default-country', 'GB', '--allow-unlisted-numbers', '--skip-invalid', '--exclude', opt]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!recipients().some((x) => x.msisdn === '+447700900123'));
    assert.match(r.stderr, /excluded: 1 row on the opt-out list/);
  });

  test('--sample-to outside the plan is refused naming the flag that accepts it', async () => {
    const r = await bulk([path(), '--from', 'Acme', '--text', 'Hi {{Name}}', '--default-country', 'GB', '--skip-invalid', '--sample-to', '+447700900999']);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(server.requests.length, 0);
    assert.match(r.stderr, /--sample-to: \+447700900999 is not in the numbering plan/);
    assert.match(r.stderr, /--allow-unlisted-numbers/);
  });
});
