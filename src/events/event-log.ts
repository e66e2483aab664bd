// The events file of `msgr listen`, written with group commit (docs/events.md: "Nothing
// acknowledged is lost"): an event is answered 2xx only once it is on disk (written and
// fdatasync'd), and the events that come in while one flush is under way go to disk together in
// the next, so one fdatasync (2-20 ms on this machine's disk) serves every request that waited
// for it. One listener per file (a lock beside it), so the file's end is always ours to write:
// a write that fails (disk full, read-only) is cut back off, and its events are answered 503.
//
// An acknowledged event is in the file at the path (docs/events.md: "Rotating the events
// file"): after each flush, before its answers, one stat of the path checks that it still names
// the open file. When it was moved or removed (log rotation), the file at the path is opened (or
// made) and the flush written there too; SIGHUP asks for the same at once (reopen()). A file
// truncated under the listener (logrotate's copytruncate) is written at its new end.
import { constants, fstatSync, statSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { UsageError } from '../errors.js';
import { tryLock, type Lock, type LockProcess } from '../files/lock.js';
import { ensureDir, FOR_LISTENING } from '../files/dirs.js';
import { makePrivate, type Tightened } from '../files/private.js';
import { asRecord } from './saved-event.js';

/** The events of one flush may not wait behind more than this many bytes (then 503, retry soon). */
export const MAX_PENDING_BYTES = 32 * 1024 * 1024;
/** How much of the file's end is read at start to know the events recorded already. */
export const SEED_BYTES = 64 * 1024 * 1024;

const ENVIRONMENT: Readonly<Record<string, string>> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EIO: 'the disk reported an I/O error',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EFBIG: 'the file is too large',
};

/** Events could not be stored: the request is answered 503 (the sender keeps it and retries). */
export class StoreError extends Error {
  readonly code: string;
  /**
   * Why, without any local path: what the 503's body tells the sender (a stranger). The
   * message, which names the file, is for the terminal.
   */
  readonly reason: string;
  constructor(code: string, message: string, reason?: string) {
    super(message);
    this.code = code;
    this.reason = reason ?? 'the event could not be stored';
    this.name = 'StoreError';
  }
}

export function storeErrorOf(err: unknown, path: string): StoreError {
  if (err instanceof StoreError) return err;
  const code = (err as NodeJS.ErrnoException).code ?? 'EIO';
  const why = ENVIRONMENT[code];
  return new StoreError(code, `cannot write ${path}: ${why ?? (err as Error).message} (${code})`, why !== undefined ? `${why} (${code})` : undefined);
}

export interface OpenedLog {
  readonly log: EventLog;
  /** Bytes of a last line without its newline that is no record, moved at open to `tornAside` (0 when none). */
  readonly tornBytes: number;
  /** What that line was: JSON but not a record of msgr's (a hand edit, another program), or unfinished (a write a kill interrupted; never answered). */
  readonly tornKind?: 'json' | 'unfinished';
  /** Where its bytes were kept: `<events file>.torn`. */
  readonly tornAside?: string;
  /** A whole record was the last line without its newline: the newline was added, the record kept. */
  readonly mended: boolean;
  /** The file's mode, made 0600 when others could read it. */
  readonly tightened: Tightened;
}

/**
 * Why the events file was opened again: its path named another file or none after a flush
 * (`moved`, `removed`), the file was cut short under the listener (`truncated`), or SIGHUP
 * (`signal`; `same`: the path still named the open file).
 */
export interface Reopened {
  readonly why: 'moved' | 'removed' | 'truncated' | 'signal';
  readonly same?: boolean;
  /** The inode of the file opened (moved, removed, signal with same false): a follower opens the path and checks it. */
  readonly ino?: number;
}

export interface OpenOptions {
  /** The command named in the lock file (`msgr listen`). */
  readonly command: string;
  /** fdatasync after each write (default true; false only for measuring what it costs). */
  readonly sync?: boolean;
  /** Each line of the file's last SEED_BYTES, before anything is appended. */
  readonly onExisting?: (line: string) => void;
}

export class EventLog {
  readonly path: string;
  #fh: FileHandle;
  /** The open file, as `stat` names it: the path must still name it when a flush is acknowledged. */
  #dev: number;
  #ino: number;
  readonly #lock: Lock;
  readonly #sync: boolean;
  #offset: number;
  /** The open file's last byte is not a newline (a file made by someone else): one is written first. */
  #newlineFirst = false;
  /** SIGHUP: check the path and reopen at the next turn, with or without events to write. */
  #reopenAsked = false;
  #pending: string[] = [];
  #pendingBytes = 0;
  #waiters: Array<{ resolve: () => void; reject: (e: StoreError) => void }> = [];
  #flushing: Promise<void> | undefined;
  #scheduled = false;
  /** A failed write could not be cut off yet: the next flush tries again first. */
  #cutOff = false;
  #closed = false;
  /** Called after each flush that put events on disk. */
  onFlushed: (() => void) | undefined;
  /** Called when the file at the path was opened again (rotation, SIGHUP). */
  onReopened: ((r: Reopened) => void) | undefined;

