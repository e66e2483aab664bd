// Mistakes that look plausible stop send-bulk before anything is sent, and the command that goes on
// must say the intent: the number column chosen among several, numbers outside the numbering plan,
// text mangled by a spreadsheet round trip, landlines on an SMS run. The built CLI against a server
// on 127.0.0.1 that records every request, so "nothing was sent" is counted at the server.
// (A number on rows with different messages: send-bulk-personalised.test.ts and
// send-bulk-parallel.test.ts.)
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, runCli, tempDir, type RunResult } from '../support/cli.js';
import { useTestServer } from '../support/test-server.js';

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
  return runCli(['send-bulk', ...args], { env: env(extra), timeoutMs: 30_000 });
}

interface Body {
  body?: { text?: string; templateId?: string };
  recipients?: Array<{ msisdn: string; variables?: Record<string, string> }>;
}

/** Every recipient the server received, in order of the requests. */
function recipients(): Array<{ msisdn: string; variables?: Record<string, string> }> {
  return server.requests.flatMap((r) => (r.json as Body | undefined)?.recipients ?? []);
}

function texts(): Array<string | undefined> {
  return server.requests.map((r) => (r.json as Body | undefined)?.body?.text);
}

describe('the number column is never a guess', () => {
  test('First name,Phone,Mobile: the numbers come from Mobile (its name says mobile), and the preflight says so; --json names it', async () => {
    const path = file('First name,Phone,Mobile\nAnn,020 7946 0000,07911 123456\nBob,0113 496 0000,07911 123457\n');
    const r = await bulk([path, '--from', 'Acme', '--text', 'Hi {{First name}}', '--default-country', 'GB', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(recipients().map((x) => x.msisdn), ['+447911123456', '+447911123457']);
    assert.match(r.stderr, /\n {2}numbers: column "Mobile", whose name says mobile, over "Phone" \(--msisdn-column chooses another\)\n/);
    assert.deepEqual((JSON.parse(r.stdout) as { numberColumn: unknown }).numberColumn, { name: 'Mobile', how: 'mobile', over: ['Phone'] });
    // msgr fills in the text: the Phone column (a landline) goes nowhere, as no other column does.
    assert.equal(recipients()[0]?.variables, undefined);
  });

  test('one column: named as it is, accents and all (Téléphone); --msisdn-column: named as given', async () => {
    const r = await bulk([file('Nom,Téléphone\nZoé,+447911123456\n'), '--from', 'Acme', '--text', 'Bonjour']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /\n {2}numbers: column "Téléphone"\n/);
    const named = await bulk([file('Nom,Tel,Phone\nZoé,+447911123456,+447911123457\n'), '--from', 'Acme', '--text', 'Bonjour', '--msisdn-column', 'Phone']);
    assert.equal(named.code, 0, named.stderr);
    assert.match(named.stderr, /\n {2}numbers: column "Phone" \(--msisdn-column\)\n/);
    assert.deepEqual(recipients().map((x) => x.msisdn), ['+447911123456', '+447911123457']);
  });

  test('Phone and Home phone, no mobile name: the run stops (exit 2, nothing sent) and lists --msisdn-column for each; either is then accepted', async () => {
    const path = file('Name,Phone,Home phone\nAnn,+447911123456,+442079460000\n');
    const r = await bulk([path, '--from', 'Acme', '--text', 'Hi', '--json']);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(server.requests.length, 0);
    assert.match(r.stderr, /in\.csv has 2 columns that could hold the numbers, "Phone" and "Home phone", and none of their names says mobile: msgr does not guess which one to message; nothing was sent/);
    assert.match(r.stderr, /hint: Name the column to send to, with one of:\n {8}--msisdn-column Phone\n {8}--msisdn-column 'Home phone'\n/);
    assert.equal((JSON.parse(r.stdout) as { error: { exitCode: number } }).error.exitCode, 2);
    for (const [column, number] of [['Phone', '+447911123456'], ['Home phone', '+442079460000']] as const) {
      server.requests.length = 0;
      const ok = await bulk([path, '--from', 'Acme', '--text', 'Hi', '--msisdn-column', column]);
      assert.equal(ok.code, 0, ok.stderr);
      assert.deepEqual(recipients().map((x) => x.msisdn), [number]);
    }
  });

  test('Mobile and Cell: two mobile names do not settle it either', async () => {
    const r = await bulk([file('Mobile,Cell\n+447911123456,+447911123457\n'), '--from', 'Acme', '--text', 'Hi']);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(server.requests.length, 0);
    assert.match(r.stderr, /2 columns that could hold the numbers, "Mobile" and "Cell", and 2 of their names say mobile/);
  });

  test('an SMS run to landlines by their numbering plan says how many and which lines; an RCS run does not', async () => {
    const path = file('Phone,Name\n+447911123456,Ann\n020 7946 0000,Bob\n+447911123457,Cy\n0113 496 0000,Dee\n');
    const r = await bulk([path, '--from', 'Acme', '--text', 'Hi', '--default-country', 'GB', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(recipients().length, 4);
    assert.match(r.stderr, /warning: 2 rows to send have landline numbers by their numbering plan \(lines 3, 5\): SMS to a landline usually fails/);
    assert.deepEqual((JSON.parse(r.stdout) as { landlines: unknown }).landlines, { count: 2, lines: [3, 5] });
    const rcs = await bulk([path, '--from', 'acme_agent', '--channel', 'RCS', '--text', 'Hi', '--default-country', 'GB']);
    assert.equal(rcs.code, 0, rcs.stderr);
    assert.doesNotMatch(rcs.stderr, /landline/);
  });
});

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

describe('text mangled by a spreadsheet round trip', () => {
  // "Zoë" and "José" saved as UTF-8, read back as Windows-1252 and saved again as UTF-8.
  const MANGLED = 'Mobile,First name\n+447911123456,ZoÃ«\n+447911123457,Ann\n+447911123458,JosÃ©\n';

  test('a placeholder value: the run stops (exit 2, nothing sent), naming each line and the repaired text; --skip-invalid is not offered', async () => {
    const r = await bulk([file(MANGLED), '--from', 'Acme', '--text', 'Hi {{First name}}']);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(server.requests.length, 0);
    assert.match(r.stderr, /2 rows: text mangled by a spreadsheet \(UTF-8 read as Windows-1252\) \(column First name\)\n {4}line 2: "ZoÃ«" looks like UTF-8 text a spreadsheet read as Windows-1252 and saved again; repaired it reads "Zoë"\n {4}line 4: "JosÃ©" .*repaired it reads "José"\n/);
    assert.match(r.stderr, /hint: Add --fix-mojibake to send such text repaired/);
    assert.match(r.stderr, /--skip-invalid is not offered: it would leave out the 2 rows whose text the file's encoding garbled/);
    assert.doesNotMatch(r.stderr, /add --skip-invalid/);
  });

  test('--skip-invalid (a cron line that carries it) does not leave out the rows with mangled text: the run stops until --fix-mojibake says what to do', async () => {
    const path = file(`${MANGLED}07911,Bob\n`);
    const r = await bulk([path, '--from', 'Acme', '--text', 'Hi {{First name}}', '--skip-invalid', '-q', '--json']);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(server.requests.length, 0, 'nothing was sent, not even Ann');
    assert.match(r.stderr, /in\.csv: 3 invalid rows \(2 of them garbled by the file's encoding, which --skip-invalid does not leave out: they are people with accented names\); nothing was sent:\n/);
    assert.match(r.stderr, /add --fix-mojibake --skip-invalid to send those repaired and leave out the 1 other invalid row/);
    assert.doesNotMatch(r.stderr, /will not be sent/, 'no warning that says they are skipped');
    assert.equal((JSON.parse(r.stdout) as { stopped: string }).stopped, 'preflight');
    const fixed = await bulk([path, '--from', 'Acme', '--text', 'Hi {{First name}}', '--skip-invalid', '--fix-mojibake']);
    assert.equal(fixed.code, 0, fixed.stderr);
    assert.deepEqual(texts().sort(), ['Hi Ann', 'Hi José', 'Hi Zoë']);
    // Text that is not valid UTF-8: the same stop, until the file's encoding is given.
    server.requests.length = 0;
    const latin1 = file(Buffer.from('Mobile,First name\r\n+447911123456,Ren\xe9e\r\n+447911123457,Ann\r\n', 'latin1'));
    const bytes = await bulk([latin1, '--from', 'Acme', '--text', 'Hi {{first name}}', '--skip-invalid']);
    assert.equal(bytes.code, 2, bytes.stderr);
    assert.equal(server.requests.length, 0);
    assert.match(bytes.stderr, /1 invalid row \(1 of them garbled by the file's encoding/);
    const encoded = await bulk([latin1, '--from', 'Acme', '--text', 'Hi {{first name}}', '--skip-invalid', '--encoding', 'latin1']);
    assert.equal(encoded.code, 0, encoded.stderr);
    assert.deepEqual(texts().sort(), ['Hi Ann', 'Hi Renée']);
  });

  test('--fix-mojibake sends the repaired text: placeholders, variables of a template, and a row\'s own text', async () => {
    const r = await bulk([file(MANGLED), '--from', 'Acme', '--text', 'Hi {{First name}}', '--fix-mojibake']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(texts().sort(), ['Hi Ann', 'Hi José', 'Hi Zoë']);
    server.requests.length = 0;
    const template = await bulk([file(MANGLED), '--template', 'welcome', '--from', 'Acme', '--fix-mojibake', '--batch-size', '10']);
    assert.equal(template.code, 0, template.stderr);
    assert.deepEqual(recipients().map((x) => x.variables?.['First name']), ['Zoë', 'Ann', 'José']);
    server.requests.length = 0;
    const refused = await bulk([file(MANGLED), '--template', 'welcome', '--from', 'Acme']);
    assert.equal(refused.code, 2, refused.stderr);
    assert.equal(server.requests.length, 0, 'a template\'s variables are checked too');
    const own = await bulk([file('Mobile,Message\n+447911123456,Itâ€™s on Monday\n'), '--from', 'Acme', '--text-column', 'Message', '--fix-mojibake']);
    assert.equal(own.code, 0, own.stderr);
    assert.deepEqual(texts(), ['It’s on Monday']);
  });

  test('the shared --text and --text-file: refused before the file is read, repaired with --fix-mojibake', async () => {
    const path = file('Mobile\n+447911123456\n');
    const r = await bulk([path, '--from', 'Acme', '--text', 'Itâ€™s ready']);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(server.requests.length, 0);
    assert.match(r.stderr, /--text: "Itâ€™s ready" looks like UTF-8 text a spreadsheet read as Windows-1252 and saved again; repaired it reads "It’s ready"; nothing was sent/);
    const textFile = file('Itâ€™s ready\n', 'text.txt');
    const fromFile = await bulk([path, '--from', 'Acme', '--text-file', textFile]);
    assert.equal(fromFile.code, 2, fromFile.stderr);
    assert.match(fromFile.stderr, /--text-file .*text\.txt: "Itâ€™s ready" looks like/);
    const fixed = await bulk([path, '--from', 'Acme', '--text-file', textFile, '--fix-mojibake']);
    assert.equal(fixed.code, 0, fixed.stderr);
    assert.deepEqual(texts(), ['It’s ready']);
  });

  test('real words with Ã or â are left alone: São, Château, âge', async () => {
    const r = await bulk([file('Mobile,Name\n+447911123456,São\n+447911123457,Château\n+447911123458,Âge\n'), '--from', 'Acme', '--text', 'Hi {{Name}}']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(texts().sort(), ['Hi Château', 'Hi São', 'Hi Âge'].sort());
  });

  test('rows that are not valid UTF-8 are not offered --skip-invalid either', async () => {
    const r = await bulk([file(Buffer.from('Mobile,First name\r\n+447911123456,Ren\xe9e\r\n+447911123457,Ann\r\n', 'latin1')), '--from', 'Acme', '--text', 'Hi {{first name}}']);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(server.requests.length, 0);
    assert.match(r.stderr, /give --encoding latin1/);
    assert.match(r.stderr, /--skip-invalid is not offered/);
    assert.doesNotMatch(r.stderr, /add --skip-invalid/);
  });
});
