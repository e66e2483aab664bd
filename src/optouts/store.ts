// The opt-out store (docs/optouts.md): the numbers that must not be messaged, one store per
// account, kept as an append-only log of changes (`<state>/optouts/<account>.jsonl`, 0600), so
// that every opt-out keeps its time, source and evidence, and a later question ("was this number
// opted out when that run sent to it?") has its answer. Writers take the store's lock, read what
// others appended since, append, and fdatasync before they return: two processes adding at once
// lose nothing, and an opt-out that `msgr listen` acknowledged survives a crash.
//
// Front doors: `openOptOuts(state, account, proc)` for a sender that must leave the numbers out
// (the account's store and the `_all` one, whose numbers apply to every account), and
// `OptOutStore.open(path)` to change one store.
//
// Whether one number is opted out is answered through the index beside the store (lookup.ts,
// index-file.ts: a few small reads, however many numbers the store holds); what needs the whole
// store (the list, an export, the history for `optout violations`) reads it whole, once, when
// first asked. Writers keep the index current after each append, under the same lock.
import { chmodSync, closeSync, fdatasyncSync, fstatSync, ftruncateSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from '../errors.js';
import { tryLock, waitForLock, type LockProcess } from '../files/lock.js';
import { accountFile, NO_ACCOUNT } from '../files/account-files.js';
import { ensureDir } from '../files/dirs.js';
import { shellQuote as shellWord } from '../output/shell.js';
import { IndexUnusable, OPTED_OUT, stampOf, type LogStamp } from './index-file.js';
import { afterAppend, currentIndex, indexPath, lineAt, type Lookup } from './lookup.js';
import { readStoreLines, recordOf, STORE_VERSION, E164, type Evidence, type OptOutReason, type OptOutRecord } from './records.js';
import type { NumberState } from './state.js';

export { STORE_VERSION, type Evidence, type OptOutReason, type OptOutRecord } from './records.js';

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

const LOCK_WAIT_MS = 15_000;
/** Writers hold the lock for milliseconds: one older than this was left by a crash. */
const LOCK_STALE_MS = 60_000;

export function optOutStorePath(state: string, account: string | undefined): string {
  return accountFile(state, 'optouts', account, 'jsonl');
}

/** The whole store read into memory: every number's changes, for what asks about all of them. */
class Whole {
  readonly current = new Map<string, OptOutEntry>();
  /** Every change per number, oldest first, for optedOutAt(). */
  readonly history = new Map<string, OptOutRecord[]>();
  offset = 0;
  lines = 0;
  skipped = 0;
}

export class OptOutStore {
  readonly path: string;
  /** Makes the index again when it does not describe the store (the lock's process), if given. */
  readonly #proc: LockProcess | undefined;
  #whole: Whole | undefined;

  private constructor(path: string, proc: LockProcess | undefined) {
    this.path = path;
    this.#proc = proc;
  }

  /**
   * The store at `path`; a missing file is an empty store. One that cannot be read is a
   * UsageError, now. With `proc`, an index that does not describe the store is made again here
   * (under the store's lock, when no writer holds it); without, it is made in memory until a
   * writer writes it.
   */
  static open(path: string, proc?: LockProcess): OptOutStore {
    const store = new OptOutStore(path, proc);
    store.#lookup()?.close();
    return store;
  }

  /** The index as it is now (undefined: no store). */
  #lookup(held = false): Lookup | undefined {
    try {
      return currentIndex(this.path, readStoreLines, (build) => {
        if (held) return build(true);
        const lock = this.#proc !== undefined ? tryLock(`${this.path}.lock`, 'msgr (the opt-out store\'s index)', this.#proc, LOCK_STALE_MS) : undefined;
        if (lock === undefined || !('release' in lock)) return build(false);
        try {
          return build(true);
        } finally {
          lock.release();
        }
      });
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw unreadable(this.path, err);
    }
  }

  /**
   * `ask` of the index as it is now (undefined: no store). An index found damaged while reading it
   * (a slot that does not match its checksum) is made again from the store, and asked again.
   */
  #ask<T>(ask: (index: Lookup | undefined) => T, held = false): T {
    for (let attempt = 1; ; attempt++) {
      const index = this.#lookup(held);
      try {
        return ask(index);
      } catch (err) {
        if (!(err instanceof IndexUnusable) || attempt > 1) throw err;
        rmSync(indexPath(this.path), { force: true });
      } finally {
        index?.close();
      }
    }
  }

  /** Numbers opted out now. */
  get size(): number {
    return this.#ask((index) => index?.summary.optedOut ?? 0);
  }

  /** Lines that were not a change (hand edits, a torn last line): left alone, counted. */
  get skipped(): number {
    return this.#read().skipped;
  }

  has(number: string): boolean {
    return this.get(number) !== undefined;
  }

  get(number: string): OptOutEntry | undefined {
    if (!E164.test(number)) return undefined;
    return this.#ask((index) => (index !== undefined ? this.#entry(number, index.get(number)) : undefined));
  }

  /** The entry a number's state says, its records read back from the store by offset. */
  #entry(number: string, s: NumberState<number> | undefined): OptOutEntry | undefined {
    if (s?.out === undefined) return undefined;
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch (err) {
      throw unreadable(this.path, err);
    }
    try {
      const since = recordOf(lineAt(fd, s.out.since));
      const last = recordOf(lineAt(fd, s.out.last));
      // The index said the store was as it was made from: a line that is no record now is a bug.
      if (since === undefined || last === undefined || since.number !== number || last.number !== number) throw new Error(`the index of ${this.path} names a line that is not ${number}'s`);
      return { number, since: since.at, reason: last.reason === 'undeliverable' ? 'undeliverable' : 'opt-out', source: last.source, ...(last.evidence !== undefined ? { evidence: last.evidence } : {}) };
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Every number opted out now, as its digits (`+447911123456` → 447911123456, the key a bulk
   * run's sets take), in no order: from the index, the store is not read.
   */
  optedOutKeys(visit: (key: number) => void): void {
    this.#ask((index) => index?.keys(OPTED_OUT, visit));
  }

  /** The numbers opted out now, oldest opt-out first. */
  entries(): OptOutEntry[] {
    return [...this.#read().current.values()].sort((a, b) => a.since.localeCompare(b.since) || a.number.localeCompare(b.number));
  }

  numbers(): string[] {
    return this.entries().map((e) => e.number);
  }

  /** The opt-out in force for `number` at `at`, from the history (for "messaged after opting out"). */
  optedOutAt(number: string, at: Date): OptOutEntry | undefined {
    const iso = at.toISOString();
    let entry: OptOutEntry | undefined;
    for (const r of this.#read().history.get(number) ?? []) {
      if (r.at > iso) break;
      entry = apply(entry, r);
    }
    return entry;
  }

  /** The whole store, read when first asked for and kept up to date (refresh). */
  #read(): Whole {
    if (this.#whole === undefined) {
      this.#whole = new Whole();
      this.refresh();
    }
    return this.#whole;
  }

  /** Reads what was appended since the last read (by this process or another), when the whole store was read. */
  refresh(): void {
    const w = this.#whole;
    if (w === undefined) return;
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw unreadable(this.path, err);
    }
    try {
      const size = fstatSync(fd).size;
      if (size < w.offset) {
        // Replaced by a shorter file (restored from a backup): read it whole again.
        this.#whole = new Whole();
        closeSync(fd);
        this.refresh();
        return;
      }
      if (size === w.offset) return;
      const buf = Buffer.alloc(size - w.offset);
      let got = 0;
      while (got < buf.length) {
        const n = readSync(fd, buf, got, buf.length - got, w.offset + got);
        if (n === 0) break;
        got += n;
      }
      const read = readStoreLines(buf.subarray(0, got), w.lines + 1, w.offset);
      for (const { record } of read.records) take(w, record);
      w.skipped += read.bad.length;
      w.offset += read.end;
      w.lines += read.lines;
    } catch (err) {
      throw unreadable(this.path, err);
    } finally {
      try {
        closeSync(fd);
      } catch {
        // Closed above (read again whole).
      }
    }
  }

  /** Opts numbers out (E.164 only); a number already out for the same reason is left as it is. */
  async add(changes: readonly OptOutChange[], writer: StoreWriter): Promise<{ added: OptOutEntry[]; already: OptOutEntry[] }> {
    const added: OptOutEntry[] = [];
    const already: OptOutEntry[] = [];
    await this.#write(writer, (at, now) => {
      let lines = '';
      const seen = new Set<string>();
      for (const c of changes) {
        checkNumber(c.number);
        const reason = c.reason ?? 'opt-out';
        const was = now(c.number);
        if ((was !== undefined && was.reason === reason) || seen.has(c.number)) {
          if (was !== undefined) already.push(was);
          continue;
        }
        seen.add(c.number);
        const record: OptOutRecord = { v: STORE_VERSION, op: 'add', number: c.number, at, reason, source: c.source, ...(c.evidence !== undefined ? { evidence: c.evidence } : {}), by: writer.command };
        lines += `${JSON.stringify(record)}\n`;
        added.push(apply(was, record) as OptOutEntry);
      }
      return lines;
    });
    return { added, already };
  }

  /** Takes numbers off the store (they may be messaged again); those not on it are returned as absent. */
  async remove(changes: readonly OptOutChange[], writer: StoreWriter): Promise<{ removed: OptOutEntry[]; absent: string[] }> {
    const removed: OptOutEntry[] = [];
    const absent: string[] = [];
    await this.#write(writer, (at, now) => {
      let lines = '';
      const seen = new Set<string>();
      for (const c of changes) {
        checkNumber(c.number);
        const was = now(c.number);
        if (was === undefined || seen.has(c.number)) {
          if (was === undefined) absent.push(c.number);
          continue;
        }
        seen.add(c.number);
        const record: OptOutRecord = { v: STORE_VERSION, op: 'remove', number: c.number, at, source: c.source, ...(c.evidence !== undefined ? { evidence: c.evidence } : {}), by: writer.command };
        lines += `${JSON.stringify(record)}\n`;
        removed.push(was);
      }
      return lines;
    });
    return { removed, absent };
  }

  /**
   * Under the lock: the index made current, the lines made from each number's state as the index
   * says it, appended, fdatasync'ed, then the index stepped on past them.
   */
  async #write(writer: StoreWriter, build: (at: string, now: (number: string) => OptOutEntry | undefined) => string): Promise<void> {
    try {
      ensureDir(dirname(this.path));
    } catch (err) {
      throw storeWriteError(this.path, err);
    }
    const lock = await waitForLock(`${this.path}.lock`, writer.command, writer, { timeoutMs: LOCK_WAIT_MS, staleMs: LOCK_STALE_MS }).catch((err: unknown) => {
      throw (err as NodeJS.ErrnoException).code !== undefined ? storeWriteError(this.path, err) : err;
    });
    try {
      const { kept, lines } = this.#ask((index) => ({ kept: index?.summary.covered ?? 0, lines: build(writer.now().toISOString(), (n) => (index !== undefined ? this.#entry(n, index.get(n)) : undefined)) }), true);
      if (lines === '') return;
      let fd: number | undefined;
      let appended: { buf: Buffer; stamp: LogStamp } | undefined;
      try {
        fd = openSync(this.path, 'a+', 0o600);
        const stat = fstatSync(fd);
        // An unfinished last line (a writer killed mid-write) was never acknowledged: cut it off
        // so the new lines start on a line of their own.
        if (stat.size > kept) ftruncateSync(fd, kept);
        if ((stat.mode & 0o077) !== 0) chmodSync(this.path, 0o600);
        const buf = Buffer.from(lines, 'utf8');
        let off = 0;
        while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
        fdatasyncSync(fd);
        appended = { buf, stamp: stampOf(fstatSync(fd, { bigint: true })) };
      } catch (err) {
        // Whatever part of the lines got in is cut off again: a change is in the store whole, or not.
        if (fd !== undefined) {
          try {
            ftruncateSync(fd, kept);
          } catch {
            // The next writer cuts it off (above).
          }
        }
        throw storeWriteError(this.path, err);
      } finally {
        if (fd !== undefined) closeSync(fd);
      }
      // The change is in the store, on disk. The index follows, under the lock still: one that
      // cannot follow (a crash now, a full disk) no longer describes the store, and the next
      // reader makes it again from the store.
      try {
        afterAppend(this.path, readStoreLines, kept, appended.buf, appended.stamp);
      } catch {
        // Made again by the next reader.
      }
      this.refresh();
    } finally {
      lock.release();
    }
  }
}

