// One opt-out store file (docs/optouts.md): its append-only log of changes, the lock its writers
// take, the index they keep current beside it, and the store read whole when every change is
// asked for. What a sender asks of an account's stores, and the front door to this file:
// store.ts.
import { appendFileSync, chmodSync, closeSync, fdatasyncSync, fstatSync, ftruncateSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from '../errors.js';
import { tryLock, waitForLock, type LockProcess } from '../files/lock.js';
import { ensureDir } from '../files/dirs.js';
import { IndexUnusable, OPTED_OUT, POSSIBLE, stampOf, type LogStamp } from './index-file.js';
import { afterAppend, currentIndex, indexPath, lineAt, type Lookup } from './lookup.js';
import { E164, numberNamed, readStoreLines, timeNamed, recordOf, STORE_VERSION, type BadLine, type Evidence, type OptOutReason, type OptOutRecord } from './store-lines.js';
import type { NumberState } from './state.js';

/** A number opted out now. */
export interface OptOutEntry {
  readonly number: string;
  /** When it was opted out (the first add since it was last removed). */
  readonly since: string;
  readonly reason: OptOutReason;
  readonly source: string;
  readonly evidence?: Evidence;
}

/** A reply that may be an opt-out, kept until a person decides (docs/optouts.md: "Possible opt-outs"). */
export interface PossibleEntry {
  readonly number: string;
  /** The first such reply since the number was last decided on. */
  readonly since: string;
  readonly source: string;
  /** The latest such reply's. */
  readonly evidence?: Evidence;
  /** How many such replies came since. */
  readonly replies: number;
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

/** Where the bytes of a write cut short are kept when the next writer takes them off the store. */
export function tornPath(path: string): string {
  return `${path}.torn`;
}

/** The whole store read into memory: every number's changes, for what asks about all of them. */
class Whole {
  readonly current = new Map<string, OptOutEntry>();
  readonly pending = new Map<string, PossibleEntry>();
  /** Every change per number, oldest first, for optedOutAt() and history(). */
  readonly history = new Map<string, OptOutRecord[]>();
  offset = 0;
  lines = 0;
  ino = -1;
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
   * The store at `path`; a missing file is an empty store, one that cannot be read a UsageError,
   * now. Lines that are not records are kept in `damage` (never thrown here: writers still record
   * opt-outs; those that decide whom to message refuse: refuseDamage, openOptOuts). With `proc`, an
   * index that does not describe the store is made again on disk (under the store's lock, when no
   * writer holds it); without, in memory, until a writer writes it.
   */
  static open(path: string, proc?: LockProcess): OptOutStore {
    const store = new OptOutStore(path, proc);
    store.#ask(() => undefined);
    return store;
  }

  /** The index as it is now (undefined: no store). */
  #lookup(held: boolean): Lookup | undefined {
    try {
      return currentIndex(this.path, readStoreLines, (build) => {
        if (held) return build(true);
        const lock = this.#proc !== undefined ? tryLock(`${this.path}.lock`, "msgr (the opt-out store's index)", this.#proc, LOCK_STALE_MS) : undefined;
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
    let index = this.#lookup(held);
    try {
      return this.#againIfDamaged(
        () => ask(index),
        () => {
          index?.close();
          index = this.#lookup(held);
        },
      );
    } finally {
      index?.close();
    }
  }

  /**
   * `ask`, and when the index turns out damaged (IndexUnusable), the index removed, opened again
   * (`reopen`: made again from the store) and `ask` once more; a second failure is thrown.
   */
  #againIfDamaged<T>(ask: () => T, reopen: () => void): T {
    try {
      return ask();
    } catch (err) {
      if (!(err instanceof IndexUnusable)) throw err;
    }
    rmSync(indexPath(this.path), { force: true });
    reopen();
    return ask();
  }

  /** Numbers opted out now. */
  get size(): number {
    return this.#ask((index) => index?.summary.optedOut ?? 0);
  }

  /** Possible opt-outs not decided yet (the index's count: the store is not read). */
  get undecidedCount(): number {
    return this.#ask((index) => index?.summary.pending ?? 0);
  }

  /** Lines that are not records (the first 20 of them), and how many there are. */
  get damage(): { readonly lines: readonly BadLine[]; readonly count: number } {
    return this.#ask((index) => index?.summary.damage ?? { lines: [], count: 0 });
  }

  /**
   * A last line cut short (no newline, not a record) that names an opt-out (store-lines.ts:
   * numberNamed), with its line number; undefined when there is none. A write of msgr's is one
   * call, so one still cut short a moment later is a crash or a hand edit, and counts as damage
   * (refuseDamage).
   */
  get cutShort(): BadLine | undefined {
    const at = this.#ask((index) => (index !== undefined && index.summary.torn > 0 ? { offset: index.summary.covered, length: index.summary.torn, line: index.summary.lines + 1 } : undefined));
    if (at === undefined) return undefined;
    const text = readBytes(this.path, at.offset, at.length).toString('utf8');
    return numberNamed(text) !== undefined ? { line: at.line, text } : undefined;
  }

  has(number: string): boolean {
    return this.get(number) !== undefined;
  }

  get(number: string): OptOutEntry | undefined {
    if (!E164.test(number)) return undefined;
    return this.#ask((index) => (index !== undefined ? this.#entry(number, index.get(number)) : undefined));
  }

  /** A possible opt-out of `number` no one has decided on yet (and the number is not opted out). */
  undecided(number: string): PossibleEntry | undefined {
    if (!E164.test(number)) return undefined;
    return this.#ask((index) => (index !== undefined ? this.#possible(number, index.get(number)) : undefined));
  }

  /** Every possible opt-out not decided yet, oldest first (the index's slots, then their records). */
  pending(): PossibleEntry[] {
    return this.#ask((index) => {
      if (index === undefined || index.summary.pending === 0) return [];
      const numbers: string[] = [];
      index.keys(POSSIBLE, (k) => numbers.push(`+${k}`));
      return numbers.map((n) => this.#possible(n, index.get(n))).filter((p): p is PossibleEntry => p !== undefined).sort((a, b) => a.since.localeCompare(b.since) || a.number.localeCompare(b.number));
    });
  }

  /**
   * Every number opted out now, as its digits (`+447911123456` → 447911123456, the key a bulk
   * run's sets take), in no order: from the index, the store is not read.
   */
  optedOutKeys(visit: (key: number) => void): void {
    this.#ask((index) => index?.keys(OPTED_OUT, visit));
  }

  /**
   * Many numbers asked in turn, on one look at the index (held open until `close`): each number's
   * flags (OPTED_OUT, POSSIBLE; 0: neither), a few small reads a number, the store not read. The
   * answers are the index's as it was opened, or as its writers change it in place meanwhile
   * (index-file.ts); a slot found damaged makes the index again, as #ask does, and is asked again.
   */
  probe(): { flags(key: number): number; close(): void } {
    let index = this.#lookup(false);
    return {
      flags: (key) =>
        this.#againIfDamaged(
          () => index?.flags(key) ?? 0,
          () => {
            index?.close();
            index = this.#lookup(false);
          },
        ),
      close: () => index?.close(),
    };
  }

  /** The records a number's state refers to, read back from the store by their offsets. */
  #records(number: string, offsets: readonly number[]): OptOutRecord[] {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch (err) {
      throw unreadable(this.path, err);
    }
    try {
      return offsets.map((o) => {
        const r = recordOf(lineAt(fd, o));
        // The index said the store was as it was made from: a line that is not this number's record is damage to the index.
        if (r === undefined || r.number !== number) throw new IndexUnusable(`the index names a line that is not ${number}'s`);
        return r;
      });
    } finally {
      closeSync(fd);
    }
  }

  /** The entry a number's state says (state.ts), as apply() makes it from the records. */
  #entry(number: string, s: NumberState<number> | undefined): OptOutEntry | undefined {
    if (s?.out === undefined) return undefined;
    const [since, last] = this.#records(number, [s.out.since, s.out.last]) as [OptOutRecord, OptOutRecord];
    return { number, since: since.at, reason: last.reason === 'undeliverable' ? 'undeliverable' : 'opt-out', source: last.source, ...(last.evidence !== undefined ? { evidence: last.evidence } : {}) };
  }

  /** The possible opt-out a number's state says, as #take makes it from the records. */
  #possible(number: string, s: NumberState<number> | undefined): PossibleEntry | undefined {
    if (s?.possible === undefined || s.out !== undefined) return undefined;
    const [since, last] = this.#records(number, [s.possible.since, s.possible.last]) as [OptOutRecord, OptOutRecord];
    return { number, since: since.at, source: last.source, ...(last.evidence !== undefined ? { evidence: last.evidence } : {}), replies: s.possible.replies };
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

  /** The changes of `number`, oldest first. */
  history(number: string): readonly OptOutRecord[] {
    return this.#read().history.get(number) ?? [];
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
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        if (w.offset > 0) this.#whole = new Whole();
        return;
      }
      throw unreadable(this.path, err);
    }
    try {
      const stat = fstatSync(fd);
      // Replaced (restored from a backup, repaired: another file) or cut shorter: read it whole again.
      if ((w.ino !== -1 && stat.ino !== w.ino) || stat.size < w.offset) {
        this.#whole = new Whole();
        closeSync(fd);
        this.refresh();
        return;
      }
      const now = this.#whole as Whole;
      now.ino = stat.ino;
      if (stat.size === now.offset) return;
      const buf = Buffer.alloc(stat.size - now.offset);
      let got = 0;
      while (got < buf.length) {
        const n = readSync(fd, buf, got, buf.length - got, now.offset + got);
        if (n === 0) break;
        got += n;
      }
      const read = readStoreLines(buf.subarray(0, got), now.lines + 1, now.offset);
      for (const { record } of read.records) take(now, record);
      now.offset += read.end;
      now.lines += read.lines;
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
    await this.#write(writer, (at, state) => {
      let lines = '';
      const seen = new Set<string>();
      for (const c of changes) {
        checkNumber(c.number);
        const reason = c.reason ?? 'opt-out';
        const now = state.entry(c.number);
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
    await this.#write(writer, (at, state) => {
      let lines = '';
      const seen = new Set<string>();
      for (const c of changes) {
        checkNumber(c.number);
        const now = state.entry(c.number);
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

  /**
   * Keeps replies that may be opt-outs until a person decides; a number opted out already is left
   * as it is (returned in `already`).
   */
  async possible(changes: readonly OptOutChange[], writer: StoreWriter): Promise<{ kept: PossibleEntry[]; already: OptOutEntry[] }> {
    const kept: PossibleEntry[] = [];
    const already: OptOutEntry[] = [];
    await this.#write(writer, (at, state) => {
      let lines = '';
      for (const c of changes) {
        checkNumber(c.number);
        const now = state.entry(c.number);
        if (now !== undefined) {
          already.push(now);
          continue;
        }
        const record: OptOutRecord = { v: STORE_VERSION, op: 'possible', number: c.number, at, source: c.source, ...(c.evidence !== undefined ? { evidence: c.evidence } : {}), by: writer.command };
        lines += `${JSON.stringify(record)}\n`;
        const p = state.possible(c.number);
        kept.push({ number: c.number, since: p?.since ?? at, source: c.source, ...(c.evidence !== undefined ? { evidence: c.evidence } : {}), replies: (p?.replies ?? 0) + 1 });
      }
      return lines;
    });
    return { kept, already };
  }

  /**
   * A person's decision on possible opt-outs: `accept` opts each number out (with its reply as the
   * evidence), `dismiss` keeps it messageable. Numbers with no possible opt-out pending are
   * returned in `none`.
   */
  async decide(numbers: readonly string[], decision: 'accept' | 'dismiss', writer: StoreWriter, note?: string): Promise<{ decided: PossibleEntry[]; none: string[] }> {
    const decided: PossibleEntry[] = [];
    const none: string[] = [];
    await this.#write(writer, (at, state) => {
      let lines = '';
      const seen = new Set<string>();
      for (const number of numbers) {
        checkNumber(number);
        const p = state.possible(number);
        if (p === undefined || seen.has(number)) {
          if (p === undefined) none.push(number);
          continue;
        }
        seen.add(number);
        const withNote = { ...(p.evidence ?? {}), ...(note !== undefined ? { note } : {}) };
        const record: OptOutRecord =
          decision === 'accept'
            ? { v: STORE_VERSION, op: 'add', number, at, reason: 'opt-out', source: p.source, evidence: withNote, by: writer.command }
            : { v: STORE_VERSION, op: 'dismiss', number, at, source: 'manual', ...(note !== undefined ? { evidence: { note } } : {}), by: writer.command };
        lines += `${JSON.stringify(record)}\n`;
        decided.push(p);
      }
      return lines;
    });
    return { decided, none };
  }

  /**
   * Under the lock: the index made current, the lines made from each number's state as the index
   * says it, appended and fdatasync'ed, then the index stepped on past them.
   */
  async #write(writer: StoreWriter, build: (at: string, state: { entry(n: string): OptOutEntry | undefined; possible(n: string): PossibleEntry | undefined }) => string): Promise<void> {
    await withStoreLock(this.path, writer, () => {
      const { kept, openEnd, lines } = this.#ask(
        (index) => ({
          kept: index?.summary.covered ?? 0,
          openEnd: index?.summary.openEnd ?? false,
          lines: build(writer.now().toISOString(), {
            entry: (n) => (index !== undefined ? this.#entry(n, index.get(n)) : undefined),
            possible: (n) => (index !== undefined ? this.#possible(n, index.get(n)) : undefined),
          }),
        }),
        true,
      );
      if (lines === '') return;
      let fd: number | undefined;
      let appended: { buf: Buffer; stamp: LogStamp } | undefined;
      try {
        fd = openSync(this.path, 'a+', 0o600);
        const stat = fstatSync(fd);
        // A last line cut short (it does not parse: store-lines.ts: a crash, a hand edit) is set aside
        // in <store>.torn, not lost. One that names an opt-out is made whole first: its number
        // is opted out by a record of its own (an opt-out is never dropped by a writer).
        let healed = '';
        if (stat.size > kept) {
          const cut = readFd(fd, kept, stat.size - kept);
          healed = wholeAgain(cut.toString('utf8'), writer);
          setAside(fd, this.path, kept, cut);
        }
        if ((stat.mode & 0o077) !== 0) chmodSync(this.path, 0o600);
        // A last record without its newline (a hand edit) stays whole: the new lines go after it.
        const buf = Buffer.from(`${openEnd ? '\n' : ''}${healed}${lines}`, 'utf8');
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
            // The next writer sets it aside (above).
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
    });
  }
}

