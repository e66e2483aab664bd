// The opt-out store (docs/optouts.md): the numbers that must not be messaged, one store per
// account, kept as an append-only log of changes (`<state>/optouts/<account>.jsonl`, 0600), so
// that every opt-out keeps its time, source and evidence, and a later question ("was this number
// opted out when that run sent to it?") has its answer. Writers take the store's lock, read what
// others appended since, append, and fdatasync before they return: two processes adding at once
// lose nothing, and an opt-out that `msgr listen` acknowledged survives a crash.
//
// Front doors: `openOptOuts(state, account)` for a sender that must leave the numbers out (the
// account's store and the `_all` one, whose numbers apply to every account), and
// `OptOutStore.open(path)` to change one store.
import { chmodSync, closeSync, fdatasyncSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from '../errors.js';
import { waitForLock, type LockProcess } from '../files/lock.js';
import { accountFile, NO_ACCOUNT } from '../files/account-files.js';
import { ensureDir } from '../files/dirs.js';
import { shellQuote as shellWord } from '../output/shell.js';

export const STORE_VERSION = 1;

/** `opt-out`: the person asked; `undeliverable`: a receipt said the number cannot be reached. */
export type OptOutReason = 'opt-out' | 'undeliverable';

/** What shows the opt-out is real: the reply, the receipt, who typed it in. */
export interface Evidence {
  /** The reply's text (STOP), as it came. */
  readonly text?: string;
  /** The id of the event in the events file (`ev_…`). */
  readonly event?: string;
  readonly messageId?: string;
  /** A receipt's status and error code. */
  readonly status?: string;
  readonly code?: string;
  /** Free text given with --note. */
  readonly note?: string;
  /** The file an import read. */
  readonly file?: string;
}

/** One line of the store. */
export interface OptOutRecord {
  readonly v: number;
  readonly op: 'add' | 'remove';
  readonly number: string;
  readonly at: string;
  readonly reason?: OptOutReason;
  /** Where it came from: `reply`, `receipt`, `manual`, `import`, or what --source said. */
  readonly source: string;
  readonly evidence?: Evidence;
  /** The command that wrote it. */
  readonly by?: string;
}

/** A number opted out now. */
export interface OptOutEntry {
  readonly number: string;
  /** When it was opted out (the first add since it was last removed). */
  readonly since: string;
  readonly reason: OptOutReason;
  readonly source: string;
  readonly evidence?: Evidence;
}

export interface OptOutChange {
  readonly number: string;
  readonly reason?: OptOutReason;
  readonly source: string;
  readonly evidence?: Evidence;
}

/** What a writer needs: the lock's process facts, the clock, and its own name for the record. */
export interface StoreWriter extends LockProcess {
  readonly command: string;
}

const E164 = /^\+[1-9]\d{6,14}$/;
const LOCK_WAIT_MS = 15_000;
/** Writers hold the lock for milliseconds: one older than this was left by a crash. */
const LOCK_STALE_MS = 60_000;

export function optOutStorePath(state: string, account: string | undefined): string {
  return accountFile(state, 'optouts', account, 'jsonl');
}

export class OptOutStore {
  readonly path: string;
  readonly #current = new Map<string, OptOutEntry>();
  /** Every change per number, oldest first, for optedOutAt(). */
  readonly #history = new Map<string, OptOutRecord[]>();
  #offset = 0;
  #skipped = 0;

  private constructor(path: string) {
    this.path = path;
  }

  /** Reads the store; a missing file is an empty store. One that cannot be read is a UsageError. */
  static open(path: string): OptOutStore {
    const store = new OptOutStore(path);
    store.refresh();
    return store;
  }

  get size(): number {
    return this.#current.size;
  }

  /** Lines that were not a change (hand edits, a torn last line): left alone, counted. */
  get skipped(): number {
    return this.#skipped;
  }

  has(number: string): boolean {
    return this.#current.has(number);
  }

  get(number: string): OptOutEntry | undefined {
    return this.#current.get(number);
  }

  /** The numbers opted out now, oldest opt-out first. */
  entries(): OptOutEntry[] {
    return [...this.#current.values()].sort((a, b) => a.since.localeCompare(b.since) || a.number.localeCompare(b.number));
  }

  numbers(): string[] {
    return this.entries().map((e) => e.number);
  }

  /** The opt-out in force for `number` at `at`, from the history (for "messaged after opting out"). */
  optedOutAt(number: string, at: Date): OptOutEntry | undefined {
    const iso = at.toISOString();
    let entry: OptOutEntry | undefined;
    for (const r of this.#history.get(number) ?? []) {
      if (r.at > iso) break;
      entry = apply(entry, r);
    }
    return entry;
  }

  /** Reads what was appended since the last read (by this process or another). */
  refresh(): void {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw unreadable(this.path, err);
    }
    try {
      const size = fstatSync(fd).size;
      if (size < this.#offset) {
        // Replaced by a shorter file (restored from a backup): read it whole again.
        this.#current.clear();
        this.#history.clear();
        this.#offset = 0;
        this.#skipped = 0;
      }
      if (size === this.#offset) return;
      const buf = Buffer.alloc(size - this.#offset);
      let got = 0;
      while (got < buf.length) {
        const n = readSync(fd, buf, got, buf.length - got, this.#offset + got);
        if (n === 0) break;
        got += n;
      }
      const end = buf.subarray(0, got).lastIndexOf(0x0a) + 1;
      for (const line of buf.toString('utf8', 0, end).split('\n')) if (line !== '') this.#take(line);
      this.#offset += end;
    } catch (err) {
      throw unreadable(this.path, err);
    } finally {
      closeSync(fd);
    }
  }

  #take(line: string): void {
    let r: OptOutRecord;
    try {
      r = JSON.parse(line) as OptOutRecord;
    } catch {
      this.#skipped++;
      return;
    }
    if ((r.op !== 'add' && r.op !== 'remove') || typeof r.number !== 'string' || !E164.test(r.number) || typeof r.at !== 'string') {
      this.#skipped++;
      return;
    }
    const next = apply(this.#current.get(r.number), r);
    if (next === undefined) this.#current.delete(r.number);
    else this.#current.set(r.number, next);
    let h = this.#history.get(r.number);
    if (h === undefined) this.#history.set(r.number, (h = []));
    h.push(r);
  }

  /** Opts numbers out (E.164 only); a number already out for the same reason is left as it is. */
  async add(changes: readonly OptOutChange[], writer: StoreWriter): Promise<{ added: OptOutEntry[]; already: OptOutEntry[] }> {
    const added: OptOutEntry[] = [];
    const already: OptOutEntry[] = [];
    await this.#write(writer, (at) => {
      let lines = '';
      const seen = new Set<string>();
      for (const c of changes) {
        checkNumber(c.number);
        const reason = c.reason ?? 'opt-out';
        const now = this.#current.get(c.number);
        if ((now !== undefined && now.reason === reason) || seen.has(c.number)) {
          if (now !== undefined) already.push(now);
          continue;
        }
        seen.add(c.number);
        const record: OptOutRecord = { v: STORE_VERSION, op: 'add', number: c.number, at, reason, source: c.source, ...(c.evidence !== undefined ? { evidence: c.evidence } : {}), by: writer.command };
        lines += `${JSON.stringify(record)}\n`;
        added.push(apply(now, record) as OptOutEntry);
      }
      return lines;
    });
    return { added, already };
  }

  /** Takes numbers off the store (they may be messaged again); those not on it are returned as absent. */
  async remove(changes: readonly OptOutChange[], writer: StoreWriter): Promise<{ removed: OptOutEntry[]; absent: string[] }> {
    const removed: OptOutEntry[] = [];
    const absent: string[] = [];
    await this.#write(writer, (at) => {
      let lines = '';
      const seen = new Set<string>();
      for (const c of changes) {
        checkNumber(c.number);
        const now = this.#current.get(c.number);
        if (now === undefined || seen.has(c.number)) {
          if (now === undefined) absent.push(c.number);
          continue;
        }
        seen.add(c.number);
        const record: OptOutRecord = { v: STORE_VERSION, op: 'remove', number: c.number, at, source: c.source, ...(c.evidence !== undefined ? { evidence: c.evidence } : {}), by: writer.command };
        lines += `${JSON.stringify(record)}\n`;
        removed.push(now);
      }
      return lines;
    });
    return { removed, absent };
  }

  /** Under the lock: read what others wrote, make the lines, append them, fdatasync, read them in. */
  async #write(writer: StoreWriter, build: (at: string) => string): Promise<void> {
    try {
      ensureDir(dirname(this.path));
    } catch (err) {
      throw storeWriteError(this.path, err);
    }
    const lock = await waitForLock(`${this.path}.lock`, writer.command, writer, { timeoutMs: LOCK_WAIT_MS, staleMs: LOCK_STALE_MS }).catch((err: unknown) => {
      throw (err as NodeJS.ErrnoException).code !== undefined ? storeWriteError(this.path, err) : err;
    });
    try {
      this.refresh();
      const lines = build(writer.now().toISOString());
      if (lines === '') return;
      let fd: number | undefined;
      try {
        fd = openSync(this.path, 'a+', 0o600);
        const stat = fstatSync(fd);
        // An unfinished last line (a writer killed mid-write) was never acknowledged: cut it off
        // so the new lines start on a line of their own.
        if (stat.size > this.#offset) ftruncateSync(fd, this.#offset);
        if ((stat.mode & 0o077) !== 0) chmodSync(this.path, 0o600);
        const buf = Buffer.from(lines, 'utf8');
        let off = 0;
        while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
        fdatasyncSync(fd);
      } catch (err) {
        // Whatever part of the lines got in is cut off again: a change is in the store whole, or not.
        if (fd !== undefined) {
          try {
            ftruncateSync(fd, this.#offset);
          } catch {
            // The next writer cuts it off (above).
          }
        }
        throw storeWriteError(this.path, err);
      } finally {
        if (fd !== undefined) closeSync(fd);
      }
      this.refresh();
    } finally {
      lock.release();
    }
  }
}

function apply(entry: OptOutEntry | undefined, r: OptOutRecord): OptOutEntry | undefined {
  if (r.op === 'remove') return undefined;
  return {
    number: r.number,
    since: entry?.since ?? r.at,
    reason: r.reason === 'undeliverable' ? 'undeliverable' : 'opt-out',
    source: r.source,
    ...(r.evidence !== undefined ? { evidence: r.evidence } : {}),
  };
}

function checkNumber(number: string): void {
  if (!E164.test(number)) throw new UsageError(`"${number}" is not an international number (E.164: + and 7 to 15 digits)`);
}

/** The store could not be written: the environment's fault, named with the file (exit 2). */
export class OptOutWriteError extends UsageError {
  readonly code: string;
  constructor(path: string, code: string, why: string) {
    super(`cannot write the opt-out store ${path}: ${why} (${code})`, { hint: 'Free space or make the folder writable (or point MSGR_CONFIG_DIR elsewhere), then run the command again; nothing was changed.' });
    this.code = code;
  }
}

const WHY: Readonly<Record<string, string>> = { ENOSPC: 'the disk is full', EDQUOT: 'the disk quota is used up', EROFS: 'the file system is read-only', EACCES: 'permission denied', EPERM: 'permission denied', EIO: 'an I/O error' };

function storeWriteError(path: string, err: unknown): unknown {
  if (err instanceof OptOutWriteError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === undefined) return err;
  return new OptOutWriteError(path, code, WHY[code] ?? (err as Error).message);
}

function unreadable(path: string, err: unknown): UsageError {
  const code = (err as NodeJS.ErrnoException).code ?? 'error';
  return new UsageError(`cannot read the opt-out store ${path} (${code}): its numbers cannot be left out`, {
    hint: 'Make the file readable by the user msgr runs as, then run the command again.',
    cause: err,
  });
}

/** The numbers a sender must leave out: an account's store and the one for every account. */
export interface OptOuts {
  /** The store files read (those that exist or not), for messages. */
  readonly files: readonly string[];
  readonly size: number;
  has(number: string): boolean;
  get(number: string): OptOutEntry | undefined;
  numbers(): string[];
  /** The opt-out in force for `number` at `at` in either store (OptOutStore.optedOutAt). */
  optedOutAt(number: string, at: Date): OptOutEntry | undefined;
  /** The command that takes `number` off the store that has it (the account's, or the one for every account). */
  removeCommand(number: string): string;
}

/** An opt-out for people: `opted out since 2030-01-01T09:00:03.120Z, reply "STOP"`. */
export function describeOptOut(e: OptOutEntry): string {
  const why = e.evidence?.text !== undefined ? ` ${JSON.stringify(e.evidence.text)}` : e.evidence?.note !== undefined ? ` (${e.evidence.note})` : e.evidence?.code !== undefined ? ` (${e.evidence.code})` : '';
  return `${e.reason === 'undeliverable' ? 'undeliverable' : 'opted out'} since ${e.since}, ${e.source}${why}`;
}

/**
 * The account whose store a send leaves out: the one it sends for. The sandbox sends for the
 * account the settings give, so a trial leaves out what the real campaign will (docs/optouts.md:
 * "Sending"); with none, it sends as `SANDBOX`, a stand-in that is no account: only the store for
 * every account applies then.
 */
export function optOutAccount(accountReference: unknown, sandbox: boolean): string | undefined {
  if (typeof accountReference !== 'string' || accountReference === '') return undefined;
  return sandbox && accountReference === SANDBOX_ACCOUNT ? undefined : accountReference;
}

/** The account the sandbox sends as when none is given. */
export const SANDBOX_ACCOUNT = 'SANDBOX';

/** The opt-outs that apply to `account` (undefined: no account known, only the `_all` store). */
export function openOptOuts(state: string, account: string | undefined): OptOuts {
  const paths = [...new Set([optOutStorePath(state, account), optOutStorePath(state, NO_ACCOUNT)])];
  const stores = paths.map((p) => OptOutStore.open(p));
  const get = (n: string): OptOutEntry | undefined => {
    for (const s of stores) {
      const e = s.get(n);
      if (e !== undefined) return e;
    }
    return undefined;
  };
  const numbers = (): string[] => [...new Set(stores.flatMap((s) => s.numbers()))];
  const optedOutAt = (n: string, at: Date): OptOutEntry | undefined => {
    for (const s of stores) {
      const e = s.optedOutAt(n, at);
      if (e !== undefined) return e;
    }
    return undefined;
  };
  const removeCommand = (n: string): string => {
    const own = account !== undefined && account !== NO_ACCOUNT && stores[0]?.has(n) === true;
    return `msgr optout remove ${n} ${own ? `--account ${shellWord(account)}` : '--all-accounts'}`;
  };
  return { files: paths, get size() { return numbers().length; }, has: (n) => stores.some((s) => s.has(n)), get, numbers, optedOutAt, removeCommand };
}
