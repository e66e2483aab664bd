// Text mangled by a spreadsheet round trip (mojibake) stops the run before anything is sent,
// naming each line and the repaired text; --fix-mojibake sends the repair. Run in-process
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

function texts(): Array<string | undefined> {
  return server.requests.map((r) => (r.json as Body | undefined)?.body?.text);
}

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
