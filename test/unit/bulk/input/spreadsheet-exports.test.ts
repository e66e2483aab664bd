// Spreadsheet exports as send-bulk reads them: blank rows of delimiters, spreadsheet headers,
// lists without a header, numbers in scientific notation, error values, encodings, line ends.
// Run in-process (test/support/in-process.ts) against a server on 127.0.0.1 that records every
// request, so "nothing was sent" is counted at the server.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir, type RunResult } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { useTestServer } from '../../../support/test-server.js';

const KEY = 'sk_test_inputs_12345678';
const server = useTestServer();

function env(extra: Record<string, string | undefined> = {}): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: KEY, MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: 'ACME01', ...extra });
}

function file(content: string | Buffer, name = 'in.csv'): string {
  const path = join(tempDir('msgr-inputs-'), name);
  writeFileSync(path, content);
  return path;
}

const MSG = ['--from', 'Acme', '--text', 'Hello'];
/** A template: the provider fills it in, so every column but the number's goes as variables. */
const TEMPLATE = ['--from', 'Acme', '--template', 'hello'];

function bulk(args: string[], extra: Record<string, string | undefined> = {}, input?: string): Promise<RunResult> {
  return runInProcess(['send-bulk', ...args], { env: env(extra), timeoutMs: 30_000, ...(input !== undefined ? { input } : {}) });
}

/** Every recipient the server received, in order. */
function sent(): string[] {
  return server.requests.flatMap((r) => ((r.json as { recipients?: Array<{ msisdn: string }> } | undefined)?.recipients ?? []).map((x) => x.msisdn));
}

/**
 * Each request's recipients, in file order of the requests: batches in flight together reach the
 * server in any order (their journal lines are flushed together, so they leave at once).
 */
function batches(): string[][] {
  return server.requests.map((r) => ((r.json as { recipients?: Array<{ msisdn: string }> } | undefined)?.recipients ?? []).map((x) => x.msisdn)).sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? ''));
}

function texts(): unknown[] {
  return server.requests.map((r) => (r.json as { body?: { text?: unknown } } | undefined)?.body?.text);
}

function assertClean(r: RunResult): void {
  assert.doesNotMatch(r.stderr, /\n\s+at .+:\d+:\d+/, 'stack trace without --verbose');
  assert.doesNotMatch(r.stderr, /internal error/);
}

