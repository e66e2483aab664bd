import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import { HEARTBEAT_MS, HEARTBEAT_STALE_MS, heartbeatStopped, lockHolder, readOwner, tryLock, waitForLock, type LockProcess } from '../../../src/files/lock.js';
import { testProcess } from '../../support/fake-context.js';
import { tempDir } from '../../support/cli.js';

const proc: LockProcess = { pid: testProcess.pid, now: () => new Date(), isProcessAlive: testProcess.isProcessAlive };
const tmp = (): string => tempDir('msgr-lock-');

function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

describe('lock', () => {
  test('a held lock names its live owner; once free it is taken, and released only by its owner', async () => {
    const path = join(tmp(), 'journal.jsonl.lock');
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' });
    try {
      writeFileSync(path, JSON.stringify({ pid: holder.pid, host: hostname(), startedAt: 'now', command: 'msgr send-bulk a.csv' }));
      const got = tryLock(path, 'msgr send-bulk a.csv', proc);
      assert.ok(!('release' in got));
      assert.equal(got.heldBy?.pid, holder.pid);
      assert.equal(got.heldBy?.command, 'msgr send-bulk a.csv');
    } finally {
      holder.kill();
      await new Promise((r) => holder.once('exit', r));
    }
    const lock = tryLock(path, 'again', proc);
    assert.ok('release' in lock);
    assert.equal(readOwner(path)?.command, 'again');
    lock.release();
    assert.equal(existsSync(path), false);
  });

  test('a lock left by a dead process, or by this pid in an earlier life, is taken over', () => {
    for (const pid of [deadPid(), proc.pid]) {
      const path = join(tmp(), 'journal.jsonl.lock');
      writeFileSync(path, JSON.stringify({ pid, host: hostname(), startedAt: 'then', command: 'old' }));
      const lock = tryLock(path, 'new', proc);
      assert.ok('release' in lock, `pid ${pid}`);
      assert.equal(readOwner(path)?.command, 'new');
      lock.release();
    }
  });

  test('release leaves alone a lock someone else took over meanwhile', () => {
    const path = join(tmp(), 'l.lock');
    const lock = tryLock(path, 'mine', proc);
    assert.ok('release' in lock);
    writeFileSync(path, JSON.stringify({ pid: 999_999, host: 'elsewhere', startedAt: 'now', command: 'theirs', token: 'x' }));
    lock.release();
    assert.equal(readOwner(path)?.command, 'theirs');
  });

  test('an owner on another host is assumed alive while its heartbeat is', () => {
    const path = join(tmp(), 'l.lock');
    writeFileSync(path, JSON.stringify({ pid: deadPid(), host: 'other-host', startedAt: 'now', command: 'x' }));
    const beat = new Date(Date.now() - HEARTBEAT_STALE_MS + 60_000);
    utimesSync(path, beat, beat);
    const got = tryLock(path, 'me', proc);
    assert.ok(!('release' in got));
    assert.equal(got.heldBy?.host, 'other-host');
    assert.equal(lockHolder(path, proc)?.host, 'other-host');
  });

  test('another host\'s lock whose heartbeat stopped is taken over, and says whose it was', () => {
    const path = join(tmp(), 'l.lock');
    writeFileSync(path, JSON.stringify({ pid: 4242, host: 'other-host', startedAt: 'then', command: 'x', token: 'abc' }));
    const beat = new Date(Date.now() - HEARTBEAT_STALE_MS - 60_000);
    utimesSync(path, beat, beat);
    assert.equal(lockHolder(path, proc), undefined);
    const lock = tryLock(path, 'me', proc);
    assert.ok('release' in lock);
    assert.equal(lock.tookOver?.owner.pid, 4242);
    assert.equal(lock.tookOver?.owner.host, 'other-host');
    assert.ok(Math.abs((lock.tookOver?.heartbeatAgeMs ?? 0) - (HEARTBEAT_STALE_MS + 60_000)) < 5000);
    assert.equal(readOwner(path)?.command, 'me');
    lock.release();
    // A dead process of this host is no news: nothing to say.
    writeFileSync(path, JSON.stringify({ pid: deadPid(), host: hostname(), startedAt: 'then', command: 'x' }));
    utimesSync(path, beat, beat);
    const again = tryLock(path, 'me', proc);
    assert.ok('release' in again);
    assert.equal(again.tookOver, undefined);
    again.release();
  });

  test('a live process of this host whose heartbeat stopped (Ctrl-Z) keeps its lock; the holder says how long it has been quiet', async () => {
    const path = join(tmp(), 'l.lock');
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' });
    try {
      writeFileSync(path, JSON.stringify({ pid: holder.pid, host: hostname(), startedAt: 'then', command: 'x' }));
      const beat = new Date(Date.now() - 2 * HEARTBEAT_STALE_MS);
      utimesSync(path, beat, beat);
      const got = tryLock(path, 'me', proc);
      assert.ok(!('release' in got));
      assert.equal(got.heldBy?.pid, holder.pid);
      assert.ok(got.heldBy !== undefined && heartbeatStopped(got.heldBy));
      assert.ok((got.heldBy?.heartbeatAgeMs ?? 0) >= 2 * HEARTBEAT_STALE_MS - 5000);
      // Fresh again: running.
      utimesSync(path, new Date(), new Date());
      const holderNow = lockHolder(path, proc);
      assert.ok(holderNow !== undefined && !heartbeatStopped(holderNow));
    } finally {
      holder.kill();
      await new Promise((r) => holder.once('exit', r));
    }
  });

  test('the holder touches its lock every HEARTBEAT_MS, and stops once someone else took it over', (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const path = join(tmp(), 'l.lock');
    let now = new Date('2026-01-01T00:00:00Z');
    const lock = tryLock(path, 'me', { ...proc, now: () => now });
    assert.ok('release' in lock);
    const old = new Date('2025-12-31T00:00:00Z');
    utimesSync(path, old, old);
    now = new Date('2026-01-01T00:00:30Z');
    t.mock.timers.tick(HEARTBEAT_MS);
    assert.equal(statSync(path).mtimeMs, now.getTime());
    // Taken over (this process was stopped too long): that lock is not ours to keep alive.
    writeFileSync(path, JSON.stringify({ pid: 4242, host: 'other-host', startedAt: 'now', command: 'theirs', token: 'x' }));
    utimesSync(path, old, old);
    now = new Date('2026-01-01T00:01:00Z');
    t.mock.timers.tick(HEARTBEAT_MS);
    assert.equal(statSync(path).mtimeMs, old.getTime());
    lock.release();
    assert.equal(readOwner(path)?.command, 'theirs');
  });

  test('waitForLock serialises holders', async () => {
    const path = join(tmp(), 'l.lock');
    const order: string[] = [];
    const hold = async (id: string): Promise<void> => {
      const lock = await waitForLock(path, id, proc, { timeoutMs: 5000 });
      order.push(`${id}+`);
      await new Promise((r) => setTimeout(r, 20));
      order.push(`${id}-`);
      lock.release();
    };
    await Promise.all([hold('a'), hold('b'), hold('c')]);
    assert.equal(order.length, 6);
    for (let i = 0; i < order.length; i += 2) {
      assert.equal(order[i]?.slice(0, 1), order[i + 1]?.slice(0, 1), `interleaved: ${order.join(' ')}`);
    }
  });

  test('with staleMs, an old lock is broken even if its owner looks alive', async () => {
    const path = join(tmp(), 'l.lock');
    writeFileSync(path, JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: 'then', command: 'old' }));
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    const lock = await waitForLock(path, 'new', proc, { timeoutMs: 500, staleMs: 10_000 });
    assert.equal(readOwner(path)?.command, 'new');
    lock.release();
  });

  test('a live lock times out with a hint naming the file, and is left alone', async () => {
    const path = join(tmp(), 'l.lock');
    writeFileSync(path, JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: 'now', command: 'other' }));
    await assert.rejects(waitForLock(path, 'me', proc, { timeoutMs: 150, staleMs: 10_000 }), (e: unknown) => e instanceof UsageError && (e.hint ?? '').includes(path));
    assert.equal(readOwner(path)?.command, 'other');
  });

  test('an unreadable lock is stale only once it is clearly old', () => {
    const path = join(tmp(), 'l.lock');
    writeFileSync(path, '');
    assert.ok(!('release' in tryLock(path, 'me', proc)), 'a lock being written is held');
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    const lock = tryLock(path, 'me', proc);
    assert.ok('release' in lock);
    lock.release();
  });
});

