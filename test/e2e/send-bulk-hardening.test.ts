// Inputs a user trial fed send-bulk by mistake or from a spreadsheet: cells that are formulas
// (echoed into the --report, which a spreadsheet opens), an Excel workbook instead of its CSV
// export, a pipe from `<(command)`, and a UTF-16 "Unicode text" export whose column names hold
// commas. The built CLI against a server on 127.0.0.1 that records every request, so "nothing
// was sent" is counted at the server.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
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
