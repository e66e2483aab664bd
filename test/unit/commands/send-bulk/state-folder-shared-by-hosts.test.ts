// A bulk run's lock in a state folder shared by several hosts (docs/unattended.md: "A state folder
// shared by several hosts"): a host that died mid-run leaves a lock whose heartbeat stopped, which
// another host's cron line takes over, saying so even under -q; a lock with a live heartbeat is
// that host's run. The other host is its lock file, written by the test: no second process, so
// in-process (test/support/in-process.ts), against a scriptable server on 127.0.0.1; e2e keeps the
// locks of processes on this host (test/e2e/send-bulk-locks.test.ts).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir, type RunResult } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { keyLock, quietFor } from '../../../support/run-lock.js';
import { recipientsOf, type ScriptedResponse, useTestServer } from '../../../support/test-server.js';

const ACCEPT: ScriptedResponse = { status: 202, body: { status: 'accepted', messages: [{ id: 'm-1' }] } };
/** A 401 stops a run at its first answer and leaves it unfinished: a deterministic interruption. */
const REFUSE: ScriptedResponse = { status: 401, body: { title: 'Unauthorized' } };

function env(baseUrl: string, config: string): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: config, MSGR_API_KEY: 'sk_test_locks', MSGR_BASE_URL: baseUrl, MSGR_ACCOUNT_REFERENCE: 'ACME01' });
}

function msgr(args: string[], e: Record<string, string>): Promise<RunResult> {
  return runInProcess(args, { env: e });
}

function numbers(n: number, start: number): string[] {
  return Array.from({ length: n }, (_, i) => `+4479111${String(start + i).padStart(5, '0')}`);
}

function writeList(path: string, list: readonly string[]): string {
  writeFileSync(path, `msisdn\n${list.join('\n')}\n`);
  return path;
}

const server = useTestServer({ reset: (s) => (s.answer = () => ACCEPT) });

describe('a state folder shared by several hosts', () => {
  test('a state folder shared by two cron hosts: a host that died mid-run (its lock hours old) does not leave the day\'s campaign unsent with exit 0 and nothing said under -q', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const file = writeList(join(dir, 'today.csv'), numbers(4, 950));
    const line = ['send-bulk', file, '--once', 'reminders-shared', '--from', 'Clinic', '--text', 'See you tomorrow', '--batch-size', '1', '--concurrency', '1', '--yes', '-q'];
    server.script(ACCEPT, REFUSE);
    assert.equal((await msgr(line, env(server.url, config))).code, 3);
    // What cron host A left when it lost power while sending: its lock, in the shared folder.
    const lock = keyLock(config, 'reminders-shared');
    const startedAt = new Date(Date.now() - 6 * 3600_000);
    writeFileSync(lock, `${JSON.stringify({ pid: 4242, host: 'cronbox-a', startedAt: startedAt.toISOString(), command: 'msgr send-bulk today.csv --once reminders-shared', token: '0123456789abcdef' })}\n`);
    utimesSync(lock, startedAt, startedAt);
    const sent = server.requests.length;
    // Host B's cron line, every 15 minutes.
    const tick = await msgr(line, env(server.url, config));
    const silentlyUnsent = tick.code === 0 && tick.stderr === '' && server.requests.length === sent;
    assert.ok(!silentlyUnsent, `3 of 4 rows unsent, exit ${tick.code}, stderr ${JSON.stringify(tick.stderr)}`);
    // Taken over, said under -q with whose lock it was and how long it had been quiet; the run
    // finished here, and the lock is gone with it.
    assert.equal(tick.code, 0, tick.stderr);
    assert.match(tick.stderr, /^warning: took over this run's lock from msgr pid 4242 on cronbox-a \(started [^)]+\): no heartbeat from it for 6 h/m);
    assert.deepEqual(server.requests.slice(sent).flatMap(recipientsOf).sort(), numbers(4, 950).slice(1));
    assert.equal(existsSync(lock), false);
    const again = await msgr(line, env(server.url, config));
    assert.deepEqual([again.code, again.stderr], [0, '']);
  });

  test('another host\'s lock with a live heartbeat is that host\'s run: "running now", exit 0, nothing sent, the lock left as it was', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const file = writeList(join(dir, 'today.csv'), numbers(3, 960));
    const line = ['send-bulk', file, '--once', 'reminders-alive', '--from', 'Clinic', '--text', 'See you tomorrow', '--batch-size', '1', '--concurrency', '1', '--yes'];
    server.script(ACCEPT, REFUSE);
    assert.equal((await msgr([...line, '-q'], env(server.url, config))).code, 3);
    const lock = keyLock(config, 'reminders-alive');
    // Host A's run, started hours ago, touched its lock 40 s ago.
    const owner = `${JSON.stringify({ pid: 4242, host: 'cronbox-a', startedAt: new Date(Date.now() - 3 * 3600_000).toISOString(), command: 'msgr send-bulk today.csv --once reminders-alive', token: 'fedcba9876543210' })}\n`;
    writeFileSync(lock, owner);
    quietFor(lock, 40_000);
    const sent = server.requests.length;
    const quiet = await msgr([...line, '-q'], env(server.url, config));
    assert.deepEqual([quiet.code, quiet.stderr], [0, '']);
    const said = await msgr(line, env(server.url, config));
    assert.equal(said.code, 0, said.stderr);
    assert.match(said.stderr, /running now: the run under --once reminders-alive is being sent by msgr pid 4242 on cronbox-a/);
    assert.equal(server.requests.length, sent);
    assert.equal(readFileSync(lock, 'utf8'), owner);
  });
});