  private constructor(path: string, fh: FileHandle, st: Stats, lock: Lock, offset: number, sync: boolean) {
    this.path = path;
    this.#fh = fh;
    this.#dev = st.dev;
    this.#ino = st.ino;
    this.#lock = lock;
    this.#offset = offset;
    this.#sync = sync;
  }

  /** Opens (creating, 0600) the file for appending, under its lock; a UsageError when it cannot. */
  static async open(path: string, proc: LockProcess, options: OpenOptions): Promise<OpenedLog> {
    const folder = dirname(path);
    const cannotWrite = (err: unknown): UsageError => {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      // The machine's doing, not msgr's (docs/contract.md: "Exit codes"): exit 2, naming the folder.
      return new UsageError(`cannot write the events file in ${folder}: ${ENVIRONMENT[code] ?? code} (${code})`, {
        hint: 'Give --out a file in a folder you can write to, or point MSGR_CONFIG_DIR at one.',
        cause: err,
      });
    };
    try {
      ensureDir(folder, FOR_LISTENING);
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw cannotWrite(err);
    }
    let got: ReturnType<typeof tryLock>;
    try {
      got = tryLock(`${path}.lock`, options.command, proc);
    } catch (err) {
      throw cannotWrite(err);
    }
    if (!('release' in got)) {
      const who = got.heldBy !== undefined ? ` (pid ${got.heldBy.pid}${got.heldBy.host !== '' ? ` on ${got.heldBy.host}` : ''}, since ${got.heldBy.startedAt})` : '';
      throw new UsageError(`another msgr listen is writing ${path}${who}`, {
        hint: `Stop it first, or give this one a file of its own with --out. If none is running, remove ${path}.lock.`,
      });
    }
    let fh: FileHandle;
    try {
      // Not O_APPEND: the listener owns the file's end, and cuts a failed write back off.
      fh = await open(path, constants.O_RDWR | constants.O_CREAT, 0o600);
    } catch (err) {
      got.release();
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw new UsageError(`cannot open the events file ${path}: ${ENVIRONMENT[code] ?? code} (${code})`, {
        hint: 'Give --out a file in a folder you can write to, or point MSGR_CONFIG_DIR at one.',
      });
    }
    try {
      let st: Stats = await fh.stat();
      if (!st.isFile()) throw new UsageError(`the events file ${path} is not a regular file`, { hint: 'Give --out the path of a file.' });
      // Numbers and reply texts: 0600 (made so by the open when new; an older file is tightened).
      const tightened = makePrivate([[path, 0o600]]);
      const end = await lastLineEnd(fh, st.size);
      let tornBytes = st.size - end;
      let mended = false;
      const kind = tornBytes > 0 ? await lastLineKind(fh, end, tornBytes) : undefined;
      let torn: Pick<OpenedLog, 'tornKind' | 'tornAside'> = {};
      if (kind === 'record') {
        // A whole record without its newline (a hand edit, another program): kept, its newline
        // added. Never answered by this msgr either way; its sender's retry is then a duplicate.
        await writeAll(fh, Buffer.from('\n'), st.size);
        mended = true;
        tornBytes = 0;
        st = await fh.stat();
      } else if (kind !== undefined) {
        // Anything else is not an event of msgr's: the file is made whole lines of records again,
        // and the bytes are kept beside it, as they were, for a person to look at.
        const aside = eventsTornPath(path);
        await keepAside(fh, end, tornBytes, aside);
        await fh.truncate(end);
        st = await fh.stat();
        torn = { tornKind: kind, tornAside: aside };
      }
      if (options.onExisting !== undefined) await readTail(fh, st.size, options.onExisting);
      return { log: new EventLog(path, fh, st, got, st.size, options.sync ?? true), tornBytes, ...torn, mended, tightened };
    } catch (err) {
      await fh.close();
      got.release();
      throw err;
    }
  }

