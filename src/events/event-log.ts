// The events file of `msgr listen`, written with group commit (docs/events.md: "Nothing
// acknowledged is lost"): an event is answered 2xx only once it is on disk (written and
// fdatasync'd), and the events that come in while one flush is under way go to disk together in
// the next, so one fdatasync (2-20 ms on this machine's disk) serves every request that waited
// for it. One listener per file (a lock beside it), so the file's end is always ours to write:
// a write that fails (disk full, read-only) is cut back off, and its events are answered 503.
import { constants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { UsageError } from '../errors.js';
import { tryLock, type Lock, type LockProcess } from '../files/lock.js';
import { ensureDir } from '../files/dirs.js';

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
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
    this.name = 'StoreError';
  }
}

export function storeErrorOf(err: unknown, path: string): StoreError {
  if (err instanceof StoreError) return err;
  const code = (err as NodeJS.ErrnoException).code ?? 'EIO';
  return new StoreError(code, `cannot write ${path}: ${ENVIRONMENT[code] ?? (err as Error).message} (${code})`);
}

export interface OpenedLog {
  readonly log: EventLog;
  /** Bytes of an unfinished last line cut off at open (a write a kill interrupted; never answered). */
  readonly tornBytes: number;
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
  readonly #fh: FileHandle;
  readonly #lock: Lock;
  readonly #sync: boolean;
  #offset: number;
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

  private constructor(path: string, fh: FileHandle, lock: Lock, offset: number, sync: boolean) {
    this.path = path;
    this.#fh = fh;
    this.#lock = lock;
    this.#offset = offset;
    this.#sync = sync;
  }

  /** Opens (creating, 0600) the file for appending, under its lock; a UsageError when it cannot. */
  static async open(path: string, proc: LockProcess, options: OpenOptions): Promise<OpenedLog> {
    ensureDir(dirname(path));
    const got = tryLock(`${path}.lock`, options.command, proc);
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
      let stat: Stats = await fh.stat();
      if (!stat.isFile()) throw new UsageError(`the events file ${path} is not a regular file`, { hint: 'Give --out the path of a file.' });
      const end = await lastLineEnd(fh, stat.size);
      const tornBytes = stat.size - end;
      if (tornBytes > 0) {
        await fh.truncate(end);
        stat = await fh.stat();
      }
      if (options.onExisting !== undefined) await readTail(fh, stat.size, options.onExisting);
      return { log: new EventLog(path, fh, got, stat.size, options.sync ?? true), tornBytes };
    } catch (err) {
      await fh.close();
      got.release();
      throw err;
    }
  }

  /** Bytes in the file (what is on disk and answered for). */
  get size(): number {
    return this.#offset;
  }

  /** Appends whole lines; resolves once they are on disk, rejects (StoreError) when they cannot be. */
  append(lines: string): Promise<void> {
    if (this.#closed) return Promise.reject(new StoreError('ECLOSED', 'the listener is stopping'));
    const bytes = Buffer.byteLength(lines);
    if (this.#pendingBytes + bytes > MAX_PENDING_BYTES) {
      return Promise.reject(new StoreError('EBUSY', `more than ${MAX_PENDING_BYTES >> 20} MiB of events are waiting for the disk`));
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
        if (this.#pending.length > 0) this.#schedule();
      });
    });
  }

  async #flush(): Promise<void> {
    while (this.#pending.length > 0) {
      const buf = Buffer.from(this.#pending.join(''), 'utf8');
      const waiters = this.#waiters;
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#waiters = [];
      try {
        if (this.#cutOff) {
          await this.#fh.truncate(this.#offset);
          this.#cutOff = false;
        }
        let written = 0;
        while (written < buf.length) {
          const { bytesWritten } = await this.#fh.write(buf, written, buf.length - written, this.#offset + written);
          written += bytesWritten;
        }
        if (this.#sync) await this.#fh.datasync();
        this.#offset += buf.length;
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
