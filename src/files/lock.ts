// The one lock file msgr uses: around the profile store's read-modify-write (two processes
// writing at once lose updates: docs/dependencies.md, "conf 15") and around a bulk run's journal
// (one run per journal: docs/files.md, "Nothing lost, nothing sent twice").
//
// The lock file appears with its owner already in it (written aside, then hard-linked into
// place), so nobody ever finds it empty, takes it for stale and runs beside its owner. Its holder
// touches it every HEARTBEAT_MS (its mtime is the heartbeat) for as long as it holds it. A lock
// whose owner is a dead process on this host (kill -9, power cut) is stale; so is one from another
// host, whose process cannot be checked from here, once its heartbeat is older than
// HEARTBEAT_STALE_MS (the host died or lost the shared folder: docs/unattended.md: "Locks:
// an overlap, another host, a stopped run"); so is one older than `staleMs` when the caller gives one (the store
// is changed in milliseconds, a bulk run takes hours). A live process on this host whose heartbeat
// stopped (suspended with Ctrl-Z) still holds its lock: the caller is told its heartbeat's age
// (LockOwner.heartbeatAgeMs) and says so. Two processes may find the same stale lock at once; if both simply deleted it, the
// slower could delete the fresh lock the faster one took meanwhile, so a stale lock is removed
// under a second, short-lived lock and checked again inside it.
import { existsSync, linkSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { UsageError } from '../errors.js';

export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly startedAt: string;
  readonly command: string;
  /** How long ago its holder last touched the lock (ms): past HEARTBEAT_STALE_MS, it is stopped or gone. */
  readonly heartbeatAgeMs?: number;
  /** When its process started, as the system counts it (Linux: /proc/PID/stat), when known. */
  readonly procStart?: string;
}

/** How often a holder touches its lock. */
export const HEARTBEAT_MS = 30_000;
/**
 * A lock untouched this long is left behind (another host's) or its process is stopped (this
 * host's): twenty heartbeats, room for a busy machine and clocks a few minutes apart.
 */
export const HEARTBEAT_STALE_MS = 10 * 60_000;

/** A stale lock of another host this process took over: whose it was, and how old its heartbeat. */
export interface TakenOver {
  readonly owner: LockOwner;
  readonly heartbeatAgeMs: number;
}

/** What the lock needs from the process (the Context has it; tests fake it). */
export interface LockProcess {
  readonly pid: number;
  readonly now: () => Date;
  /**
   * Whether the process `pid` lives; with `procStart`, whether it is still the process that
   * started then (a pid is reused within seconds where pid_max is 32,768 and processes come and go).
   */
  readonly isProcessAlive: (pid: number, procStart?: string) => boolean;
  /** This process's start, as the system counts it (written into its locks), when known. */
  readonly procStart?: string | undefined;
}

export interface Lock {
  readonly path: string;
  /** Another host's stale lock this one replaced, for the caller to say. */
  readonly tookOver: TakenOver | undefined;
  release(): void;
}

export interface WaitOptions {
  /** Give up after this long (ms). */
  readonly timeoutMs: number;
  /** A lock older than this is stale whoever holds it (ms). */
  readonly staleMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** A lock file that cannot be read yet is being written; one older than this was left by a crash. */
const UNREADABLE_STALE_MS = 2000;

/** The tokens of the locks this process holds now: our own pid in a lock file is one of these, or stale. */
const heldHere = new Set<string>();

/** Takes the lock, or tells who holds it. Errors other than "it exists" are thrown as they are. */
export function tryLock(path: string, command: string, proc: LockProcess, staleMs?: number): Lock | { readonly heldBy: LockOwner | undefined } {
  const token = randomHex(8);
  const me = { pid: proc.pid, host: hostname(), startedAt: proc.now().toISOString(), command, token, ...(proc.procStart !== undefined ? { procStart: proc.procStart } : {}) };
  let tookOver: TakenOver | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (createWith(path, `${JSON.stringify(me)}\n`, proc.pid)) {
      heldHere.add(token);
      const heartbeat = setInterval(() => {
        // Only our own lock: once another process took it over (we were stopped too long), the
        // heartbeat stops rather than keep that one's lock alive.
        if (!touchIfToken(path, token, proc.now())) clearInterval(heartbeat);
      }, HEARTBEAT_MS);
      heartbeat.unref();
      let released = false;
      return {
        path,
        tookOver,
        release: () => {
          if (released) return;
          released = true;
          clearInterval(heartbeat);
          heldHere.delete(token);
          removeIfToken(path, token);
        },
      };
    }
    if (!isStale(path, proc, staleMs)) return { heldBy: holder(path, proc) };
    const owner = readOwner(path);
    const ageMs = heartbeatAge(path, proc);
    if (breakStale(path, proc, staleMs) && owner !== undefined && owner.host !== hostname() && ageMs !== undefined) tookOver = { owner, heartbeatAgeMs: ageMs };
  }
  return { heldBy: holder(path, proc) };
}

