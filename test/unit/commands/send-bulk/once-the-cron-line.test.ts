// Campaign keys (`send-bulk --once KEY`) as the cron line that runs every 15 minutes meets them:
// the first run sends, the later ones say nothing; other data or another message under the key is
// refused; a day left unfinished is continued by the same line and does not block the next day's.
// In a state folder shared by several hosts (docs/unattended.md: "A state folder shared by several
// hosts"), a host that died mid-run leaves a lock whose heartbeat stopped, which another host's
// line takes over, saying so even under -q; a lock with a live heartbeat is that host's run. The
// other host is its lock file, written by the test. In-process (test/support/in-process.ts),
// against a scriptable server on 127.0.0.1; e2e keeps two processes at one lock (the same line
// fired twice at once: test/e2e/once.test.ts; a run suspended or sending now on this host:
// test/e2e/send-bulk-locks.test.ts).
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { env as bulkEnv, mobileNumbers, writeNumbersCsv } from '../../../support/bulk-inputs.js';
import { tempDir, type RunResult } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { keyLock, quietFor } from '../../../support/run-lock.js';
import { recipientsOf as recipients, type ScriptedResponse, useTestServer } from '../../../support/test-server.js';

const MSG = ['--from', 'Acme', '--text', 'Your appointment is tomorrow'];
const env = (baseUrl: string, config: string, extra: Record<string, string> = {}): Record<string, string> => bulkEnv(baseUrl, extra, config);

function msgr(args: string[], e: Record<string, string>): Promise<RunResult> {
  return runInProcess(args, { env: e });
}

const ACCEPT: ScriptedResponse = { status: 202, body: { status: 'accepted', messages: [{ id: 'm-1' }] } };
const REFUSE: ScriptedResponse = { status: 401, body: { title: 'Unauthorized' } };

