// A state or journal folder that cannot be made is an environment error before anything is sent
// (exit 2 naming it), never "a bug in msgr". Run in-process (test/support/in-process.ts); the
// read-only and full-disk cases need a tmpfs mount and are e2e (send-bulk-campaign).
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cleanEnv, tempDir, type RunResult } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { type ReceivedRequest, type ScriptedResponse, startTestServer, type TestServer } from '../../../support/test-server.js';

const KEY = 'test-key-1234';
const MSG = ['--from', 'Acme', '--text', 'Hello there'];

function env(baseUrl: string, configDir: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: configDir, MSGR_API_KEY: KEY, MSGR_BASE_URL: baseUrl, MSGR_ACCOUNT_REFERENCE: 'ACME01', ...extra });
}

function numbers(n: number, start = 0): string[] {
  return Array.from({ length: n }, (_, i) => `+4479111${String(start + i).padStart(5, '0')}`);
}

function writeCsv(path: string, list: string[]): string {
  writeFileSync(path, `msisdn,name\n${list.map((m, i) => `${m},N${i}`).join('\n')}\n`);
  return path;
}

function bulk(args: string[], e: Record<string, string>): Promise<RunResult> {
  return runInProcess(['send-bulk', ...args], { env: e, timeoutMs: 60_000 });
}

/** Every number each server accepted (answered 2xx), in order. */
const acceptedBy = new WeakMap<TestServer, string[]>();

function resetServer(server: TestServer): void {
  server.requests.length = 0;
  acceptedBy.set(server, []);
}

/** Accepts every request with one id per recipient: `id-<number>`. */
function acceptWithIds(server: TestServer): (r: ReceivedRequest) => ScriptedResponse {
  return (r) => {
    const recipients = (r.json as { recipients?: Array<{ msisdn: string }> } | undefined)?.recipients ?? [];
    const log = acceptedBy.get(server) ?? [];
    acceptedBy.set(server, log);
    log.push(...recipients.map((x) => x.msisdn));
    return { status: 202, body: { messages: recipients.map((x) => ({ msisdn: x.msisdn, id: `id-${x.msisdn}` })) } };
  };
}

function assertNoBug(r: RunResult): void {
  assert.doesNotMatch(r.stderr, /internal error|bug in msgr/);
  assert.doesNotMatch(r.stderr, /\n\s+at .+:\d+:\d+/, 'stack trace without --verbose');
}

describe('a state folder that cannot be written is an environment error, before anything is sent', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    server.answer = acceptWithIds(server);
  });
  after(async () => {
    await server.close();
  });

  test('a state folder that vanished (a link to a removed or unmounted folder): exit 2 naming it', async () => {
    resetServer(server);
    const dir = tempDir();
    const gone = join(dir, 'external-drive');
    mkdirSync(gone);
    symlinkSync(gone, join(dir, 'state'));
    rmSync(gone, { recursive: true });
    const file = writeCsv(join(dir, 'c.csv'), numbers(5));
    const r = await bulk([file, ...MSG], env(server.url, join(dir, 'state')));
    assert.equal(r.code, 2, r.stderr);
    assertNoBug(r);
    assert.match(r.stderr, /cannot create the folder \S*state \(a link to a folder that is gone: removed or unmounted\); nothing was sent/);
    assert.match(r.stderr, /Mount or restore the folder/);
    assert.equal(server.requests.length, 0);
  });

  test('a journal folder that is a file is named, with what to do', async () => {
    resetServer(server);
    const dir = tempDir();
    writeFileSync(join(dir, 'journals'), 'not a folder');
    const file = writeCsv(join(dir, 'c.csv'), numbers(5));
    const r = await bulk([file, ...MSG, '--journal', join(dir, 'journals', 'j.jsonl')], env(server.url, join(dir, 'state')));
    assert.equal(r.code, 2, r.stderr);
    assertNoBug(r);
    assert.match(r.stderr, /cannot create the folder \S*journals \(a file of that name is in the way\); nothing was sent/);
    assert.equal(server.requests.length, 0);
  });
});
