// Files a spreadsheet gives instead of a plain CSV: an Excel workbook (named as one, with how to
// export a CSV) and the delimiter of a "Unicode text" or localised export. Run in-process
// (test/support/in-process.ts) against a server on 127.0.0.1 that records every request. A pipe from
// `<(command)` needs bash, a process: it stays e2e (send-bulk-hardening).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir, type RunResult } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { useTestServer } from '../../../support/test-server.js';

const KEY = 'sk_test_hardening_12345678';
const server = useTestServer();

function env(): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: KEY, MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: 'ACME01' });
}

function file(content: string | Buffer, name = 'in.csv'): string {
  const path = join(tempDir('msgr-hardening-'), name);
  writeFileSync(path, content);
  return path;
}

const MSG = ['--from', 'Acme', '--text', 'Hello'];

function bulk(args: string[]): Promise<RunResult> {
  return runInProcess(['send-bulk', ...args], { env: env(), timeoutMs: 30_000 });
}

function assertClean(r: RunResult): void {
  assert.doesNotMatch(r.stderr, /\n\s+at .+:\d+:\d+/, 'stack trace without --verbose');
  assert.doesNotMatch(r.stderr, /internal error/);
}

const LIST = file('phone,name\n+447911123401,Ann\n+447911123402,Bob\n');

const XLSX = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00]), Buffer.from('[Content_Types].xml "quoted" and,commas\n')]);
const XLS = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(64, 0xff)]);

describe('an Excel workbook instead of a CSV file', () => {
  for (const [kind, bytes] of [
    ['.xlsx', XLSX],
    ['.xls', XLS],
  ] as const) {
    test(`a ${kind} workbook is named as one, with how to export a CSV; exit 2, nothing sent`, async () => {
      const book = file(bytes, `customers${kind}`);
      const r = await bulk([book, ...MSG, '--yes']);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, new RegExp(`error: .*customers\\${kind} is an Excel workbook \\(\\${kind}\\), not a CSV file; nothing was sent`));
      assert.match(r.stderr, /hint: In Excel: File > Save As > "CSV UTF-8 \(Comma delimited\)"; in Google Sheets: File > Download > CSV\./);
      assert.doesNotMatch(r.stderr, /quote|Latin-1|--encoding/);
      assert.equal(server.requests.length, 0);
      assertClean(r);

      const ex = await bulk([LIST, ...MSG, '--exclude', file(bytes, `optouts${kind}`), '--yes']);
      assert.equal(ex.code, 2, ex.stderr);
      assert.match(ex.stderr, new RegExp(`error: --exclude: .*optouts\\${kind} is an Excel workbook \\(\\${kind}\\), not a CSV file; nothing was sent`));
      assert.match(ex.stderr, /hint: In Excel: File > Save As/);
      assert.equal(server.requests.length, 0);
      assertClean(ex);
    });
  }
});

describe('the delimiter of a spreadsheet export', () => {
  test('Excel "Unicode text" (UTF-16, tab-separated) with commas in its column names is read with tabs', async () => {
    const text = 'Phone\tLast, First\tCity, Country\r\n+447911123401\tSmith, Ann\tLeeds, UK\r\n';
    const path = file(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]), 'u16comma.txt');
    // A template: the provider fills it in, so the other columns go as variables.
    const r = await bulk([path, '--from', 'Acme', '--template', 'hello', '--yes']);
    assert.equal(r.code, 0, r.stderr);
    const body = server.requests[0]?.json as { recipients: Array<{ msisdn: string; variables?: unknown }> };
    assert.deepEqual(body.recipients, [{ msisdn: '+447911123401', variables: { 'Last, First': 'Smith, Ann', 'City, Country': 'Leeds, UK' } }]);
  });

  test('a header guessed as "," whose names hold ";" names --delimiter \';\' in the hint', async () => {
    const path = file('Phone;Name, First;Town, Region;X, Y\r\n+447911123401;Smith, Ann;Leeds, UK;a, b\r\n');
    const r = await bulk([path, ...MSG, '--yes']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /has no number column/);
    assert.match(r.stderr, /hint: The file is read with "," between columns \(guessed from its header line\), and 3 column names hold ";": "Phone;Name", "First;Town", "Region;X"\. If ";" separates the columns, give --delimiter ';'\./);
    assert.equal(server.requests.length, 0);

    const ok = await bulk([path, ...MSG, '--delimiter', ';', '--yes']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(server.requests.length, 1);
  });
});
