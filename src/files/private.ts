// Files and folders that hold what others must not read (docs/contract.md: "Security"): API keys,
// listener tokens, events with numbers and reply texts, what the sandbox recorded. msgr makes them
// 0600 (files) and 0700 (folders); one found more open (made by hand, by another tool, by an
// older msgr) is tightened, and the caller says so once.
import { chmodSync, statSync } from 'node:fs';
import { platform } from 'node:os';

export interface Tightened {
  /** `path (was 0644, now 0600)` for each path made private. */
  readonly changed: string[];
  /** `path (mode 0644: EPERM)` for each that could not be. */
  readonly failed: string[];
  /** Sticky folders (such as /tmp) left alone: they are every user's. */
  readonly shared: string[];
}

const octal = (mode: number): string => mode.toString(8).padStart(4, '0');

/** Makes each existing path private; a missing one is passed over. */
export function makePrivate(paths: ReadonlyArray<readonly [path: string, mode: 0o600 | 0o700]>): Tightened {
  const out: Tightened = { changed: [], failed: [], shared: [] };
  if (platform() === 'win32') return out; // POSIX modes mean nothing there.
  for (const [path, want] of paths) {
    let mode: number;
    try {
      mode = statSync(path).mode & 0o1777;
    } catch {
      continue;
    }
    // A sticky folder (/tmp, a CI runner's temp folder) is every user's: made 0700 it would break
    // the machine for them. It is left alone; the files in it are still made private.
    if (want === 0o700 && (mode & 0o1000) !== 0) {
      out.shared.push(path);
      continue;
    }
    if ((mode & 0o077) === 0) continue;
    try {
      chmodSync(path, want);
      out.changed.push(`${path} (was ${octal(mode)}, now ${octal(want)})`);
    } catch (err) {
      out.failed.push(`${path} (mode ${octal(mode)}: ${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
  }
  return out;
}

/** Both results together, for one warning about several files. */
export function together(...all: readonly Tightened[]): Tightened {
  return { changed: all.flatMap((t) => t.changed), failed: all.flatMap((t) => t.failed), shared: all.flatMap((t) => t.shared) };
}

/**
 * The one warning for what was tightened (undefined when nothing was): `what` names the files
 * for people ("the listener's token and events"), `then` what to do if others read them.
 */
export function privateWarning(t: Tightened, what: string, then: string): string | undefined {
  const parts: string[] = [];
  if (t.changed.length > 0) parts.push(`${what} could be read by other users; msgr made ${t.changed.length === 1 ? 'it' : 'them'} private: ${t.changed.join(', ')}. ${then}`);
  if (t.failed.length > 0) parts.push(`${what} can be read by other users and msgr could not change that: ${t.failed.join(', ')}. Fix the owner or mode yourself.`);
  return parts.length > 0 ? parts.join(' ') : undefined;
}