/** Waits for the lock (jittered backoff), up to timeoutMs; then a UsageError naming the file. */
export async function waitForLock(path: string, command: string, proc: LockProcess, options: WaitOptions): Promise<Lock> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const started = proc.now().getTime();
  let delay = 5;
  for (;;) {
    const got = tryLock(path, command, proc, options.staleMs);
    if ('release' in got) return got;
    if (proc.now().getTime() - started >= options.timeoutMs) {
      throw new UsageError(`another msgr process has held ${path} for more than ${Math.round(options.timeoutMs / 1000)} s`, {
        hint: `Wait for it to finish and run the command again. If no msgr is running, remove ${path}.`,
      });
    }
    await sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 100);
  }
}

/** Who holds the lock now, without taking it; undefined when nobody does (no file, or a stale one). */
export function lockHolder(path: string, proc: LockProcess): LockOwner | undefined {
  if (!existsSync(path) || isStale(path, proc, undefined)) return undefined;
  return holder(path, proc) ?? { pid: 0, host: '?', startedAt: '?', command: '' };
}

/** Whether the lock's holder, alive, has stopped touching it (a process suspended with Ctrl-Z). */
export function heartbeatStopped(owner: LockOwner): boolean {
  return owner.heartbeatAgeMs !== undefined && owner.heartbeatAgeMs > HEARTBEAT_STALE_MS;
}

/** The owner, with the age of its heartbeat. */
function holder(path: string, proc: LockProcess): LockOwner | undefined {
  const owner = readOwner(path);
  const ageMs = heartbeatAge(path, proc);
  return owner !== undefined && ageMs !== undefined ? { ...owner, heartbeatAgeMs: ageMs } : owner;
}

function heartbeatAge(path: string, proc: LockProcess): number | undefined {
  try {
    return Math.max(0, proc.now().getTime() - statSync(path).mtimeMs);
  } catch {
    return undefined;
  }
}

export function readOwner(path: string): LockOwner | undefined {
  try {
    const data = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockOwner>;
    if (typeof data.pid !== 'number' || typeof data.host !== 'string') return undefined;
    return { pid: data.pid, host: data.host, startedAt: String(data.startedAt ?? '?'), command: String(data.command ?? ''), ...(typeof data.procStart === 'string' ? { procStart: data.procStart } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * Random hex from Web Crypto, which Node loads on first use: importing node:crypto here would cost
 * every command that reads a profile its load (~6 ms of `send --dry-run` on Node 26;
 * docs/performance.md).
 */
function randomHex(bytes: number): string {
  return Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(bytes))).toString('hex');
}

/** Creates path holding content, atomically; false when it exists already. */
function createWith(path: string, content: string, pid: number): boolean {
  const aside = `${path}.${pid}.${randomHex(4)}.tmp`;
  writeFileSync(aside, content, { mode: 0o600 });
  try {
    linkSync(aside, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    try {
      unlinkSync(aside);
    } catch {
      // Nothing to clean.
    }
  }
}

function readToken(path: string): unknown {
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { token?: unknown }).token;
  } catch {
    return undefined;
  }
}

/** The heartbeat: true while the lock is still ours. */
function touchIfToken(path: string, token: string, now: Date): boolean {
  try {
    if (readToken(path) !== token) return false;
    utimesSync(path, now, now);
    return true;
  } catch {
    return false;
  }
}

function removeIfToken(path: string, token: string): void {
  // Only our own lock: after a stale-lock takeover the file is someone else's.
  try {
    if (readToken(path) === token) unlinkSync(path);
  } catch {
    // Gone already.
  }
}

function isStale(path: string, proc: LockProcess, staleMs: number | undefined): boolean {
  let ageMs: number;
  try {
    ageMs = proc.now().getTime() - statSync(path).mtimeMs;
  } catch {
    return true; // Gone: the next attempt decides.
  }
  if (staleMs !== undefined && ageMs > staleMs) return true;
  const owner = readOwner(path);
  if (owner === undefined) return ageMs > UNREADABLE_STALE_MS;
  // A process on another host cannot be checked from here: it runs while its heartbeat does. Our
  // own pid in the file is us only if we hold that lock now; otherwise an earlier process with
  // our pid left it (pid 1 in a container is reused).
  if (owner.host !== hostname()) return ageMs > HEARTBEAT_STALE_MS;
  if (owner.pid === proc.pid) return !heldHere.has(String(readToken(path)));
  return !proc.isProcessAlive(owner.pid, owner.procStart);
}

/** Removes a stale lock under the breaker lock; true when this process removed it. */
function breakStale(path: string, proc: LockProcess, staleMs: number | undefined): boolean {
  const breaker = `${path}.break`;
  if (!createWith(breaker, `${JSON.stringify({ pid: proc.pid, host: hostname() })}\n`, proc.pid)) {
    // Held for microseconds; one left behind by a crash is removed once it is clearly old.
    try {
      if (proc.now().getTime() - statSync(breaker).mtimeMs > UNREADABLE_STALE_MS) unlinkSync(breaker);
    } catch {
      // Gone already.
    }
    return false;
  }
  try {
    if (!isStale(path, proc, staleMs)) return false;
    unlinkSync(path);
    return true;
  } catch {
    // Removed by its holder meanwhile: the next attempt decides.
    return false;
  } finally {
    try {
      unlinkSync(breaker);
    } catch {
      // Gone already.
    }
  }
}
