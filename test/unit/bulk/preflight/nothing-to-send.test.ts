// A run that would send nothing is an error (exit 2), said plainly: every row invalid, every row
// excluded, a header without rows. Run in-process (test/support/in-process.ts) against a server on
// 127.0.0.1 that records every request.
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

const LIST = file(['msisdn,name', '+447911123401,Ann', '+447911123402,Bob', '+447911123403,Cy'].join('\n') + '\n');

describe('a run that would send nothing is an error', () => {
  test('--skip-invalid with every row invalid: exit 2, said plainly', async () => {
    const r = await bulk([file('msisdn\nhello\n+1 555\n'), ...MSG, '--skip-invalid', '--yes', '--json']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /nothing to send: every one of the 2 rows .* is invalid, excluded or a duplicate \(2 invalid\)/);
    const doc = JSON.parse(r.stdout) as { exitCode: number; causes: unknown };
    assert.equal(doc.exitCode, 2);
    assert.deepEqual(doc.causes, [
      { cause: 'characters', column: 'msisdn', count: 1, lines: [2] },
      { cause: 'impossible', column: 'msisdn', count: 1, lines: [3] },
    ]);
    assert.equal(server.requests.length, 0);
  });

  test('every row excluded: exit 2', async () => {
    const opt = file('+447911123401\n+447911123402\n+447911123403\n', 'opt.txt');
    const r = await bulk([LIST, ...MSG, '--exclude', opt, '--yes']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /nothing to send: .*3 excluded/);
    assert.equal(server.requests.length, 0);
  });

  test('a header without rows: exit 2', async () => {
    const r = await bulk([file('msisdn,name\n'), ...MSG, '--yes']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /has no rows to send to, only its header/);
    assert.equal(server.requests.length, 0);
  });
});
