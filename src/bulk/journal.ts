// The append-only run journal (issue: "Nothing lost, nothing sent twice"). JSON lines:
//   {"type":"run",...}                   header: run id, input identity, everything that shapes
//                                        the batches, and the message, so --resume rebuilds the
//                                        same batches and bodies from the same file
//   {"type":"send","batch":k,...}        written and fsynced BEFORE batch k's request leaves
//   {"type":"done","batch":k,"outcome"}  after its answer; fsynced with the next "send" or at the
//                                        end (losing it to a power cut only makes k "in doubt")
//   {"type":"stop","reason":...}         how the process ended, for people
// Each record is one write(2) of a whole line, so a kill -9 leaves whole lines; a power cut can
// tear the last one, which reading ignores. A batch with "send" and no "done" is in doubt.
import { closeSync, createReadStream, fdatasync, fdatasyncSync, fsyncSync, fstatSync, openSync, readSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';

export const JOURNAL_VERSION = 1;

export interface InputIdentity {
  /** Absolute path of the file read (for stdin: the spooled copy). */
  readonly path: string;
  readonly stdin: boolean;
  readonly size: number;
  readonly mtimeMs: number;
  /** sha256 of size + first MiB + last MiB: checked before reading. */
  readonly quickHash: string;
  /** sha256 of the whole content, computed by the preflight pass: checked before sending. */
  readonly hash: string;
}

/** Everything that decides which rows go in which batch and what each request says. */
export interface RunShape {
  readonly batchSize: number;
  readonly encoding: string;
  readonly delimiter: string;
  readonly msisdnColumn: string;
  readonly varColumns: readonly string[];
  readonly metaColumns: readonly string[];
  readonly defaultCountry: string | null;
  readonly allowDuplicates: boolean;
  readonly skipInvalid: boolean;
  readonly exclude: { readonly path: string; readonly hash: string } | null;
}

export interface RunHeader {
  readonly type: 'run';
  readonly version: number;
  readonly runId: string;
  readonly createdAt: string;
  readonly msgr: string;
  readonly input: InputIdentity;
  readonly shape: RunShape;
  /** The request without recipients, exactly as sent (validity already absolute). */
  readonly message: Record<string, unknown>;
  readonly totals: { readonly rows: number; readonly toSend: number; readonly requests: number };
}

export type BatchOutcome = 'accepted' | 'rejected' | 'not-sent' | 'in-doubt' | 'auth';

export interface SendRecord {
  readonly type: 'send';
  readonly batch: number;
  readonly first: number;
  readonly count: number;
  readonly key: string;
  readonly at: string;
}

export interface DoneRecord {
  readonly type: 'done';
  readonly batch: number;
  readonly outcome: BatchOutcome;
  readonly status?: number;
  readonly error?: string;
  readonly at: string;
}

export interface StopRecord {
  readonly type: 'stop';
  readonly reason: string;
  readonly at: string;
}

/** Batch states as loaded: one byte per batch. */
export const BatchState = {
  none: 0,
  started: 1,
  accepted: 2,
  rejected: 3,
  notSent: 4,
  inDoubt: 5,
  auth: 6,
} as const;
export type BatchStateCode = (typeof BatchState)[keyof typeof BatchState];

const OUTCOME_STATE: Record<BatchOutcome, BatchStateCode> = {
  accepted: BatchState.accepted,
  rejected: BatchState.rejected,
  'not-sent': BatchState.notSent,
  'in-doubt': BatchState.inDoubt,
  auth: BatchState.auth,
};

export interface LoadedJournal {
  readonly header: RunHeader;
  /** Per batch, the latest state. */
  readonly states: Uint8Array;
  /** Batch → last error text, for the in-doubt list. */
  readonly lastStop: string | undefined;
  /** Lines that could not be read (a torn last write). */
  readonly badLines: number;
}

export class JournalError extends Error {
  override readonly name = 'JournalError';
}

export async function loadJournal(path: string): Promise<LoadedJournal> {
  const rl = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let header: RunHeader | undefined;
  let states = new Uint8Array(0);
  let lastStop: string | undefined;
  let badLines = 0;
  for await (const line of rl) {
    if (line.trim() === '') continue;
    let rec: { type?: unknown; batch?: unknown; outcome?: unknown; reason?: unknown };
    try {
      rec = JSON.parse(line) as typeof rec;
    } catch {
      badLines++;
      continue;
    }
    if (header === undefined) {
      if (rec.type !== 'run') throw new JournalError(`${path} is not a msgr journal (its first line is not a run header)`);
      header = rec as unknown as RunHeader;
      if (header.version !== JOURNAL_VERSION) throw new JournalError(`${path} is a version ${String(header.version)} journal; this msgr reads version ${JOURNAL_VERSION}`);
      states = new Uint8Array(header.totals.requests);
      continue;
    }
    const batch = typeof rec.batch === 'number' ? rec.batch : -1;
    if (rec.type === 'send' && batch >= 0 && batch < states.length) {
      // A "send" after a final outcome (resend of an in-doubt batch) makes it in flight again.
      states[batch] = BatchState.started;
    } else if (rec.type === 'done' && batch >= 0 && batch < states.length) {
      const s = OUTCOME_STATE[rec.outcome as BatchOutcome];
      if (s !== undefined) states[batch] = s;
    } else if (rec.type === 'stop') {
      lastStop = typeof rec.reason === 'string' ? rec.reason : undefined;
    }
  }
  if (header === undefined) throw new JournalError(`${path} is empty`);
  return { header, states, lastStop, badLines };
}

/** Appends records; `send` records are flushed to disk before returning. */
export class Journal {
  readonly path: string;
  #fd: number;
  #dirty = false;

  private constructor(path: string, fd: number) {
    this.path = path;
    this.#fd = fd;
  }

  /**
   * A new journal (replacing any file there) starting with the header, flushed. Written aside
   * and renamed into place, so a crash never leaves a journal without its header.
   */
  static create(path: string, header: RunHeader): Journal {
    const tmp = `${path}.new`;
    const fd = openSync(tmp, 'w', 0o600);
    const j = new Journal(path, fd);
    j.#write(header);
    j.sync();
    renameSync(tmp, path);
    syncDir(dirname(path));
    return j;
  }

  /** Opens for appending; a torn last line is closed with a newline first. */
  static append(path: string): Journal {
    const fd = openSync(path, 'a+', 0o600);
    const size = fstatSync(fd).size;
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) writeSync(fd, '\n');
    }
    return new Journal(path, fd);
  }

  started(rec: Omit<SendRecord, 'type' | 'at'>): void {
    this.#write({ type: 'send', ...rec, at: new Date().toISOString() });
    this.sync();
  }

  /**
   * The same, with the flush off the main thread: resolves once the record is on disk. Flushes
   * overlap requests in flight, and records written while one runs share the next one.
   */
  async startedDurably(rec: Omit<SendRecord, 'type' | 'at'>): Promise<void> {
    this.#write({ type: 'send', ...rec, at: new Date().toISOString() });
    this.#dirty = true;
    await this.#durable();
  }

  #syncing: Promise<void> | undefined;
  #nextSync: Promise<void> | undefined;

  #durable(): Promise<void> {
    if (this.#syncing === undefined) {
      this.#dirty = false;
      const fd = this.#fd;
      this.#syncing = new Promise<void>((resolve, reject) => {
        fdatasync(fd, (err) => {
          this.#syncing = undefined;
          if (err === null) resolve();
          else reject(err);
        });
      });
      return this.#syncing;
    }
    // A flush is running and may have started before this write: the next one covers it.
    this.#nextSync ??= this.#syncing.then(() => {
      this.#nextSync = undefined;
      return this.#durable();
    });
    return this.#nextSync;
  }

  done(rec: Omit<DoneRecord, 'type' | 'at'>): void {
    this.#write({ type: 'done', ...rec, at: new Date().toISOString() });
    this.#dirty = true;
  }

  stop(reason: string): void {
    this.#write({ type: 'stop', reason, at: new Date().toISOString() });
    this.sync();
  }

  sync(): void {
    fdatasyncSync(this.#fd);
    this.#dirty = false;
  }

  close(): void {
    if (this.#fd < 0) return;
    if (this.#dirty) this.sync();
    closeSync(this.#fd);
    this.#fd = -1;
  }

  #write(record: object): void {
    const buf = Buffer.from(`${JSON.stringify(record)}\n`, 'utf8');
    let off = 0;
    while (off < buf.length) off += writeSync(this.#fd, buf, off, buf.length - off);
  }
}

/** Makes a rename durable (POSIX); not possible on Windows, where it is skipped. */
function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Best effort.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