describe('send-bulk --once: the cron line', () => {
  const server = useTestServer({ reset: (s) => (s.answer = () => ACCEPT) });

  test('run every 15 minutes: the first run sends, the later ones say nothing (exit 0) whatever path the same data is at; other data or another message under the key is refused, quoting what it was used for', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const list = mobileNumbers(5);
    const file = writeNumbersCsv(join(dir, 'today.csv'), list);
    const line = ['send-bulk', file, '--once', 'reminders-2026-11-28', ...MSG, '--again', '--yes', '-q', '--batch-size', '2'];
    const first = await msgr(line, env(server.url, config));
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stderr, '');
    assert.deepEqual(server.requests.flatMap(recipients).sort(), [...list].sort());
    // The key names the Idempotency-Keys: the same on any host that runs the same line.
    assert.deepEqual(server.requests.map((r) => r.headers['idempotency-key']?.toString().replace(/-[0-9a-f]{16}-/, '-H-')).sort(), ['msgr-once-reminders-2026-11-28-H-0', 'msgr-once-reminders-2026-11-28-H-1', 'msgr-once-reminders-2026-11-28-H-2']);
    for (let tick = 0; tick < 3; tick++) {
      const later = await msgr(line, env(server.url, config));
      assert.equal(later.code, 0, later.stderr);
      assert.equal(later.stderr, '', 'a cron mail');
    }
    const said = await msgr(line.filter((a) => a !== '-q'), env(server.url, config));
    assert.match(said.stderr, /^already done: run \S+ \(--once reminders-2026-11-28\) finished at \S+ \(5 accepted\); nothing was sent$/m);
    const copy = join(dir, 'copy.csv');
    copyFileSync(file, copy);
    const elsewhere = await msgr(['send-bulk', copy, '--once', 'reminders-2026-11-28', '--json', '--concurrency', '2'], env(server.url, config));
    assert.equal(elsewhere.code, 0, elsewhere.stderr);
    assert.deepEqual((JSON.parse(elsewhere.stdout) as { nothingToDo: boolean; once: string }).once, 'reminders-2026-11-28');
    assert.equal(server.requests.length, 3, 'nothing more was sent');

    writeNumbersCsv(copy, mobileNumbers(5, 50));
    const other = await msgr(['send-bulk', copy, '--once', 'reminders-2026-11-28', ...MSG, '--again'], env(server.url, config));
    assert.equal(other.code, 2, other.stderr);
    assert.match(other.stderr, /^error: --once reminders-2026-11-28 was used for run \S+ \(started \S+\): \S+today\.csv, 5 rows, text "Your appointment is tomorrow", from Acme; \S+copy\.csv holds other data \(the same size, 77 bytes, but other bytes\); nothing was sent$/m);
    assert.match(other.stderr, /^hint: A key names one campaign: give this campaign a key of its own \(e\.g\. --once reminders-2026-11-28-2\), or leave --once out\.$/m);
    const text = await msgr(['send-bulk', file, '--once', 'reminders-2026-11-28', '--from', 'Acme', '--text', 'Another text'], env(server.url, config));
    assert.equal(text.code, 2, text.stderr);
    assert.match(text.stderr, /this command sends another message \(body differs\); nothing was sent/);
    // A message that cannot be sent is refused as such, not as another message under the key:
    // the commands that refusal offers would be refused in turn.
    const broken = await msgr(['send-bulk', file, '--once', 'reminders-2026-11-28', '--from', 'Acme', '--text', 'Hi {{first_name'], env(server.url, config));
    assert.equal(broken.code, 2, broken.stderr);
    assert.match(broken.stderr, /^error: --text: the placeholder at "\{\{first_name" has no closing \}\}$/m);
    assert.doesNotMatch(broken.stderr, /another message/);
    // The key is the account's: another account starts its own campaign under the same name.
    const account = await msgr(line, env(server.url, config, { MSGR_ACCOUNT_REFERENCE: 'ACME02' }));
    assert.equal(account.code, 0, account.stderr);
    assert.equal(server.requests.length, 6);
    // The key the hint offers is free and, with --again (these numbers had the key's message), accepted.
    assert.match(text.stderr, /^hint: A key names one campaign: give this campaign a key of its own \(e\.g\. --once reminders-2026-11-28-2 --again\), or leave --once out and add --again\.$/m);
    const offered = await msgr(['send-bulk', file, '--once', 'reminders-2026-11-28-2', '--again', '--from', 'Acme', '--text', 'Another text', '-q'], env(server.url, config));
    assert.equal(offered.code, 0, offered.stderr);
    assert.deepEqual(server.requests.slice(6).flatMap(recipients).sort(), [...list].sort());
    const third = await msgr(['send-bulk', file, '--once', 'reminders-2026-11-28', '--from', 'Acme', '--text', 'A third text'], env(server.url, config));
    assert.match(third.stderr, /\(e\.g\. --once reminders-2026-11-28-3 --again\)/);
  });

  test('an interrupted day: the next day\'s line, with a new export at the same path, is not blocked; the same key continues an unfinished run from the same command line', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const day1 = mobileNumbers(6, 100);
    const file = writeNumbersCsv(join(dir, 'today.csv'), day1);
    const line = (day: string): string[] => ['send-bulk', file, '--once', `reminders-${day}`, ...MSG, '--again', '--yes', '-q', '--batch-size', '2', '--concurrency', '1'];
    server.script(ACCEPT, REFUSE);
    const stopped = await msgr(line('d1'), env(server.url, config));
    assert.equal(stopped.code, 3, stopped.stderr);
    assert.match(stopped.stderr, /Resume with: msgr send-bulk \S+today\.csv --once reminders-d1 --concurrency 1 --yes/);
    const shown = await msgr(['runs', 'show', file], env(server.url, config));
    assert.match(shown.stdout, /^key\s+--once reminders-d1$/m);
    // Later that day the same line finishes the run, with the Idempotency-Keys of its batches.
    const at = server.requests.length;
    const finished = await msgr(line('d1'), env(server.url, config));
    assert.equal(finished.code, 0, finished.stderr);
    assert.deepEqual(server.requests.slice(at).map(recipients), [day1.slice(2, 4), day1.slice(4)]);
    assert.deepEqual(server.requests.slice(at).map((r) => r.headers['idempotency-key']?.toString().replace(/-[0-9a-f]{16}-/, '-H-')), ['msgr-once-reminders-d1-H-1', 'msgr-once-reminders-d1-H-2']);

    // Day 2 left unfinished, then day 3: a new export at the same path under a new key.
    const day2 = [...day1.slice(0, 2), ...mobileNumbers(4, 200)];
    writeNumbersCsv(file, day2);
    server.script(ACCEPT, REFUSE);
    assert.equal((await msgr(line('d2'), env(server.url, config))).code, 3);
    // While it can be continued, it is the file's run: a run without the key is refused, naming the key.
    const plain = await msgr(['send-bulk', file, ...MSG, '--again'], env(server.url, config));
    assert.equal(plain.code, 2, plain.stderr);
    assert.match(plain.stderr, /^hint: Continue it with: msgr send-bulk \S+today\.csv --once reminders-d2 \S* ?.*\(rows already accepted are not sent again\), or abandon it with --once reminders-d2 --restart/m);
    const day3 = [...day2.slice(0, 3), ...mobileNumbers(2, 300)];
    writeNumbersCsv(file, day3);
    let before = server.requests.length;
    const third = await msgr(line('d3'), env(server.url, config));
    assert.equal(third.code, 0, third.stderr);
    assert.equal(third.stderr, '');
    assert.deepEqual(server.requests.slice(before).flatMap(recipients).sort(), [...day3].sort());
    // Without saying what it means, the same day's line would have been refused: day 2 accepted some.
    writeNumbersCsv(file, [...day3, ...mobileNumbers(1, 400)]);
    const unsaid = await msgr(['send-bulk', file, '--once', 'reminders-d4', ...MSG], env(server.url, config));
    assert.equal(unsaid.code, 2, unsaid.stderr);
    assert.match(unsaid.stderr, /this run would message 5 rows whose numbers run \S+ \(finished [^)]+\) and \d earlier runs? already sent to/);
    // --skip-sent: a list that grows, each number messaged once in all.
    before = server.requests.length;
    const grown = await msgr(['send-bulk', file, '--once', 'reminders-d4', ...MSG, '--skip-sent', '-q'], env(server.url, config));
    assert.equal(grown.code, 0, grown.stderr);
    assert.deepEqual(server.requests.slice(before).flatMap(recipients), mobileNumbers(1, 400));
    // Yesterday's key with today's file: refused, and what it offers is accepted.
    const yesterday = await msgr(line('d2'), env(server.url, config));
    assert.equal(yesterday.code, 2, yesterday.stderr);
    assert.match(yesterday.stderr, /--once reminders-d2 was used for run \S+ .*holds other data/);
    assert.match(yesterday.stderr, /abandon it and send this data under the key with --once reminders-d2 --restart \(it leaves out the rows run \S+ accepted, --again or not: a key messages each number once\)/);
    before = server.requests.length;
    const restarted = await msgr([...line('d2'), '--restart'], env(server.url, config));
    assert.equal(restarted.code, 0, restarted.stderr);
    // The key's campaign messages each number once, --again or not: every row of today's file but
    // the two numbers day 2's run accepted (--again is about the earlier keys' runs).
    const accepted = day2.slice(0, 2);
    assert.deepEqual(server.requests.slice(before).flatMap(recipients).sort(), [...day3, ...mobileNumbers(1, 400)].filter((n) => !accepted.includes(n)).sort());
  });
});

describe('a state folder shared by several hosts', () => {
  const server = useTestServer({ reset: (s) => (s.answer = () => ACCEPT) });

  test('a state folder shared by two cron hosts: a host that died mid-run (its lock hours old) does not leave the day\'s campaign unsent with exit 0 and nothing said under -q', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const file = writeNumbersCsv(join(dir, 'today.csv'), mobileNumbers(4, 950));
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
    assert.deepEqual(server.requests.slice(sent).flatMap(recipients).sort(), mobileNumbers(4, 950).slice(1));
    assert.equal(existsSync(lock), false);
    const again = await msgr(line, env(server.url, config));
    assert.deepEqual([again.code, again.stderr], [0, '']);
  });

  test('another host\'s lock with a live heartbeat is that host\'s run: "running now", exit 0, nothing sent, the lock left as it was', async () => {
    const dir = tempDir();
    const config = join(dir, 'state');
    const file = writeNumbersCsv(join(dir, 'today.csv'), mobileNumbers(3, 960));
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
