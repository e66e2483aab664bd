import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import { readOwner, tryLock, waitForLock, type LockProcess } from '../../../src/files/lock.js';
import { testProcess } from '../../support/fake-context.js';

const proc: LockProcess = { pid: testProcess.pid, now: () => new Date(), isProcessAlive: testProcess.isProcessAlive };
const tmp = (): string => mkdtempSync(join(tmpdir(), 'msgr-lock-'));

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

  test('an owner on another host is assumed alive', () => {
    const path = join(tmp(), 'l.lock');
    writeFileSync(path, JSON.stringify({ pid: deadPid(), host: 'other-host', startedAt: 'now', command: 'x' }));
    const got = tryLock(path, 'me', proc);
    assert.ok(!('release' in got));
    assert.equal(got.heldBy?.host, 'other-host');
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