/** A record read into the whole store: the one rule of store-lines.ts's ops, with the records themselves. */
function take(w: Whole, r: OptOutRecord): void {
  const now = w.current.get(r.number);
  if (r.op === 'add' || r.op === 'remove') {
    const next = apply(now, r);
    if (next === undefined) w.current.delete(r.number);
    else w.current.set(r.number, next);
    // A decision, whichever: what was possible is settled.
    w.pending.delete(r.number);
  } else if (r.op === 'dismiss') {
    w.pending.delete(r.number);
  } else if (now === undefined) {
    // A possible opt-out of a number opted out already changes nothing.
    const p = w.pending.get(r.number);
    w.pending.set(r.number, { number: r.number, since: p?.since ?? r.at, source: r.source, ...(r.evidence !== undefined ? { evidence: r.evidence } : {}), replies: (p?.replies ?? 0) + 1 });
  }
  let h = w.history.get(r.number);
  if (h === undefined) w.history.set(r.number, (h = []));
  h.push(r);
}

/** Runs `fn` holding the store's lock (`<store>.lock`), its folder made first. */
export async function withStoreLock<T>(path: string, writer: StoreWriter, fn: () => T): Promise<T> {
  try {
    ensureDir(dirname(path));
  } catch (err) {
    throw storeWriteError(path, err);
  }
  const lock = await waitForLock(`${path}.lock`, writer.command, writer, { timeoutMs: LOCK_WAIT_MS, staleMs: LOCK_STALE_MS }).catch((err: unknown) => {
    throw (err as NodeJS.ErrnoException).code !== undefined ? storeWriteError(path, err) : err;
  });
  try {
    return fn();
  } finally {
    lock.release();
  }
}

