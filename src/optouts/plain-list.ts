// `msgr listen --optouts FILE`: opt-outs written to a plain list, one E.164 number a line, the
// format `send-bulk --exclude FILE` reads (docs/optouts.md: "A plain list instead"). Changed under
// the same kind of lock as the store; a removal (START, when allowed) rewrites the file aside and
// renames it into place, so a reader never sees half of it.
import { closeSync, fdatasyncSync, fstatSync, ftruncateSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { waitForLock } from '../files/lock.js';
import { OptOutWriteError, type StoreWriter } from './store.js';
import { ensureDir } from '../files/dirs.js';

const LOCK_WAIT_MS = 15_000;
const LOCK_STALE_MS = 60_000;

export class PlainList {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  /** The lines of the file; [] when there is none yet. */
  #lines(): string[] {
    try {
      return readFileSync(this.path, 'utf8').split(/\r?\n/);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw writeError(this.path, err);
    }
  }

  has(number: string): boolean {
    return this.#lines().some((l) => l.trim() === number);
  }

  async add(number: string, writer: StoreWriter): Promise<boolean> {
    return this.#locked(writer, () => {
      const lines = this.#lines();
      if (lines.some((l) => l.trim() === number)) return false;
      const fd = openSync(this.path, 'a+', 0o600);
      try {
        const size = fstatSync(fd).size;
        // A last line without its newline (written by hand, or cut by a crash) keeps its own line.
        const text = lines.length > 0 && size > 0 && lines[lines.length - 1] !== '' ? `\n${number}\n` : `${number}\n`;
        const buf = Buffer.from(text);
        let off = 0;
        try {
          while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
          fdatasyncSync(fd);
        } catch (err) {
          ftruncateSync(fd, size);
          throw err;
        }
      } finally {
        closeSync(fd);
      }
      return true;
    });
  }

  async remove(number: string, writer: StoreWriter): Promise<boolean> {
    return this.#locked(writer, () => {
      const lines = this.#lines();
      const kept = lines.filter((l) => l.trim() !== number);
      if (kept.length === lines.length) return false;
      const aside = `${this.path}.${writer.pid}.new`;
      writeFileSync(aside, kept.join('\n'), { mode: 0o600, flush: true });
      renameSync(aside, this.path);
      return true;
    });
  }

  async #locked<T>(writer: StoreWriter, fn: () => T): Promise<T> {
    try {
      ensureDir(dirname(this.path));
      const lock = await waitForLock(`${this.path}.lock`, writer.command, writer, { timeoutMs: LOCK_WAIT_MS, staleMs: LOCK_STALE_MS });
      try {
        return fn();
      } finally {
        lock.release();
      }
    } catch (err) {
      throw writeError(this.path, err);
    }
  }
}

function writeError(path: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === undefined || err instanceof OptOutWriteError) return err;
  return new OptOutWriteError(path, code, code === 'ENOSPC' ? 'the disk is full' : code === 'EROFS' ? 'the file system is read-only' : code === 'EACCES' ? 'permission denied' : (err as Error).message);
}