function take(w: Whole, r: OptOutRecord): void {
  const next = apply(w.current.get(r.number), r);
  if (next === undefined) w.current.delete(r.number);
  else w.current.set(r.number, next);
  let h = w.history.get(r.number);
  if (h === undefined) w.history.set(r.number, (h = []));
  h.push(r);
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
  /** The stores' counts added up: `size`, or more when a number is in both; to size a set with. */
  readonly capacity: number;
  has(number: string): boolean;
  get(number: string): OptOutEntry | undefined;
  /** The numbers opted out now, in no order. */
  numbers(): string[];
  /** The same, as their digits (the key of a bulk run's NumberSet): a number in both stores twice. */
  keys(visit: (key: number) => void): void;
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

/**
 * The opt-outs that apply to `account` (undefined: no account known, only the `_all` store). One
 * number's answer (get, has, removeCommand) is looked up in the stores' indexes; `numbers()` lists
 * them from the indexes, in no order; `optedOutAt` reads the stores whole (their history). `proc`
 * makes an index that does not describe its store again on disk (else in memory, this time).
 */
export function openOptOuts(state: string, account: string | undefined, proc?: LockProcess): OptOuts {
  const paths = [...new Set([optOutStorePath(state, account), optOutStorePath(state, NO_ACCOUNT)])];
  const stores = paths.map((p) => OptOutStore.open(p, proc));
  const get = (n: string): OptOutEntry | undefined => {
    for (const s of stores) {
      const e = s.get(n);
      if (e !== undefined) return e;
    }
    return undefined;
  };
  const keys = (visit: (key: number) => void): void => {
    for (const s of stores) s.optedOutKeys(visit);
  };
  const numbers = (): string[] => {
    const out = new Set<string>();
    keys((k) => out.add(`+${k}`));
    return [...out];
  };
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
  // Counted from the indexes; a number in both stores only once (listed then, only when both have numbers).
  const size = (): number => {
    const counts = stores.map((s) => s.size);
    return counts.filter((c) => c > 0).length <= 1 ? counts.reduce((a, b) => a + b, 0) : numbers().length;
  };
  return { files: paths, get size() { return size(); }, get capacity() { return stores.reduce((n, s) => n + s.size, 0); }, has: (n) => get(n) !== undefined, get, numbers, keys, optedOutAt, removeCommand };
}
