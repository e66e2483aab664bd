// Opt-out lists (--exclude) are honoured to the last entry, and an entry msgr cannot read stops
// the run naming its file and line. Run in-process (test/support/in-process.ts) against a server on
// 127.0.0.1 that records every request, so "nothing was sent" is counted at the server.
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

const MSG = ['--from', 'Acme', '--text', 'Hello'];

function bulk(args: string[], extra: Record<string, string | undefined> = {}, input?: string): Promise<RunResult> {
  return runInProcess(['send-bulk', ...args], { env: env(extra), timeoutMs: 30_000, ...(input !== undefined ? { input } : {}) });
}

/** Every recipient the server received, in order. */
function sent(): string[] {
  return server.requests.flatMap((r) => ((r.json as { recipients?: Array<{ msisdn: string }> } | undefined)?.recipients ?? []).map((x) => x.msisdn));
}

function assertClean(r: RunResult): void {
  assert.doesNotMatch(r.stderr, /\n\s+at .+:\d+:\d+/, 'stack trace without --verbose');
  assert.doesNotMatch(r.stderr, /internal error/);
}

const LIST = file(['msisdn,name', '+447911123401,Ann', '+447911123402,Bob', '+447911123403,Cy'].join('\n') + '\n');

describe('opt-out lists are strict', () => {
  test('an entry written without its + stops the run with the file, the line and the number it would be; nothing is sent', async () => {
    const opt = file('+447911123402\n447911123401\n', 'opt.txt');
    const r = await bulk([LIST, ...MSG, '--exclude', opt, '--yes']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--exclude: .*opt\.txt: 1 entry is not a phone number; nothing was sent/);
    assert.match(r.stderr, /line 2: "447911123401" has no \+/);
    assert.match(r.stderr, /\+447911123401/);
    assert.equal(server.requests.length, 0);
    assertClean(r);
  });

  test('with --default-country DE, a German mobile without its + is neither a recipient nor an opt-out of the German landline it would also be', async () => {
    const list = file('phone,name\n+4915123456789,Jonas\n015123456780,Lena\n');
    const opt = file('Mobile\n4915123456789\n', 'opt.csv');
    const r = await bulk([list, ...MSG, '--exclude', opt, '--default-country', 'DE', '--yes']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /line 2: "4915123456789" has no \+: it is \+4915123456789 if international, not the DE number \+494915123456789/);
    assert.equal(server.requests.length, 0);

    const rows = file('phone,name\n4915123456789,Jonas\n015123456780,Lena\n');
    const skipped = await bulk([rows, ...MSG, '--default-country', 'DE', '--skip-invalid', '--yes']);
    assert.equal(skipped.code, 0, skipped.stderr);
    assert.deepEqual(sent(), ['+4915123456780']);
    assertClean(skipped);
  });

  test('a national entry needs --default-country; with it, it is excluded like the recipient it names', async () => {
    const opt = file('07911 123401\n', 'opt.txt');
    const r = await bulk([LIST, ...MSG, '--exclude', opt, '--yes']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /line 1: "07911 123401" is a national number/);
    assert.equal(server.requests.length, 0);

    const ok = await bulk([LIST, ...MSG, '--exclude', opt, '--default-country', 'GB', '--yes', '--json']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(sent(), ['+447911123402', '+447911123403']);
    assert.equal((JSON.parse(ok.stdout) as { excluded: number }).excluded, 1);
    assert.match(ok.stderr, /excluded: 1 row on the opt-out list .*opt\.txt \(1 number\)/);
  });

  test('a plain list whose first line is a number has no header: its first entry is excluded too', async () => {
    const opt = file('+447911123401\n+447911123403\n', 'opt.txt');
    const r = await bulk([LIST, ...MSG, '--exclude', opt, '--yes']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(sent(), ['+447911123402']);
    assert.match(r.stderr, /2 excluded/);
  });

  test('a first line with digits that is not a number is an unreadable entry, not a header that drops it; a word is a header', async () => {
    for (const first of ['+447911123401 # opted out 2024', '+44791112340l']) {
      const opt = file(`${first}\n+447911123403\n`, 'opt.txt');
      const r = await bulk([LIST, ...MSG, '--exclude', opt, '--yes']);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /--exclude: .*opt\.txt: 1 entry is not a phone number; nothing was sent:\n {2}line 1: /);
      assert.equal(server.requests.length, 0);
    }
    const named = file('Opted out\n+447911123401\n', 'opt.txt');
    const ok = await bulk([LIST, ...MSG, '--exclude', named, '--yes']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(sent(), ['+447911123402', '+447911123403']);
  });

  test('a first line that is a spreadsheet\'s error value (#NULL!: an opt-out Excel garbled) is a refused entry, not a header that drops it', async () => {
    for (const content of ['#NULL!\n', '#NULL!\r\n+447911123403\r\n']) {
      const opt = file(content, 'opt.txt');
      const r = await bulk([LIST, ...MSG, '--exclude', opt, '--yes']);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /--exclude: .*opt\.txt: 1 entry is not a phone number; nothing was sent:\n {2}line 1: "#NULL!" is a spreadsheet's error value/);
      assert.match(r.stderr, /format the number column as Text/);
      assert.equal(server.requests.length, 0);
    }
  });

  test('an unreadable entry further down names its line; a CSV list takes --exclude-column', async () => {
    const bad = file('+447911123401\n+447911123403\nn/a\n', 'opt.txt');
    const r = await bulk([LIST, ...MSG, '--exclude', bad, '--yes']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /line 3: "n\/a" has characters that are not digits/);
    assert.equal(server.requests.length, 0);

    const csvList = file('Customer,Opted out on,Contact\nAnn,2026-01-02,+447911123401\n', 'opt.csv');
    const ok = await bulk([LIST, ...MSG, '--exclude', csvList, '--exclude-column', 'contact', '--yes']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(sent(), ['+447911123402', '+447911123403']);
  });
});