  /** SIGHUP: the path is checked now, and the file it names opened if it is not the open one. */
  reopen(): void {
    if (this.#closed) return;
    this.#reopenAsked = true;
    this.#schedule();
  }

  /** Bytes in the file (what is on disk and answered for). */
  get size(): number {
    return this.#offset;
  }

  /** Appends whole lines; resolves once they are on disk, rejects (StoreError) when they cannot be. */
  append(lines: string): Promise<void> {
    if (this.#closed) return Promise.reject(new StoreError('ECLOSED', 'the listener is stopping', 'the listener is stopping'));
    const bytes = Buffer.byteLength(lines);
    if (this.#pendingBytes + bytes > MAX_PENDING_BYTES) {
      const why = `more than ${MAX_PENDING_BYTES >> 20} MiB of events are waiting for the disk`;
      return Promise.reject(new StoreError('EBUSY', why, why));
    }
    this.#pending.push(lines);
    this.#pendingBytes += bytes;
    const done = new Promise<void>((resolve, reject) => this.#waiters.push({ resolve, reject }));
    this.#schedule();
    return done;
  }

  #schedule(): void {
    if (this.#flushing !== undefined || this.#scheduled) return;
    this.#scheduled = true;
    // Requests that arrive in the same turn of the event loop share the first flush too.
    setImmediate(() => {
      this.#scheduled = false;
      this.#flushing = this.#flush().finally(() => {
        this.#flushing = undefined;
        if (this.#pending.length > 0 || this.#reopenAsked) this.#schedule();
      });
    });
  }

  async #flush(): Promise<void> {
    if (this.#reopenAsked) {
      this.#reopenAsked = false;
      try {
        const moved = this.#pathMoved();
        const same = moved === undefined || moved === 'truncated';
        if (!same) await this.#reopen();
        this.onReopened?.({ why: 'signal', same, ...(!same ? { ino: this.#ino } : {}) });
      } catch {
        // Said by the next flush, whose events are then answered 503.
      }
    }
    while (this.#pending.length > 0) {
      const buf = Buffer.from(this.#pending.join(''), 'utf8');
      const waiters = this.#waiters;
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#waiters = [];
      try {
        await this.#writeDurably(buf);
        for (const w of waiters) w.resolve();
        this.onFlushed?.();
      } catch (err) {
        // Part of the lines may be in the file: cut them off, so that no line is half there and
        // none of these events (answered 503) is read as recorded.
        try {
          await this.#fh.truncate(this.#offset);
        } catch {
          this.#cutOff = true;
        }
        const e = storeErrorOf(err, this.path);
        for (const w of waiters) w.reject(e);
      }
    }
  }

  /**
   * Writes `buf` at the end of the open file, on disk, then checks that the path still names
   * that file; when it does not (moved or removed since), writes it again into the file the path
   * names now (made if none). A rotation between two flushes thus leaves each event in the file
   * at the path when it was acknowledged, at worst in the moved one as well.
   */
  async #writeDurably(buf: Buffer): Promise<void> {
    for (let round = 0; ; round++) {
      if (this.#cutOff) {
        await this.#fh.truncate(this.#offset);
        this.#cutOff = false;
      }
      // Cut short under the listener (copytruncate, `> file`): written at the new end, not past
      // it, which would leave a run of zero bytes no reader can parse.
      const size = fstatSync(this.#fh.fd).size;
      if (size < this.#offset) {
        this.#offset = size;
        this.#newlineFirst = size > 0 && !(await endsWithNewline(this.#fh, size));
        this.onReopened?.({ why: 'truncated' });
      }
      const data = this.#newlineFirst ? Buffer.concat([Buffer.from('\n'), buf]) : buf;
      await writeAll(this.#fh, data, this.#offset);
      if (this.#sync) await this.#fh.datasync();
      this.#offset += data.length;
      this.#newlineFirst = false;
      const moved = this.#pathMoved();
      if (moved === undefined) return;
      if (round >= 3) throw new StoreError('ESTALE', `${this.path} keeps being moved, removed or cut short while msgr listen writes it`, 'the events file keeps changing');
      if (moved !== 'truncated') {
        await this.#reopen();
        this.onReopened?.({ why: moved, ino: this.#ino });
      }
    }
  }

  /**
   * What became of the open file's path: undefined while it names the file, whole. Synchronous,
   * as the fstat before each write: 16-40 µs for both on this machine under load, against
   * 120-150 µs through the thread pool, beside a write and fdatasync of 0.3 ms (median) to 13-50
   * ms (p99): the per-flush cost of "an acknowledged event is in the file at the path".
   */
  #pathMoved(): 'moved' | 'removed' | 'truncated' | undefined {
    const st = statSync(this.path, { throwIfNoEntry: false });
    // Nothing at the path: the open file still has a name when it was moved away (mv, logrotate's
    // default), none when it was removed.
    if (st === undefined) return fstatSync(this.#fh.fd).nlink > 0 ? 'moved' : 'removed';
    if (st.ino !== this.#ino || st.dev !== this.#dev) return 'moved';
    return st.size < this.#offset ? 'truncated' : undefined;
  }

  /** Opens the file the path names now (made, 0600, when there is none; its folder too) and writes at its end. */
  async #reopen(): Promise<void> {
    let fh: FileHandle;
    try {
      fh = await open(this.path, constants.O_RDWR | constants.O_CREAT, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      // The folder went too (rm -r): made again.
      ensureDir(dirname(this.path), FOR_LISTENING);
      fh = await open(this.path, constants.O_RDWR | constants.O_CREAT, 0o600);
    }
    let st: Stats;
    try {
      st = await fh.stat();
      if (!st.isFile()) throw new StoreError('EISDIR', `${this.path} is no longer a regular file`, 'the events file is not a file');
      this.#newlineFirst = st.size > 0 && !(await endsWithNewline(fh, st.size));
    } catch (err) {
      await fh.close().catch(() => undefined);
      throw err;
    }
    const old = this.#fh;
    this.#fh = fh;
    this.#dev = st.dev;
    this.#ino = st.ino;
    this.#offset = st.size;
    this.#cutOff = false;
    await old.close().catch(() => undefined);
  }

  /** Waits for the events given so far, then closes the file and releases its lock. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    while (this.#flushing !== undefined || this.#scheduled || this.#pending.length > 0) {
      await (this.#flushing ?? new Promise((r) => setImmediate(r)));
    }
    try {
      await this.#fh.close();
    } finally {
      this.#lock.release();
    }
  }
}

/** The offset just after the file's last newline (0 when it has none): what is whole lines. */
async function lastLineEnd(fh: FileHandle, size: number): Promise<number> {
  const buf = Buffer.alloc(64 * 1024);
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - buf.length);
    const { bytesRead } = await fh.read(buf, 0, end - start, start);
    const nl = buf.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (nl !== -1) return start + nl + 1;
    end = start;
  }
  return 0;
}

/** Calls `onLine` for each whole line of the last SEED_BYTES of the file, oldest first. */
async function readTail(fh: FileHandle, size: number, onLine: (line: string) => void): Promise<void> {
  let pos = Math.max(0, size - SEED_BYTES);
  const buf = Buffer.alloc(1024 * 1024);
  // A character cut in two by the buffer's end is joined again.
  const decoder = new StringDecoder('utf8');
  let carry = '';
  // Starting mid-file: the first, partial line is skipped.
  let skipFirst = pos > 0;
  while (pos < size) {
    const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, size - pos), pos);
    if (bytesRead === 0) break;
    pos += bytesRead;
    const text = carry + decoder.write(buf.subarray(0, bytesRead));
    const lines = text.split('\n');
    carry = lines.pop() ?? '';
    for (const line of lines) {
      if (skipFirst) {
        skipFirst = false;
        continue;
      }
      if (line !== '') onLine(line);
    }
  }
}

async function writeAll(fh: FileHandle, buf: Buffer, at: number): Promise<void> {
  let written = 0;
  while (written < buf.length) {
    const { bytesWritten } = await fh.write(buf, written, buf.length - written, at + written);
    written += bytesWritten;
  }
}

async function endsWithNewline(fh: FileHandle, size: number): Promise<boolean> {
  const one = Buffer.alloc(1);
  const { bytesRead } = await fh.read(one, 0, 1, size - 1);
  return bytesRead === 1 && one[0] === 0x0a;
}

/**
 * What the `length` bytes at `from` (a last line without its newline) are: a whole record, JSON
 * that is not one (a hand edit, another program's line), or neither (a write cut short).
 */
async function lastLineKind(fh: FileHandle, from: number, length: number): Promise<'record' | 'json' | 'unfinished'> {
  // A record is at most what one flush may hold; anything longer is not one of ours.
  if (length > MAX_PENDING_BYTES) return 'unfinished';
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, from);
  try {
    return asRecord(JSON.parse(buf.toString('utf8', 0, bytesRead))) !== undefined ? 'record' : 'json';
  } catch {
    return 'unfinished';
  }
}

/** Where the bytes of a last line that is no record are kept: beside the events file. */
export function eventsTornPath(path: string): string {
  return `${path}.torn`;
}

/**
 * Appends the `length` bytes at `from` to `aside` (0600), and a newline, on disk before the
 * events file is cut: they are never lost. A folder the listener can write the events file in
 * takes them; if not, the events file is left as it is and the listener does not start.
 */
async function keepAside(fh: FileHandle, from: number, length: number, aside: string): Promise<void> {
  let out: FileHandle;
  try {
    out = await open(aside, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND, 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new UsageError(`cannot keep the last line of the events file aside in ${aside}: ${ENVIRONMENT[code] ?? code} (${code}); the events file was left as it was`, {
      hint: 'Make the folder writable, or give --out another file.',
    });
  }
  try {
    const buf = Buffer.alloc(Math.min(length, 1024 * 1024));
    for (let at = 0; at < length; ) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, length - at), from + at);
      if (bytesRead === 0) break;
      await out.write(buf.subarray(0, bytesRead));
      at += bytesRead;
    }
    await out.write('\n');
    await out.datasync();
  } finally {
    await out.close();
  }
}