/**
 * The record that opts out the number a line cut short names (store-lines.ts: numberNamed), as of the
 * time it gives when it gives one, with a note that says where it came from; '' when it names none.
 */
function wholeAgain(cut: string, writer: StoreWriter): string {
  const number = numberNamed(cut);
  if (number === undefined) return '';
  const record: OptOutRecord = { v: STORE_VERSION, op: 'add', number, at: timeNamed(cut, writer.now()), reason: 'opt-out', source: 'manual', evidence: { note: 'made whole from a line cut short (its bytes are in the .torn file beside the store)' }, by: writer.command };
  return `${JSON.stringify(record)}\n`;
}

/** The `length` bytes at `offset` of an open file (fewer at its end). */
function readFd(fd: number, offset: number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, bytes, got, length - got, offset + got);
    if (n === 0) break;
    got += n;
  }
  return bytes.subarray(0, got);
}

function readBytes(path: string, offset: number, length: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    throw unreadable(path, err);
  }
  try {
    return readFd(fd, offset, length);
  } finally {
    closeSync(fd);
  }
}

/** Moves `bytes`, read at `offset` to the end of the store, to its `.torn` file, then cuts them off. */
function setAside(fd: number, path: string, offset: number, bytes: Buffer): void {
  appendFileSync(tornPath(path), Buffer.concat([bytes, Buffer.from('\n')]), { mode: 0o600 });
  ftruncateSync(fd, offset);
}

function apply(entry: OptOutEntry | undefined, r: OptOutRecord): OptOutEntry | undefined {
  if (r.op === 'remove') return undefined;
  if (r.op !== 'add') return entry;
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

export function storeWriteError(path: string, err: unknown): unknown {
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
