// Where a bulk run keeps its state (journal, lock, spooled stdin, the preflight's plan):
// `<state dir>/runs/<file name>-<hash of its real path>/`, so `--resume` finds the run of a
// file from the file alone, by whichever name (a symlink, `./x.csv`, an absolute path) it is given; `--sandbox` runs under `<state dir>/sandbox/runs/`, so a trial never
// blocks or shadows the real campaign of the same file. The state dir is MSGR_CONFIG_DIR when set
// (tests, containers), else the OS's per-user state folder. Folders are 0700: journals name files
// and hold numbers and message text.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { platform as osPlatform } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { homeFolder } from '../files/home.js';

export function stateDir(env: Readonly<Record<string, string | undefined>>, cwd: string, platform: NodeJS.Platform = osPlatform(), home?: string): string {
  const override = env.MSGR_CONFIG_DIR;
  if (override !== undefined && override !== '') return isAbsolute(override) ? override : resolve(cwd, override);
  // Looked up only when needed: with MSGR_CONFIG_DIR set, a user without a home is no problem.
  const base = (): string => home ?? homeFolder();
  if (platform === 'darwin') return join(base(), 'Library', 'Application Support', 'msgr');
  if (platform === 'win32') return join(nonEmpty(env.LOCALAPPDATA) ?? join(base(), 'AppData', 'Local'), 'msgr');
  return join(nonEmpty(env.XDG_STATE_HOME) ?? join(base(), '.local', 'state'), 'msgr');
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}

/** The folder holding the run folders: real runs', or the sandbox's. */
export function runsRoot(state: string, sandbox = false): string {
  return sandbox ? join(state, 'sandbox', 'runs') : join(state, 'runs');
}

/**
 * The path a run of a file is known by: its real path, symlinks and `..` resolved, so every
 * spelling of one file finds the same run folder, journal and lock. A file that is not there
 * keeps its spelling: reading it fails later, naming it as given. So does a pipe
 * (`<(command)` is /dev/fd/63, whose link names no file: Node's JS realpath returns
 * "/proc/PID/fd/pipe:[…]" for it, realpath(3) refuses it), which the reader then refuses as one.
 */
export function realFile(abs: string): string {
  try {
    return realpathSync.native(abs);
  } catch {
    return abs;
  }
}

/** The run folder of an input file (its real path: realFile). */
export function runDirFor(state: string, absInput: string, sandbox = false): string {
  const slug = basename(absInput).replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 40);
  const hash = createHash('sha256').update(absInput).digest('hex').slice(0, 12);
  return join(runsRoot(state, sandbox), `${slug}-${hash}`);
}

/** A fresh folder for a run that reads stdin. */
export function stdinRunDir(state: string, runId: string, sandbox = false): string {
  return join(runsRoot(state, sandbox), `stdin-${runId}`);
}

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
  // A full disk is named with the space to free by send-bulk itself (commands/send-bulk/run.ts).
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
 * Creates a folder and its missing parents, one level at a time. Not mkdirSync's `recursive`:
 * on a path that cannot exist (under /proc, say) it never returns, at full CPU and deaf to
 * signals. A folder that cannot be made is a bad path given to msgr: exit 2, naming it.
 */
export function ensureDir(dir: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && isDir(dir)) return;
    if (code !== 'ENOENT' || dirname(dir) === dir) throw cannotCreate(dir, err);
  }
  ensureDir(dirname(dir));
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    // EEXIST: made meanwhile by another run.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !isDir(dir)) throw cannotCreate(dir, err);
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
function cannotCreate(dir: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC') return err;
  const vanished = code === 'EEXIST' && isDanglingLink(dir);
  // ENOENT once its parent is there: the parent lets no folder be made in it (/proc) or just went.
  const described = code === 'ENOENT' ? `${dirname(dir)} does not let a folder be made in it, or was just removed` : code !== undefined ? ENVIRONMENT_CODES[code] : undefined;
  const why = vanished ? 'a link to a folder that is gone: removed or unmounted' : code === 'EEXIST' ? 'a file of that name is in the way' : described !== undefined ? `${described}, ${code ?? ''}` : (code ?? 'unknown error');
  return new UsageError(`cannot create the folder ${dir} (${why}); nothing was sent`, {
    cause: err,
    hint: vanished
      ? 'Mount or restore the folder it points to, or point MSGR_CONFIG_DIR (or --journal) elsewhere, then run the same command again.'
      : 'Give a path in a folder you can write to (--journal, or MSGR_CONFIG_DIR for all of msgr\'s state).',
  });
}

function isDanglingLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink() && !isDir(path);
  } catch {
    return false;
  }
}

export function ensureParent(file: string): void {
  ensureDir(dirname(file));
}

/** `20261121T161500Z-3fa9c2d1`: sortable, readable, unique enough for Idempotency-Keys. */
export function newRunId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomBytes(4).toString('hex')}`;
}

/** Batch k's Idempotency-Key: `name` is the run id, or a keyed run's name (--once). */
export function idempotencyKey(name: string, batch: number): string {
  return `msgr-${name}-${batch}`;
}
