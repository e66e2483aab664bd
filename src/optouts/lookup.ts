// Looking one number up in an opt-out store without reading the store whole (docs/optouts.md: "The
// index"): the index beside it (index-file.ts) says where that number's changes are, and only those
// lines are read, whatever the store holds. The index is used only while it describes the store
// exactly as it is now (device, inode, size, modification and change times); otherwise, under the
// store's lock, the store is read whole once by the one reader of its lines and the index made
// again. A writer keeps it current itself after each append (afterAppend), under the same lock, so
// a send, `optout check` and the listener's decisions read a few hundred bytes from a store of any
// size; the first command after a crash between an append and its index update, after a hand edit
// or after an older msgr wrote, pays for one whole read.
import { closeSync, fstatSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { IndexBuilder, IndexUnusable, readAt, sameStamp, stampOf, StoreIndex, type IndexSummary, type LogStamp } from './index-file.js';
import { step, type NumberState, type StoreOp } from './state.js';

/** A change of the store as the rule needs it (the record itself is read back by offset). */
export interface LineRecord {
  readonly number: string;
  readonly op: StoreOp;
}

/** What the store's one reader of lines says of some bytes of it (store.ts / store-lines.ts). */
export interface ReadLines<R extends LineRecord> {
  readonly records: ReadonlyArray<{ readonly line: number; readonly offset: number; readonly record: R }>;
  readonly bad: ReadonlyArray<{ readonly line: number; readonly text: string }>;
  /** Bytes taken up to the end of the last whole line (or a record without its newline). */
  readonly end: number;
  readonly lines: number;
  readonly openEnd: boolean;
  /** Bytes after `end`: a last line cut short (not a record). */
  readonly torn: number;
}

/** The store's reader: its lines from `buf` (read from byte `offset`, line `firstLine` of the file). */
export type LineReader<R extends LineRecord> = (buf: Buffer, firstLine: number, offset: number) => ReadLines<R>;

/** The index of a store as it is now, for reading; `entries()` lists every number it holds. */
export interface Lookup {
  readonly summary: IndexSummary;
  get(number: string): NumberState<number> | undefined;
  /** A number's flags (OPTED_OUT, POSSIBLE; 0: none), by its digits (keyOf): its state not decoded. */
  flags(key: number): number;
  entries(): Iterable<[string, NumberState<number> | undefined]>;
  /** The numbers' digits (keyOf) whose state has any of `flags` (OPTED_OUT, POSSIBLE). */
  keys(flags: number, visit: (key: number) => void): void;
  close(): void;
}

/** Past this many records appended at once, the index is made again rather than stepped on. */
const REBUILD_ABOVE = 50_000;

export function indexPath(store: string): string {
  return `${store}.index`;
}

/** The line of the store starting at `offset` (a record msgr or a person wrote: at most 1 MiB). */
export function lineAt(fd: number, offset: number): string {
  let size = 1024;
  for (;;) {
    const buf = Buffer.alloc(size);
    const got = readAt(fd, buf, offset);
    const nl = buf.subarray(0, got).indexOf(0x0a);
    if (nl !== -1 || got < size || size >= 1 << 20) return buf.toString('utf8', 0, nl === -1 ? got : nl);
    size *= 4;
  }
}

/** Reads the whole store at `fd` (as it is at `stamp`) into a new index: the numbers' states and the totals. */
function readWhole<R extends LineRecord>(fd: number, stamp: LogStamp, read: LineReader<R>): { builder: IndexBuilder; summary: IndexSummary } {
  // Each number's state kept in the table being made (not in a Map: 1,000,000 numbers took ~400 MB so).
  const builder = new IndexBuilder();
  let optedOut = 0;
  let pending = 0;
  const bad: Array<{ line: number; text: string }> = [];
  let damage = 0;
  let offset = 0;
  let line = 1;
  let openEnd = false;
  let torn = 0;
  const chunk = Buffer.alloc(Math.min(4 << 20, Math.max(1, stamp.size)));
  while (offset < stamp.size) {
    const got = readAt(fd, chunk.subarray(0, Math.min(chunk.length, stamp.size - offset)), offset);
    if (got === 0) break;
    // Whole lines only, but the last chunk: a line longer than a chunk is read in the next, larger one.
    const last = offset + got >= stamp.size;
    const upto = last ? got : chunk.subarray(0, got).lastIndexOf(0x0a) + 1;
    if (upto === 0) throw new Error("a line longer than 4 MiB");
    const r = read(chunk.subarray(0, upto), line, offset);
    for (const { offset: at, record } of r.records) {
      const was = builder.get(record.number);
      const now = step(was, record.op, at);
      optedOut += (now?.out !== undefined ? 1 : 0) - (was?.out !== undefined ? 1 : 0);
      pending += (now?.possible !== undefined ? 1 : 0) - (was?.possible !== undefined ? 1 : 0);
      builder.set(record.number, now);
    }
    for (const b of r.bad) if (bad.length < 20) bad.push({ line: b.line, text: b.text.slice(0, 200) });
    damage += r.bad.length;
    line += r.lines;
    if (r.end > 0) openEnd = r.openEnd;
    if (last) torn = r.torn;
    offset += r.end;
    if (r.end === 0) break;
  }
  return { builder, summary: { covered: offset, lines: line - 1, torn, openEnd, optedOut, pending, damage: { count: damage, lines: bad } } };
}

function memoryLookup(builder: IndexBuilder, summary: IndexSummary): Lookup {
  return { summary, get: (n) => builder.get(n), flags: (k) => builder.flags(k), entries: () => builder.entries(), keys: (flags, visit) => builder.keys(flags, visit), close: () => undefined };
}

/**
 * The index of the store at `path` as it is now; undefined when there is no store. When it does
 * not describe the store (or there is none), `withLock` decides how it is made again: it calls
 * `build(true)` holding the store's lock (the store read whole, the index written) or `build(false)`
 * when the lock is not to be had (the store read whole into an index in memory, this time only).
 */
export function currentIndex<R extends LineRecord>(path: string, read: LineReader<R>, withLock: (build: (write: boolean) => Lookup | undefined) => Lookup | undefined): Lookup | undefined {
  const quick = tryIndex(path);
  if (quick !== 'stale') return quick;
  return withLock((write) => {
    // Another process may have made it meanwhile.
    const again = write ? tryIndex(path) : 'stale';
    return again !== 'stale' ? again : rebuild(path, read, write);
  });
}

/** The store open for reading; undefined when there is none. */
function openStore(path: string): number | undefined {
  try {
    return openSync(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The index, if it describes the store now; undefined when there is no store; 'stale' otherwise. */
function tryIndex(path: string): Lookup | undefined | 'stale' {
  const fd = openStore(path);
  if (fd === undefined) return undefined;
  try {
    const stamp = stampOf(fstatSync(fd, { bigint: true }));
    let index: StoreIndex | undefined;
    try {
      index = StoreIndex.open(indexPath(path));
    } catch (err) {
      if (err instanceof IndexUnusable) return 'stale';
      throw err;
    }
    if (index === undefined) return 'stale';
    if (!sameStamp(index.stamp, stamp)) {
      index.close();
      return 'stale';
    }
    return index;
  } finally {
    closeSync(fd);
  }
}

/** Reads the store whole and writes its index (kept in memory when it cannot be written). */
function rebuild<R extends LineRecord>(path: string, read: LineReader<R>, write = true): Lookup | undefined {
  const fd = openStore(path);
  if (fd === undefined) return undefined;
  try {
    // A person may write without the lock: read again while the store changed during a read (an
    // index that says the store as it was before the change is made again by the next reader).
    for (let attempt = 1; ; attempt++) {
      const stamp = stampOf(fstatSync(fd, { bigint: true }));
      const { builder, summary } = readWhole(fd, stamp, read);
      if (!sameStamp(stamp, stampOf(fstatSync(fd, { bigint: true }))) && attempt < 3) continue;
      if (!write) return memoryLookup(builder, summary);
      try {
        mkdirSync(dirname(path), { recursive: true });
        builder.write(indexPath(path), stamp, summary);
      } catch {
        return memoryLookup(builder, summary);
      }
      try {
        const index = StoreIndex.open(indexPath(path));
        if (index !== undefined) return index;
      } catch {
        // Replaced by another writer that did not hold the lock: use what was read.
      }
      return memoryLookup(builder, summary);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * After a writer holding the store's lock, which found the index current (currentIndex) before it
 * wrote, appended `bytes` at byte `from` and left the store as `after`: each number's state is
 * stepped on in the index, then its header written, which now says `after`. An index that does not
 * end where the writer began (another process wrote without the lock), or a table without room for
 * the new numbers, is made again from the store.
 */
export function afterAppend<R extends LineRecord>(path: string, read: LineReader<R>, from: number, bytes: Buffer, after: LogStamp): void {
  let index: StoreIndex | undefined;
  try {
    index = StoreIndex.open(indexPath(path), 'r+');
  } catch (err) {
    if (!(err instanceof IndexUnusable)) throw err;
  }
  try {
    const s = index?.summary;
    const appended = s !== undefined ? read(bytes, s.lines + 1, from) : undefined;
    // A large import: one pass over the store costs less than a look-up and a write per number.
    if (index !== undefined && s !== undefined && appended !== undefined && appended.records.length <= REBUILD_ABOVE && s.covered === from && after.size === from + bytes.length) {
      const changed = new Map<string, NumberState<number> | undefined>();
      let optedOut = s.optedOut;
      let pending = s.pending;
      for (const { offset, record } of appended.records) {
        const was = changed.has(record.number) ? changed.get(record.number) : index.get(record.number);
        const now = step(was, record.op, offset);
        optedOut += (now?.out !== undefined ? 1 : 0) - (was?.out !== undefined ? 1 : 0);
        pending += (now?.possible !== undefined ? 1 : 0) - (was?.possible !== undefined ? 1 : 0);
        changed.set(record.number, now);
      }
      const summary: IndexSummary = {
        covered: from + appended.end,
        lines: s.lines + appended.lines,
        torn: appended.torn,
        openEnd: appended.end > 0 ? appended.openEnd : s.openEnd,
        optedOut,
        pending,
        damage: { count: s.damage.count + appended.bad.length, lines: [...s.damage.lines, ...appended.bad.map((b) => ({ line: b.line, text: b.text.slice(0, 200) }))].slice(0, 20) },
      };
      if (index.update(changed, after, summary)) return;
    }
  } catch (err) {
    if (!(err instanceof IndexUnusable)) throw err;
  } finally {
    index?.close();
  }
  rebuild(path, read)?.close();
}
