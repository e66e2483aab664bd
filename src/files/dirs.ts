// Folders msgr makes for its state (run folders, the state folder), and the errors of a machine
// that will not let them be written: a full disk, a read-only or vanished folder, a path that
// cannot exist. Such a failure is the environment's (exit 2, nothing sent), never "a bug in msgr".
import { existsSync, lstatSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from '../errors.js';

const ENVIRONMENT_CODES: Readonly<Record<string, string>> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOENT: 'the folder vanished',
  ENOTDIR: 'part of the path is a file, not a folder',
  // mkdir -p where a file stands in the way.
  EEXIST: 'a file stands where a folder is needed',
};

/**
 * A failure to write the run state that is the machine's, not msgr's: the error (exit 2, nothing
 * sent) names the path and what to do; anything else is returned unchanged.
 */
export function stateWriteError(err: unknown, fallbackPath: string): unknown {
  const e = err as NodeJS.ErrnoException;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  // A full disk is named with the space to free by send-bulk itself (bulk/campaign-door.ts, RunContext.failed).
  if (code === 'ENOSPC' || code === 'EDQUOT') return err;
  const why = code !== undefined ? ENVIRONMENT_CODES[code] : undefined;
  if (why === undefined) return err;
  const path = typeof e.path === 'string' ? e.path : fallbackPath;
  // A file msgr was creating (a lock's temporary file, a new journal) is named by its folder:
  // that is what to fix, and the file itself does not exist.
  const where = existsSync(path) ? `at ${path}` : `in ${dirname(path)}`;
  return new UsageError(`cannot write the run state ${where}: ${why} (${code}); nothing was sent`, {
    hint:
      code === 'ENOENT'
        ? 'The state folder was removed or unmounted while msgr ran: make sure it stays (or point MSGR_CONFIG_DIR or --journal elsewhere), then run the same command again.'
        : 'msgr keeps each run\'s journal there: make the folder writable, or point MSGR_CONFIG_DIR (or --journal) at a writable folder, then run the same command again.',
    cause: err,
  });
}

/**
 * What a folder is for, as its error says it: what did not happen, and where else to point msgr.
 * The default is a sender's: its runs and stores.
 */
export interface FolderUse {
  /** Said after the failure: "nothing was sent". */
  readonly outcome: string;
  /** The hint when the folder cannot be made. */
  readonly elsewhere: string;
}

const FOR_SENDING: FolderUse = { outcome: 'nothing was sent', elsewhere: "Give a path in a folder you can write to (--journal, or MSGR_CONFIG_DIR for all of msgr's state)." };

/** `msgr listen`'s folders: its events file, its token, its opt-out store. */
export const FOR_LISTENING: FolderUse = { outcome: 'the listener did not start', elsewhere: 'Give --out a file in a folder you can write to (and --token, or MSGR_LISTEN_TOKEN, a token), or point MSGR_CONFIG_DIR at a writable folder.' };

/**
 * Creates a folder and its missing parents, one level at a time. Not mkdirSync's `recursive`:
 * on a path that cannot exist (under /proc, say) it never returns, at full CPU and deaf to
 * signals. A folder that cannot be made is a bad path given to msgr: exit 2, naming it.
 */
export function ensureDir(dir: string, use: FolderUse = FOR_SENDING): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && isDir(dir)) return;
    if (code !== 'ENOENT' || dirname(dir) === dir) throw cannotCreate(dir, err, use);
  }
  ensureDir(dirname(dir), use);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    // EEXIST: made meanwhile by another run.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !isDir(dir)) throw cannotCreate(dir, err, use);
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A full disk stays itself: send-bulk names the folder and the space to free. */
function cannotCreate(dir: string, err: unknown, use: FolderUse): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC') return err;
  const vanished = code === 'EEXIST' && isDanglingLink(dir);
  // ENOENT once its parent is there: the parent lets no folder be made in it (/proc) or just went.
  const described = code === 'ENOENT' ? `${dirname(dir)} does not let a folder be made in it, or was just removed` : code !== undefined ? ENVIRONMENT_CODES[code] : undefined;
  const why = vanished ? 'a link to a folder that is gone: removed or unmounted' : code === 'EEXIST' ? 'a file of that name is in the way' : described !== undefined ? `${described}, ${code ?? ''}` : (code ?? 'unknown error');
  return new UsageError(`cannot create the folder ${dir} (${why}); ${use.outcome}`, {
    cause: err,
    hint: vanished ? `Mount or restore the folder it points to, then run the same command again. Or: ${use.elsewhere}` : use.elsewhere,
  });
}

function isDanglingLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink() && !isDir(path);
  } catch {
    return false;
  }
}

export function ensureParent(file: string, use: FolderUse = FOR_SENDING): void {
  ensureDir(dirname(file), use);
}