describe('a lock\'s owner, by its start', { skip: process.platform !== 'linux' ? 'the start of a process is read from /proc (Linux)' : false }, () => {
  test('a lock whose pid lives but started later (the pid reused) is taken over; the process that took it keeps it', async () => {
    const { procStartOf } = await import('../../../src/files/processes.js');
    const { isProcessAlive } = await import('../../../src/main.js');
    const me: LockProcess = { pid: process.pid, now: () => new Date(), isProcessAlive, procStart: procStartOf(process.pid) };
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      const pid = child.pid as number;
      const start = procStartOf(pid);
      assert.match(start ?? '', /^\d+$/);
      const path = join(tmp(), 'journal.jsonl.lock');
      // Its own lock: held while it lives.
      writeFileSync(path, `${JSON.stringify({ pid, host: hostname(), startedAt: new Date().toISOString(), command: 'msgr send-bulk', token: 'a', procStart: start })}\n`);
      const held = tryLock(path, 'msgr send-bulk', me);
      assert.ok(!('release' in held), 'the living owner keeps its lock');
      assert.equal(held.heldBy?.pid, pid);
      // A lock of a process that started at another time, whose pid this one has now: stale.
      writeFileSync(path, `${JSON.stringify({ pid, host: hostname(), startedAt: new Date().toISOString(), command: 'msgr send-bulk', token: 'b', procStart: String(Number(start) - 1) })}\n`);
      const taken = tryLock(path, 'msgr send-bulk', me);
      assert.ok('release' in taken, 'a reused pid holds no lock');
      // The lock taken says when its holder started.
      assert.equal(readOwner(path)?.procStart, me.procStart);
      taken.release();
    } finally {
      child.kill('SIGKILL');
    }
  });
});
