// An exclusive lock file around the profile store's read-modify-write. conf writes atomically
// but two processes that read, change and write at once lose one of the changes
// (engineering-notes: conf 15 lost 40-55 % of concurrent updates), so every change to the
// store happens inside this lock and re-reads the file first.
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { UsageError } from '../errors.js';

export interface LockOptions {
  /** Give up after this long (ms). */
  readonly timeoutMs?: number;
  /** A lock older than this is stale whoever holds it (ms): the store is changed in milliseconds. */
  readonly staleMs?: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

interface Holder {
  readonly pid: number;
  readonly host: string;
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs fn while holding the lock file at lockPath; the lock is released even if fn throws. */
export async function withLock<T>(lockPath: string, fn: () => T | Promise<T>, options: LockOptions = {}): Promise<T> {
  const release = await acquireLock(lockPath, options);
  try {
    return await fn();
  } finally {
    release();
  }
}

export async function acquireLock(lockPath: string, options: LockOptions = {}): Promise<() => void> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const staleMs = options.staleMs ?? 10_000;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const started = now();
  const token = `${process.pid} ${hostname()} ${started} ${Math.random().toString(36).slice(2)}\n`;
  let delay = 5;
  for (;;) {
    if (tryCreate(lockPath, token)) {
      return () => releaseLock(lockPath, token);
    }
    if (isStale(lockPath, staleMs, now) && breakStaleLock(lockPath, staleMs, now)) continue;
    if (now() - started >= timeoutMs) {
      throw new UsageError(`another msgr process has held ${lockPath} for more than ${Math.round(timeoutMs / 1000)} s`, {
        hint: `Wait for it to finish and run the command again. If no msgr is running, remove ${lockPath}.`,
      });
    }
    // Jittered backoff: the lock is held for a few milliseconds at a time.
    await sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 100);
  }
}

function tryCreate(lockPath: string, token: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new UsageError(`cannot create the lock file ${lockPath} (${(err as NodeJS.ErrnoException).code ?? String(err)})`, {
      hint: 'Check that the profile folder exists and is writable by you (MSGR_CONFIG_DIR moves it).',
    });
  }
  try {
    writeSync(fd, token);
  } finally {
    closeSync(fd);
  }
  return true;
}

function releaseLock(lockPath: string, token: string): void {
  // Remove only our own lock: if it was broken as stale meanwhile, someone else holds it now.
  try {
    if (readFileSync(lockPath, 'utf8') === token) unlinkSync(lockPath);
  } catch {
    // Already gone.
  }
}

function readHolder(lockPath: string): Holder | undefined {
  try {
    const [pid, host] = readFileSync(lockPath, 'utf8').trim().split(' ');
    const n = Number(pid);
    return Number.isInteger(n) && n > 0 && host !== undefined ? { pid: n, host } : undefined;
  } catch {
    return undefined;
  }
}

/** True when the holder is a dead process on this host, or the lock is older than staleMs. */
export function isStale(lockPath: string, staleMs: number, now: () => number = Date.now): boolean {
  let mtimeMs: number;
  try {
    mtimeMs = statSync(lockPath).mtimeMs;
  } catch {
    return false; // Gone: the next attempt to create it decides.
  }
  if (now() - mtimeMs > staleMs) return true;
  const holder = readHolder(lockPath);
  // A lock being written has no content yet; another host's pid cannot be checked from here.
  if (holder === undefined || holder.host !== hostname()) return false;
  return !isAlive(holder.pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes a stale lock. Two processes may find the same stale lock at once; if both simply
 * deleted it, the slower one could delete the fresh lock the faster one took meanwhile. So the
 * removal happens under a second, short-lived lock, and staleness is checked again inside it.
 */
function breakStaleLock(lockPath: string, staleMs: number, now: () => number): boolean {
  const breaker = `${lockPath}.break`;
  const token = `${process.pid} ${hostname()}\n`;
  if (!tryCreate(breaker, token)) {
    // Held for microseconds; one left behind by a crash is removed once it is clearly old.
    try {
      if (now() - statSync(breaker).mtimeMs > 2000) unlinkSync(breaker);
    } catch {
      // Gone already.
    }
    return false;
  }
  try {
    if (isStale(lockPath, staleMs, now)) unlinkSync(lockPath);
    return true;
  } catch {
    return true; // Removed by its holder meanwhile: try again at once.
  } finally {
    releaseLock(breaker, token);
  }
}