describe('spreadsheet exports', () => {
  test('rows of delimiters and spaces are blank; "Phone Number" is the number column', async () => {
    const path = file('Phone Number;First Name\r\n+447911123401;Ann\r\n;;\r\n ; \r\n;\r\n+447911123402;Bob\r\n;;\r\n');
    const r = await bulk([path, ...TEMPLATE, '--yes', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(sent(), ['+447911123401', '+447911123402']);
    assert.equal((JSON.parse(r.stdout) as { rows: number }).rows, 2);
    const vars = (server.requests[0]?.json as { recipients: Array<{ variables?: unknown }> }).recipients.map((x) => x.variables);
    assert.deepEqual(vars, [{ 'First Name': 'Ann' }, { 'First Name': 'Bob' }]);
  });

  test('a value under a header with no name is named in a warning (it is not sent); empty trailing columns say nothing', async () => {
    // Excel exports a column someone typed into without a header as an empty name.
    const rows = ['msisdn,name,,'];
    for (let i = 0; i < 300; i++) rows.push(`+4479111${String(i).padStart(5, '0')},N${i},${i === 4 || i === 250 ? 'VIP' : ''},`);
    const path = file(`${rows.join('\n')}\n`);
    for (const split of ['off', '0']) {
      server.requests.length = 0;
      const r = await bulk([path, ...TEMPLATE, '--yes'], { MSGR_BULK_PARALLEL_MIN_BYTES: split });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /warning: 2 rows have values in a column with no name in the header \(column 3, first on line 6\): such values are not sent; give the column a name/);
      const vars = (server.requests[0]?.json as { recipients: Array<{ variables?: unknown }> }).recipients[4]?.variables;
      assert.deepEqual(vars, { name: 'N4' });
    }
    // Values under two unnamed columns: the warning names both, not only the first it met.
    const two = file('msisdn,,name,\n+447911123401,x,Ann,\n+447911123402,,Bob,y\n+447911123403,,Cy,z\n');
    for (const split of ['off', '0']) {
      const r = await bulk([two, ...TEMPLATE, '--yes'], { MSGR_BULK_PARALLEL_MIN_BYTES: split });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /warning: 3 rows have values in columns with no name in the header \(columns 2 and 4, first on line 2\): such values are not sent; give each column a name in the header to send them as variables/);
    }
    const quiet = await bulk([file('msisdn,name,,\n+447911123401,Ann,,\n'), ...MSG, '--yes']);
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.doesNotMatch(quiet.stderr, /no name/);
  });

  test('a row that leaves out the fields of trailing columns with no name is read; one that leaves out a named column is not', async () => {
    const path = file('phone,name,,\r\n+447911123401,Ann\r\n+447911123402,Bob,,\r\n+447911123403\r\n');
    const r = await bulk([path, ...MSG, '--yes', '--skip-invalid']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(sent(), ['+447911123401', '+447911123402']);
    assert.match(r.stderr, /line 4: has 1 field where the header has 4/);
  });

  test('the same file split over two workers gives the same requests', async () => {
    const rows = ['Mobile No.,name'];
    for (let i = 0; i < 400; i++) rows.push(i % 7 === 3 ? ',' : ` +4479111${String(i).padStart(5, '0')},N${i}`);
    const path = file(`${rows.join('\n')}\n`);
    const one = await bulk([path, ...MSG, '--yes'], { MSGR_BULK_PARALLEL_MIN_BYTES: 'off' });
    assert.equal(one.code, 0, one.stderr);
    const single = batches();
    server.requests.length = 0;
    const two = await bulk([path, ...MSG, '--yes', '--verbose'], { MSGR_BULK_PARALLEL_MIN_BYTES: '0' });
    assert.equal(two.code, 0, two.stderr);
    assert.match(two.stderr, /preflight: two threads/);
    assert.deepEqual(batches(), single);
    assert.equal(single.flat().length, 400 - 57);

    // A list without a header, split the same way.
    const headerless = file(`${rows.slice(1).join('\n')}\n`);
    server.requests.length = 0;
    const plain = await bulk([headerless, ...MSG, '--no-header', '--yes', '--verbose'], { MSGR_BULK_PARALLEL_MIN_BYTES: '0' });
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stderr, /preflight: two threads/);
    assert.deepEqual(batches(), single);
  });

  test('a CR LF export with rows appended with LF: every row is sent, once, and the report has the file\'s lines, split or not', async () => {
    // Rows appended by `echo … >> list.csv` end in LF: once read as part of the row before them,
    // which sent nobody after it and said nothing about it.
    const rows = ['msisdn,name\r\n'];
    for (let i = 0; i < 300; i++) rows.push(`+4479111${String(i).padStart(5, '0')},N${i}${i < 150 ? '\r\n' : '\n'}`);
    const path = file(rows.join(''));
    const expected = Array.from({ length: 300 }, (_, i) => `+4479111${String(i).padStart(5, '0')}`);
    for (const split of ['off', '0']) {
      server.requests.length = 0;
      const report = join(tempDir(), 'report.csv');
      const r = await bulk([path, ...MSG, '--yes', '--report', report], { MSGR_BULK_PARALLEL_MIN_BYTES: split });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /300 rows, 300 valid/);
      assert.deepEqual(sent().sort(), expected);
      const lines = readFileSync(report, 'utf8').trim().split('\n').slice(1);
      assert.equal(lines.length, 300);
      // Line 152 is the first row that ends in LF alone; 301 the last.
      assert.match(lines[150] ?? '', /^152,\+447911100150,accepted,/);
      assert.match(lines[299] ?? '', /^301,\+447911100299,accepted,/);
    }
  });

  test("an export with Excel's 'sep=;' first line: ; is the delimiter, the line is no row, and lines keep their numbers, split or not", async () => {
    const rows = ['\ufeffsep=;', 'Mobile;First Name'];
    for (let i = 0; i < 300; i++) rows.push(i === 250 ? '12;Bob' : `+4479111${String(i).padStart(5, '0')};N${i}`);
    const path = file(`${rows.join('\r\n')}\r\n`);
    let single: string[][] = [];
    for (const min of ['off', '0']) {
      server.requests.length = 0;
      const r = await bulk([path, ...MSG, '--skip-invalid', '--yes', '--verbose'], { MSGR_BULK_PARALLEL_MIN_BYTES: min });
      assert.equal(r.code, 0, r.stderr);
      if (min === '0') assert.match(r.stderr, /preflight: two threads/);
      // The header is line 2, the first row line 3: row 250 is line 253.
      assert.match(r.stderr, /line 253: "12" is a national number/);
      assert.doesNotMatch(r.stderr, /sep=/);
      const got = batches();
      assert.equal(got.flat().length, 299);
      if (min === 'off') single = got;
      else assert.deepEqual(got, single);
    }
    server.requests.length = 0;
    const personal = await bulk([path, '--from', 'Acme', '--text', 'Hi {{First Name}}', '--skip-invalid', '--yes']);
    assert.equal(personal.code, 0, personal.stderr);
    assert.match(personal.stderr, /line 253: "12" is a national number/);
    assert.equal(texts().length, 299);
    assert.ok(texts().every((t) => typeof t === 'string' && /^Hi N\d+$/.test(t)), 'each row its own name');
    const typo = await bulk([path, '--from', 'Acme', '--text', 'Hi {{Frist Name}}', '--yes']);
    assert.equal(typo.code, 2, typo.stderr);
    assert.match(typo.stderr, /did you mean \{\{First Name\}\}\?/);
  });

  test('--no-header reads a list whose first line is a number; without it the hint says so', async () => {
    const path = file('+447911123401\n+447911123402\n');
    const r = await bulk([path, ...MSG, '--yes']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--no-header/);
    assert.equal(server.requests.length, 0);
    const ok = await bulk([path, ...MSG, '--no-header', '--yes']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(sent(), ['+447911123401', '+447911123402']);
    // After an Excel 'sep=;' line the recipient-like header is line 2: the hint names no "first line".
    const sep = await bulk([file('sep=;\r\n+447911123401;Ann\r\n'), ...MSG, '--yes']);
    assert.equal(sep.code, 2, sep.stderr);
    assert.match(sep.stderr, /Its header line \("\+447911123401", "Ann"\) looks like a recipient, not a header: add --no-header/);
  });

  test('a run without a header resumes as it started: the first line is still a recipient, sent once', async () => {
    const path = file('+447911123401,Ann\n+447911123402,Bob\n+447911123403,Cy\n');
    const e = env();
    // Batches of one: the second is refused with a 503 (not sent), so the run stops with it left.
    server.script({ status: 202, body: { id: 'm1' } }, { status: 503, body: { error: 'busy' } });
    server.fallback = { status: 202, body: { id: 'm' } };
    const first = await runInProcess(['send-bulk', path, ...MSG, '--no-header', '--batch-size', '1', '--concurrency', '1', '--yes'], { env: e });
    assert.equal(first.code, 7, first.stderr);
    assert.deepEqual(sent(), ['+447911123401', '+447911123402', '+447911123403']);
    server.requests.length = 0;
    const again = await runInProcess(['send-bulk', path, '--resume', '--yes'], { env: e });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /2 before this resume/);
    assert.deepEqual(sent(), ['+447911123402']);
  });

  test('numbers in scientific notation get a hint to format the column as Text; causes are grouped, printed once', async () => {
    const rows = ['Mobile', '+447911123401'];
    for (let i = 0; i < 40; i++) rows.push('4.47911E+11');
    rows.push('447911123499');
    const r = await bulk([file(`${rows.join('\n')}\n`), ...MSG, '--yes']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /40 rows: numbers in scientific notation/);
    assert.match(r.stderr, /format the number column as Text/);
    assert.match(r.stderr, /1 row: international numbers without their \+/);
    assert.equal(r.stderr.split('line 3:').length - 1, 1, 'each problem is printed once');
    assert.ok(r.stderr.split('\n').length < 25, `40 problems of one cause do not print 40 lines:\n${r.stderr}`);
    assert.match(r.stderr, /--skip-invalid to send the 1 other recipient/);
    assert.equal(server.requests.length, 0);
    assertClean(r);
  });

  test('spreadsheet error values where numbers should be (+44 7911 123456 typed into Excel: #NULL!) are named as such, with how to type numbers as text', async () => {
    const r = await bulk([file('\ufeffPhone;Name\r\n#NULL!;Ann\r\n#NAME?;Bob\r\n+447911123401;Cy\r\n'), ...MSG, '--yes', '--json']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /2 rows: spreadsheet error values \(#NULL!, #NAME\?\) where numbers should be \(column Phone\)\n\s+line 2: "#NULL!" is a spreadsheet's error value, not a number: the cell held a formula\n\s+line 3: "#NAME\?"/);
    assert.match(r.stderr, /read numbers typed with a leading \+ as formulas .*format the number column as Text/);
    assert.doesNotMatch(r.stderr, /characters that are not digits/);
    const doc = JSON.parse(r.stdout) as { causes: Array<{ cause: string; count: number; lines: number[] }> };
    assert.deepEqual(doc.causes.map((c) => [c.cause, c.count, c.lines]), [['formula', 2, [2, 3]]]);
    assert.equal(server.requests.length, 0);
    assertClean(r);
  });

  test('when every row is invalid the hint does not offer --skip-invalid', async () => {
    const r = await bulk([file('phone\n4.47911E+11\n07911123456\n'), ...MSG, '--yes']);
    assert.equal(r.code, 2, r.stderr);
    assert.doesNotMatch(r.stderr, /--skip-invalid/);
    assert.equal(server.requests.length, 0);
  });

  test('--encoding latin1 reads a CSV as Windows-1252, as --text-encoding latin1 reads a text file: O\u2019Brien and \u20ac, not C1 controls', async () => {
    // A file with a quote anywhere goes through csv-parse, one without through the line splitter.
    const plain = file(Buffer.from('phone,name\r\n+447911123401,O\x92Brien \x80\r\n', 'latin1'));
    const quoted = file(Buffer.from('phone,name\r\n+447911123402,"Caf\xe9 \x93x\x94"\r\n', 'latin1'));
    for (const [path, want] of [
      [plain, 'Hi O\u2019Brien \u20ac'],
      [quoted, 'Hi Caf\u00e9 \u201cx\u201d'],
    ] as const) {
      server.requests.length = 0;
      const r = await bulk([path, '--from', 'Acme', '--text', 'Hi {{name}}', '--encoding', 'latin1']);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(texts(), [want]);
    }
  });

  test('--encoding latin1 on a file that is UTF-8 (an export that changed) is refused, naming the word it would garble; nothing is sent', async () => {
    const utf8 = file('phone,name\n+447911123401,Ann\n+447911123402,Jos\u00e9\n');
    const r = await bulk([utf8, '--from', 'Acme', '--text', 'Hi {{name}}', '--encoding', 'latin1']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--encoding latin1 was given, but the file is UTF-8 text: line 3 has "Jos\u00e9", which latin1 would send as "Jos\u00c3\u00a9"; nothing was sent/);
    assert.match(r.stderr, /hint: Leave out --encoding latin1/);
    assert.equal(server.requests.length, 0);
    // A Windows-1252 German text whose "ß“" happens to be a valid UTF-8 pair is still read as one.
    const german = file(Buffer.from('phone,name\n+447911123401,\x84Gro\xdf\x93 M\xfcller\n', 'latin1'));
    const ok = await bulk([german, '--from', 'Acme', '--text', 'Hi {{name}}', '--encoding', 'latin1']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(texts(), ['Hi \u201eGro\u00df\u201c M\u00fcller']);
  });

  test('Excel for Mac\'s "CSV (Macintosh)" (CR line ends, Mac Roman) is refused with the advice to save it as CSV UTF-8, not to read it as latin1', async () => {
    // "Renée" in Mac Roman: é is 0x8E, which latin1 (Windows-1252) reads as Ž.
    const mac = file(Buffer.from('Mobile,First name\r+447911123401,Ren\x8ee\r', 'latin1'));
    const r = await bulk([mac, '--from', 'Acme', '--text', 'Hi {{first name}}', '--yes']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /not valid UTF-8 \(column First name\)\n {4}line 2: is not valid UTF-8 text/);
    assert.match(r.stderr, /"CSV \(Macintosh\)".*Mac Roman.*save it as "CSV UTF-8 \(Comma delimited\)"/s);
    assert.doesNotMatch(r.stderr, /give --encoding latin1/);
    assert.equal(server.requests.length, 0);
    // A Windows file (CR LF) still gets the latin1 advice.
    const win = await bulk([file(Buffer.from('Mobile,First name\r\n+447911123401,Ren\xe9e\r\n', 'latin1')), '--from', 'Acme', '--text', 'Hi {{first name}}', '--yes']);
    assert.equal(win.code, 2, win.stderr);
    assert.match(win.stderr, /give --encoding latin1/);
  });

  test('a Latin-1 header is refused with the --encoding hint, not read as a column named with U+FFFD; nothing is sent', async () => {
    const path = file(Buffer.from('Phone Number;Pr\xe9nom\r\n+447911123401;Jose\r\n', 'latin1'));
    for (const text of ['Hello', 'Salut {{Pr\u00e9nom}}']) {
      const r = await bulk([path, '--from', 'Acme', '--text', text]);
      assertClean(r);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /in\.csv: the header is not valid UTF-8 text/);
      assert.match(r.stderr, /--encoding latin1/);
      assert.doesNotMatch(r.stderr, /\uFFFD/);
    }
    assert.deepEqual(sent(), []);
    const ok = await bulk([path, '--from', 'Acme', '--text', 'Salut {{Pr\u00e9nom}}', '--encoding', 'latin1']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(texts(), ['Salut Jose']);
  });
});
