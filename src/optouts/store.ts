// The opt-out store (docs/optouts.md): the numbers that must not be messaged, one store per
// account, kept as an append-only log of changes (`<state>/optouts/<account>.jsonl`, 0600), so
// that every opt-out keeps its time, source and evidence, and a later question ("was this number
// opted out when that run sent to it?") has its answer. Writers take the store's lock, read what
// others appended since, append, and fdatasync before they return: two processes adding at once
// lose nothing, and an opt-out that `msgr listen` acknowledged survives a crash.
//
// Front doors: `openOptOuts(state, account)` for a sender that must leave the numbers out (the
// account's store and the `_all` one, whose numbers apply to every account), and
// `OptOutStore.open(path)` to change one store. What is a line of the store, and what is damage:
// records.ts (`readStoreLines`), the one reading of its lines. Damage stops a sender (openOptOuts,
// refuseDamage), never a writer: an opt-out is recorded whatever else the file holds.
import { appendFileSync, chmodSync, closeSync, fdatasyncSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from '../errors.js';
import { waitForLock, type LockProcess } from '../files/lock.js';
import { accountFile, NO_ACCOUNT } from '../files/account-files.js';
import { ensureDir } from '../files/dirs.js';
import { shellQuote as shellWord } from '../output/shell.js';
import { E164, readStoreLines, STORE_VERSION, type BadLine, type Evidence, type OptOutReason, type OptOutRecord } from './records.js';

export { STORE_VERSION, type BadLine, type Evidence, type OptOutReason, type OptOutRecord } from './records.js';

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

export function optOutStorePath(state: string, account: string | undefined): string {
  return accountFile(state, 'optouts', account, 'jsonl');
}

/** Where the bytes of a write cut short are kept when the next writer takes them off the store. */
export function tornPath(path: string): string {
  return `${path}.torn`;
}

export class OptOutStore {
  readonly path: string;
  readonly #current = new Map<string, OptOutEntry>();
  readonly #pending = new Map<string, PossibleEntry>();
  /** Every change per number, oldest first, for optedOutAt(). */
  readonly #history = new Map<string, OptOutRecord[]>();
  #offset = 0;
  #lines = 0;
  #openEnd = false;
  #ino = -1;
  #bad: BadLine[] = [];
  #badCount = 0;

  private constructor(path: string) {
    this.path = path;
  }

  /**
   * Reads the store; a missing file is an empty store, one that cannot be read a UsageError. Lines
   * that are not records are kept in `damage` (never thrown here: writers still record opt-outs;
   * those that decide whom to message refuse: refuseDamage, openOptOuts).
   */
  static open(path: string): OptOutStore {
    const store = new OptOutStore(path);
    store.refresh();
    return store;
  }

  get size(): number {
    return this.#current.size;
  }

  /** Lines that are not records (the first 20 of them), and how many there are. */
  get damage(): { readonly lines: readonly BadLine[]; readonly count: number } {
    return { lines: this.#bad, count: this.#badCount };
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

  /** A possible opt-out of `number` no one has decided on yet (and the number is not opted out). */
  undecided(number: string): PossibleEntry | undefined {
    return this.#pending.get(number);
  }

  /** Every possible opt-out not decided yet, oldest first. */
  pending(): PossibleEntry[] {
    return [...this.#pending.values()].sort((a, b) => a.since.localeCompare(b.since) || a.number.localeCompare(b.number));
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

  /** The changes of `number`, oldest first. */
  history(number: string): readonly OptOutRecord[] {
    return this.#history.get(number) ?? [];
  }

  /** Reads what was appended since the last read (by this process or another). */
  refresh(): void {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        if (this.#offset > 0) this.#reset();
        return;
      }
      throw unreadable(this.path, err);
    }
    try {
      const stat = fstatSync(fd);
      // Replaced (restored from a backup, repaired: another file) or cut shorter: read it whole again.
      if (stat.ino !== this.#ino || stat.size < this.#offset) {
        if (this.#ino !== -1 || this.#offset > 0) this.#reset();
        this.#ino = stat.ino;
      }
      const size = stat.size;
      if (size === this.#offset) {
        return;
      }
      const buf = Buffer.alloc(size - this.#offset);
      let got = 0;
      while (got < buf.length) {
        const n = readSync(fd, buf, got, buf.length - got, this.#offset + got);
        if (n === 0) break;
        got += n;
      }
      const read = readStoreLines(buf.subarray(0, got), this.#lines + 1);
      for (const { record } of read.records) this.#take(record);
      for (const b of read.bad) if (this.#bad.length < 20) this.#bad.push(b);
      this.#badCount += read.bad.length;
      if (read.end > 0) this.#openEnd = read.openEnd;
      this.#offset += read.end;
      this.#lines += read.lines;
    } catch (err) {
      throw unreadable(this.path, err);
    } finally {
      closeSync(fd);
    }
  }

  #reset(): void {
    this.#current.clear();
    this.#pending.clear();
    this.#history.clear();
    this.#offset = 0;
    this.#lines = 0;
    this.#openEnd = false;
    this.#bad = [];
    this.#badCount = 0;
  }

  #take(r: OptOutRecord): void {
    const now = this.#current.get(r.number);
    if (r.op === 'add' || r.op === 'remove') {
      const next = apply(now, r);
      if (next === undefined) this.#current.delete(r.number);
      else this.#current.set(r.number, next);
      // A decision, whichever: what was possible is settled.
      this.#pending.delete(r.number);
    } else if (r.op === 'dismiss') {
      this.#pending.delete(r.number);
    } else if (now === undefined) {
      // A possible opt-out of a number opted out already changes nothing.
      const p = this.#pending.get(r.number);
      this.#pending.set(r.number, { number: r.number, since: p?.since ?? r.at, source: r.source, ...(r.evidence !== undefined ? { evidence: r.evidence } : {}), replies: (p?.replies ?? 0) + 1 });
    }
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

  /**
   * Keeps replies that may be opt-outs until a person decides; a number opted out already is left
   * as it is (returned in `already`).
   */
  async possible(changes: readonly OptOutChange[], writer: StoreWriter): Promise<{ kept: PossibleEntry[]; already: OptOutEntry[] }> {
    const kept: PossibleEntry[] = [];
    const already: OptOutEntry[] = [];
    await this.#write(writer, (at) => {
      let lines = '';
      for (const c of changes) {
        checkNumber(c.number);
        const now = this.#current.get(c.number);
        if (now !== undefined) {
          already.push(now);
          continue;
        }
        const record: OptOutRecord = { v: STORE_VERSION, op: 'possible', number: c.number, at, source: c.source, ...(c.evidence !== undefined ? { evidence: c.evidence } : {}), by: writer.command };
        lines += `${JSON.stringify(record)}\n`;
        const p = this.#pending.get(c.number);
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
    await this.#write(writer, (at) => {
      let lines = '';
      const seen = new Set<string>();
      for (const number of numbers) {
        checkNumber(number);
        const p = this.#pending.get(number);
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

  /** Under the lock: read what others wrote, make the lines, append them, fdatasync, read them in. */
  async #write(writer: StoreWriter, build: (at: string) => string): Promise<void> {
    await withStoreLock(this.path, writer, () => {
      this.refresh();
      const lines = build(writer.now().toISOString());
      if (lines === '') return;
      let fd: number | undefined;
      let kept = this.#offset;
      try {
        fd = openSync(this.path, 'a+', 0o600);
        const stat = fstatSync(fd);
        // A last line cut short by a crash (it does not parse: records.ts) was never acknowledged.
        // It is set aside, not lost, and the new lines start on a line of their own.
        if (stat.size > this.#offset) setAside(fd, this.path, this.#offset, stat.size - this.#offset);
        if ((stat.mode & 0o077) !== 0) chmodSync(this.path, 0o600);
        // A last record without its newline (a hand edit) stays whole: the new lines go after it.
        const buf = Buffer.from(`${this.#openEnd ? '\n' : ''}${lines}`, 'utf8');
        kept = this.#offset;
        let off = 0;
        while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
        fdatasyncSync(fd);
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
      this.refresh();
    });
  }
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

/** Moves the `length` bytes at `offset` of the store to its `.torn` file, then cuts them off. */
function setAside(fd: number, path: string, offset: number, length: number): void {
  const bytes = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, bytes, got, length - got, offset + got);
    if (n === 0) break;
    got += n;
  }
  appendFileSync(tornPath(path), Buffer.concat([bytes.subarray(0, got), Buffer.from('\n')]), { mode: 0o600 });
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

/** The command that repairs the store of `account` (undefined: the one for every account). */
export function repairCommand(account: string | undefined): string {
  return `msgr optout repair ${account === undefined || account === NO_ACCOUNT ? '--all-accounts' : `--account ${shellWord(account)}`}`;
}

/**
 * A store with lines that are not records: the numbers they may hold cannot be left out, so a
 * command that decides whom to message stops (exit 2), naming the lines and the repair.
 */
export class DamagedStoreError extends UsageError {
  constructor(path: string, damage: OptOutStore['damage'], account: string | undefined) {
    const shown = damage.lines.slice(0, 3).map((b) => `line ${b.line}: ${JSON.stringify(visible(b.text))}`);
    const more = damage.count > shown.length ? `, and ${damage.count - shown.length} more` : '';
    super(`the opt-out store ${path} has ${damage.count} line${damage.count === 1 ? '' : 's'} that ${damage.count === 1 ? 'is not a record' : 'are not records'} (${shown.join('; ')}${more}): the numbers on ${damage.count === 1 ? 'it' : 'them'} cannot be left out; nothing was sent`, {
      hint: `${repairCommand(account)} turns the numbers typed on such lines into opt-outs and sets the other lines aside (the file as it was is kept beside it); or take the lines out of the file by hand and add their numbers with msgr optout import FILE.`,
    });
  }
}

/** A line for a message: control characters shown, and no longer than a line. */
function visible(text: string): string {
  const t = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return t.length > 60 ? `${t.slice(0, 57)}...` : t;
}

/** Stops a command that decides whom to message when the store holds lines that are not records. */
export function refuseDamage(store: OptOutStore, account: string | undefined): OptOutStore {
  if (store.damage.count > 0) throw new DamagedStoreError(store.path, store.damage, account);
  return store;
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
  /** A possible opt-out of `number` not decided yet (and the number not opted out in either store). */
  undecided(number: string): PossibleEntry | undefined;
  /** Every possible opt-out not decided yet. */
  pending(): PossibleEntry[];
  /** The commands that decide on `number`'s possible opt-out, for a refusal's hint. */
  decideCommand(number: string, decision: 'accept' | 'dismiss'): string;
}

/** An opt-out for people: `opted out since 2030-01-01T09:00:03.120Z, reply "STOP"`. */
export function describeOptOut(e: OptOutEntry): string {
  // The word that made a longer reply an opt-out ("Stop by tomorrow?": "stop").
  const alone = e.evidence?.text?.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  const word = e.evidence?.word !== undefined && alone !== undefined && alone !== e.evidence.word ? ` (stop word "${e.evidence.word}")` : '';
  const why = e.evidence?.text !== undefined ? ` ${JSON.stringify(e.evidence.text)}${word}` : e.evidence?.note !== undefined ? ` (${e.evidence.note})` : e.evidence?.code !== undefined ? ` (${e.evidence.code})` : '';
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
  // A store with lines that are not records stops the send: its numbers cannot all be left out.
  const stores = paths.map((p, i) => refuseDamage(OptOutStore.open(p), i === 0 ? account : undefined));
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
  const has = (n: string): boolean => stores.some((s) => s.has(n));
  const undecided = (n: string): PossibleEntry | undefined => {
    if (has(n)) return undefined;
    for (const s of stores) {
      const p = s.undecided(n);
      if (p !== undefined) return p;
    }
    return undefined;
  };
  const pending = (): PossibleEntry[] => {
    const seen = new Set<string>();
    const out: PossibleEntry[] = [];
    for (const s of stores) {
      for (const p of s.pending()) {
        if (seen.has(p.number) || has(p.number)) continue;
        seen.add(p.number);
        out.push(p);
      }
    }
    return out;
  };
  const decideCommand = (n: string, decision: 'accept' | 'dismiss'): string => {
    const own = account !== undefined && account !== NO_ACCOUNT && stores[0]?.undecided(n) !== undefined;
    return `msgr optout possible --${decision} ${n} ${own ? `--account ${shellWord(account)}` : '--all-accounts'}`;
  };
  return { files: paths, get size() { return numbers().length; }, has, get, numbers, optedOutAt, removeCommand, undecided, pending, decideCommand };
}

/** A possible opt-out for people: `"remove me from your list" (reply, 2030-01-01T09:00:03.120Z; informal request "remove me")`. */
export function describePossible(p: PossibleEntry): string {
  const text = p.evidence?.text !== undefined ? `${JSON.stringify(p.evidence.text)} ` : '';
  const why = p.evidence?.why !== undefined ? `; ${p.evidence.why}${p.evidence.matched !== undefined ? ` "${p.evidence.matched}"` : ''}` : '';
  return `${text}(${p.source}, ${p.since}${p.replies > 1 ? `, ${p.replies} replies` : ''}${why})`;
}
