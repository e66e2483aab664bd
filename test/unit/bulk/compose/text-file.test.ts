// --text-file: one message text reader for send and send-bulk, in the encodings the CSV reader
// takes. Run in-process (test/support/in-process.ts) against a server on 127.0.0.1 that records
// every request, so "nothing was sent" is counted at the server.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
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


function bulk(args: string[], extra: Record<string, string | undefined> = {}, input?: string): Promise<RunResult> {
  return runInProcess(['send-bulk', ...args], { env: env(extra), timeoutMs: 30_000, ...(input !== undefined ? { input } : {}) });
}

function texts(): unknown[] {
  return server.requests.map((r) => (r.json as { body?: { text?: unknown } } | undefined)?.body?.text);
}

function assertClean(r: RunResult): void {
  assert.doesNotMatch(r.stderr, /\n\s+at .+:\d+:\d+/, 'stack trace without --verbose');
  assert.doesNotMatch(r.stderr, /internal error/);
}

const LIST = file(['msisdn,name', '+447911123401,Ann', '+447911123402,Bob', '+447911123403,Cy'].join('\n') + '\n');

describe('--text-file: one reader for send and send-bulk', () => {
  const SEND = ['send', '--to', '+447911123401', '--from', 'Acme'];

  test('a UTF-8 BOM is not sent; UTF-16 is read by its BOM', async () => {
    const bom = file(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Your order is ready\n')]), 'text.txt');
    const utf16 = file(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Café ready\r\n', 'utf16le')]), 'text16.txt');
    for (const path of [bom, utf16]) {
      const a = await runInProcess([...SEND, '--text-file', path], { env: env() });
      assert.equal(a.code, 0, a.stderr);
      const b = await bulk([LIST, '--from', 'Acme', '--text-file', path, '--yes']);
      assert.equal(b.code, 0, b.stderr);
    }
    assert.deepEqual(texts(), ['Your order is ready', 'Your order is ready', 'Café ready', 'Café ready']);
  });

  test('Windows-1252 is refused with an encoding hint, and read with --text-encoding latin1', async () => {
    const cp1252 = file(Buffer.from([0x93, 0x48, 0x69, 0x94, 0x20, 0x63, 0x61, 0x66, 0xe9, 0x0a]), 'text.txt');
    for (const args of [SEND, ['send-bulk', LIST, '--from', 'Acme', '--yes']]) {
      const r = await runInProcess([...args, '--text-file', cp1252], { env: env() });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /--text-file: .*text\.txt is not valid UTF-8 text \(line 1\)/);
      assert.match(r.stderr, /--text-encoding latin1/);
      assertClean(r);
    }
    assert.equal(server.requests.length, 0);
    const ok = await runInProcess([...SEND, '--text-file', cp1252, '--text-encoding', 'latin1'], { env: env() });
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(texts(), ['\u201cHi\u201d café']);
  });

  test('--text-file - reads stdin in send-bulk', async () => {
    const r = await bulk([LIST, '--from', 'Acme', '--text-file', '-', '--yes'], {}, 'From stdin\n');
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(texts(), ['From stdin']);
  });

  test('a missing file is worded the same by both commands', async () => {
    const a = await runInProcess([...SEND, '--text-file', 'no-such-text.txt'], { env: env() });
    const b = await bulk([LIST, '--from', 'Acme', '--text-file', 'no-such-text.txt', '--yes']);
    for (const r of [a, b]) {
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /^error: --text-file: cannot read no-such-text\.txt \(no such file\)\nhint: Check the file name and its folder/m);
    }
    // The CSV itself and the opt-out list say what to do too.
    const csv = await bulk(['no-such.csv', '--from', 'Acme', '--text', 'Hi', '--yes']);
    assert.equal(csv.code, 2, csv.stderr);
    assert.match(csv.stderr, /^error: cannot read no-such\.csv \(no such file\)\nhint: Check the file name and its folder/m);
    const optouts = await bulk([LIST, '--from', 'Acme', '--text', 'Hi', '--exclude', 'no-such-optouts.txt', '--yes']);
    assert.equal(optouts.code, 2, optouts.stderr);
    assert.match(optouts.stderr, /^error: --exclude: cannot read no-such-optouts\.txt \(no such file\)\nhint: Check the file name and its folder/m);
    assert.equal(server.requests.length, 0);
  });
});
