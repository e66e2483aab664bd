// One run per journal (issue: "A lock stops two runs on the same journal (overlapping cron
// jobs), and names the other process"). The lock is a file created with O_EXCL holding the
// owner's pid, host and start time; a lock whose process is gone (kill -9, power cut) is stale
// and taken over.
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { UsageError } from '../errors.js';

export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly startedAt: string;
  readonly command: string;
}

export interface Lock {
  readonly path: string;
  release(): void;
}

export function acquireLock(path: string, command: string, now: Date = new Date()): Lock {
  const me: LockOwner = { pid: process.pid, host: hostname(), startedAt: now.toISOString(), command };
  for (let attempt = 0; attempt < 3; attempt++) {
    // The lock appears with its owner already in it (written aside, then hard-linked into
    // place), so another run can never find it empty, take it for stale, and run beside us.
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(me)}\n`, { mode: 0o600 });
    try {
      linkSync(tmp, path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = readOwner(path);
      if (owner !== undefined && isAlive(owner)) {
        throw new UsageError(
          `another msgr is already running this bulk job: pid ${owner.pid} on ${owner.host}, started ${owner.startedAt}${owner.command !== '' ? ` (${owner.command})` : ''}`,
          {
            hint:
              owner.host === me.host
                ? `Wait for it to finish (or stop it: kill ${owner.pid}); then run again with --resume. Lock file: ${path}`
                : `It runs on another host; if it is surely not running, delete ${path}.`,
          },
        );
      }
      // A dead owner's lock (or one left unreadable by a crash of an older msgr): take it over.
      try {
        unlinkSync(path);
      } catch {
        // gone already
      }
      continue;
    } finally {
      try {
        unlinkSync(tmp);
      } catch {
        // nothing to clean
      }
    }
    let released = false;
    return {
      path,
      release: () => {
        if (released) return;
        released = true;
        // Only our own lock: a stale-lock takeover by another run must not be undone.
        const current = readOwner(path);
        if (current !== undefined && current.pid === me.pid && current.host === me.host) {
          try {
            unlinkSync(path);
          } catch {
            // Already gone.
          }
        }
      },
    };
  }
  throw new UsageError(`cannot take the lock ${path}: another process keeps creating it`);
}

export function readOwner(path: string): LockOwner | undefined {
  try {
    const data = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockOwner>;
    if (typeof data.pid !== 'number' || typeof data.host !== 'string') return undefined;
    return { pid: data.pid, host: data.host, startedAt: String(data.startedAt ?? '?'), command: String(data.command ?? '') };
  } catch {
    return undefined;
  }
}

function isAlive(owner: LockOwner): boolean {
  // A process on another host cannot be checked: assume it runs.
  if (owner.host !== hostname()) return true;
  if (owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
