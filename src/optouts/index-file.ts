// The index beside an opt-out store (`<account>.jsonl.index`; docs/optouts.md: "The index"): for
// each number, where in the store its changes that still count are (byte offsets of records), so
// that whether one number is opted out is answered with a few small reads, however many numbers the
// store holds. The store stays the record: the index is derived from it, never the other way, and
// is used only while it provably describes the store as it is now. It says which file it was made
// from and how that file was then (device, inode, size, modification and change times, in
// nanoseconds): anything else (a write it does not know of, a hand edit, another file at the path, an
// index from another msgr, cut short or damaged) and the store is read whole and the index made
// again (store.ts decides; this file only reads and writes the index).
//
// Layout (little-endian): a 4 KiB header (what the index was made from, the store's totals, its
// damage, a checksum), then a hash table of 32-byte slots, open addressing with linear probing:
//   0-6  the number's digits as an integer (0: an empty slot)    7  flags (1: opted out, 2: possible)
//   8-9  replies that may be opt-outs since the last decision     10-29  four offsets of 5 bytes:
//   the opt-out's first and latest `add`, the possible opt-out's first and latest reply (state.ts)
//   30-31  a checksum of the slot.
// Writers (under the store's lock) change slots in place, flush them, and only then write the
// header that says which store they describe: after a crash at any point either the header still
// describes an older store (and the store is read whole) or every slot it covers is on disk.
import { closeSync, fdatasyncSync, fstatSync, openSync, readSync, renameSync, rmSync, writeSync, type BigIntStats } from 'node:fs';
import type { NumberState } from './state.js';

const MAGIC = Buffer.from('MSGROIX\0', 'latin1');
export const INDEX_VERSION = 1;
const HEADER = 4096;
const SLOT = 32;
const NONE = 2 ** 40 - 1;
const CHECK_AT = HEADER - 4;
const DAMAGE_AT = 128;
/** Rebuilt larger beyond this share of used slots. */
const MAX_LOAD = 0.7;

/** What a store file was like when the index was made from it. */
export interface LogStamp {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
}

export function stampOf(stat: BigIntStats): LogStamp {
  return { dev: Number(stat.dev), ino: Number(stat.ino), size: Number(stat.size), mtimeNs: stat.mtimeNs, ctimeNs: stat.ctimeNs };
}

export function sameStamp(a: LogStamp, b: LogStamp): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

/** A line of the store that is not a record (its line number and text, shortened). */
export interface IndexedBadLine {
  readonly line: number;
  readonly text: string;
}

/** What the store held when the index was made, beyond its numbers. */
export interface IndexSummary {
  /** Bytes of the store read: up to the end of its last whole line. */
  readonly covered: number;
  /** Lines up to `covered`. */
  readonly lines: number;
  /** Bytes after `covered`: a last line cut short by a crash, not a record. */
  readonly torn: number;
  /** The last record read has no newline after it. */
  readonly openEnd: boolean;
  /** Numbers opted out, and possible opt-outs undecided. */
  readonly optedOut: number;
  readonly pending: number;
  /** Lines that are not records: how many, and the first ones. */
  readonly damage: { readonly count: number; readonly lines: readonly IndexedBadLine[] };
}

/** A slot's flags: the number is opted out; it has a possible opt-out undecided. */
export const OPTED_OUT = 1;
export const POSSIBLE = 2;

/** The index does not describe any store: read the store whole and make it again. */
export class IndexUnusable extends Error {}

/** `+447911123456` → 447911123456 (E.164 numbers have at most 15 digits: exact in a double). */
export function keyOf(number: string): number {
  return Number(number.slice(1));
}

function numberOf(key: number): string {
  return `+${key}`;
}

function slotOf(key: number, mask: number): number {
  const lo = key % 2 ** 32;
  const hi = Math.floor(key / 2 ** 32);
  let h = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 15;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 13;
  return (h >>> 0) & mask;
}

function fnv(buf: Buffer, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ (buf[i] as number), 0x01000193);
  return h >>> 0;
}

function slotCheck(buf: Buffer, at: number): number {
  const h = fnv(buf, at, at + 30);
  return (h ^ (h >>> 16)) & 0xffff;
}

function readKey(buf: Buffer, at: number): number {
  return buf.readUIntLE(at, 6) + (buf[at + 6] as number) * 2 ** 48;
}

function readRef(buf: Buffer, at: number): number | undefined {
  const v = buf.readUIntLE(at, 5);
  return v === NONE ? undefined : v;
}

function writeRef(buf: Buffer, at: number, v: number | undefined): void {
  buf.writeUIntLE(v ?? NONE, at, 5);
}

function encodeSlot(buf: Buffer, at: number, key: number, s: NumberState<number> | undefined): void {
  buf.writeUIntLE(key % 2 ** 48, at, 6);
  buf[at + 6] = Math.floor(key / 2 ** 48);
  buf[at + 7] = (s?.out !== undefined ? 1 : 0) | (s?.possible !== undefined ? 2 : 0);
  buf.writeUInt16LE(Math.min(0xffff, s?.possible?.replies ?? 0), at + 8);
  writeRef(buf, at + 10, s?.out?.since);
  writeRef(buf, at + 15, s?.out?.last);
  writeRef(buf, at + 20, s?.possible?.since);
  writeRef(buf, at + 25, s?.possible?.last);
  buf.writeUInt16LE(slotCheck(buf, at), at + 30);
}

function decodeSlot(buf: Buffer, at: number): NumberState<number> | undefined {
  if (buf.readUInt16LE(at + 30) !== slotCheck(buf, at)) throw new IndexUnusable('a slot does not match its checksum');
  const flags = buf[at + 7] as number;
  const ref = (o: number): number => {
    const v = readRef(buf, at + o);
    if (v === undefined) throw new IndexUnusable('a slot lacks an offset its flags say it has');
    return v;
  };
  const out = (flags & 1) !== 0 ? { since: ref(10), last: ref(15) } : undefined;
  const possible = (flags & 2) !== 0 ? { since: ref(20), last: ref(25), replies: buf.readUInt16LE(at + 8) } : undefined;
  return out === undefined && possible === undefined ? undefined : { ...(out !== undefined ? { out } : {}), ...(possible !== undefined ? { possible } : {}) };
}

function encodeHeader(slots: number, used: number, stamp: LogStamp, s: IndexSummary): Buffer {
  const h = Buffer.alloc(HEADER);
  MAGIC.copy(h, 0);
  h.writeUInt32LE(INDEX_VERSION, 8);
  h.writeUInt32LE(slots, 12);
  h.writeUInt32LE(used, 16);
  h.writeUInt32LE(s.optedOut, 20);
  h.writeUInt32LE(s.pending, 24);
  h.writeUInt32LE(s.damage.count, 28);
  h.writeDoubleLE(stamp.dev, 32);
  h.writeDoubleLE(stamp.ino, 40);
  h.writeDoubleLE(stamp.size, 48);
  h.writeDoubleLE(s.covered, 56);
  h.writeDoubleLE(s.lines, 64);
  h.writeDoubleLE(s.torn, 72);
  h.writeBigUInt64LE(stamp.mtimeNs, 80);
  h.writeBigUInt64LE(stamp.ctimeNs, 88);
  h[96] = s.openEnd ? 1 : 0;
  // The first lines that are not records, as many as fit, for the message that names them.
  const room = CHECK_AT - DAMAGE_AT;
  let lines = s.damage.lines.map((l) => ({ line: l.line, text: l.text.slice(0, 200) }));
  let json = Buffer.from(JSON.stringify(lines), 'utf8');
  while (json.length > room) {
    lines = lines.slice(0, -1);
    json = Buffer.from(JSON.stringify(lines), 'utf8');
  }
  h.writeUInt32LE(json.length, 100);
  json.copy(h, DAMAGE_AT);
  h.writeUInt32LE(fnv(h, 0, CHECK_AT), CHECK_AT);
  return h;
}

interface Header {
  readonly slots: number;
  readonly used: number;
  readonly stamp: LogStamp;
  readonly summary: IndexSummary;
}

/**
 * The last header decoded, by its bytes: a command asks an index several times (its totals, its
 * damage, a look-up), each time opening it again, and the checksum of 4 KB is most of an open.
 * The same bytes decode the same; the file's size is checked against them each time.
 */
let lastHeader: { readonly bytes: Buffer; readonly header: Header } | undefined;

function decodeHeader(h: Buffer, fileSize: number): Header {
  const known = lastHeader !== undefined && h.equals(lastHeader.bytes) ? lastHeader.header : undefined;
  const header = known ?? decodeNew(h);
  if (fileSize < HEADER + header.slots * SLOT) throw new IndexUnusable('cut short');
  if (known === undefined) lastHeader = { bytes: Buffer.from(h), header };
  return header;
}

function decodeNew(h: Buffer): Header {
  if (h.length < HEADER || !h.subarray(0, 8).equals(MAGIC)) throw new IndexUnusable('not an opt-out index');
  if (h.readUInt32LE(8) !== INDEX_VERSION) throw new IndexUnusable('an index of another format');
  if (h.readUInt32LE(CHECK_AT) !== fnv(h, 0, CHECK_AT)) throw new IndexUnusable('the header does not match its checksum');
  const slots = h.readUInt32LE(12);
  if (slots < 1 || (slots & (slots - 1)) !== 0) throw new IndexUnusable('cut short');
  const damageLength = h.readUInt32LE(100);
  let damageLines: IndexedBadLine[];
  try {
    damageLines = JSON.parse(h.toString('utf8', DAMAGE_AT, DAMAGE_AT + damageLength)) as IndexedBadLine[];
  } catch {
    throw new IndexUnusable('the header does not hold its damage');
  }
  return {
    slots,
    used: h.readUInt32LE(16),
    stamp: { dev: h.readDoubleLE(32), ino: h.readDoubleLE(40), size: h.readDoubleLE(48), mtimeNs: h.readBigUInt64LE(80), ctimeNs: h.readBigUInt64LE(88) },
    summary: {
      covered: h.readDoubleLE(56),
      lines: h.readDoubleLE(64),
      torn: h.readDoubleLE(72),
      openEnd: h[96] === 1,
      optedOut: h.readUInt32LE(20),
      pending: h.readUInt32LE(24),
      damage: { count: h.readUInt32LE(28), lines: damageLines },
    },
  };
}

/** Reads `buf.length` bytes at `position` (fewer at the end of the file); returns how many. */
export function readAt(fd: number, buf: Buffer, position: number): number {
  let got = 0;
  while (got < buf.length) {
    const n = readSync(fd, buf, got, buf.length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got;
}

function writeAt(fd: number, buf: Buffer, position: number): void {
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off, position + off);
}

/** The slots a table for `numbers` numbers has: at most MAX_LOAD of them used, at least 1,024. */
export function slotsFor(numbers: number): number {
  let slots = 1024;
  while (numbers > slots * MAX_LOAD * 0.75) slots *= 2;
  return slots;
}

/** A table being made in memory (twice as large whenever it fills), written whole by `write`. */
export class IndexBuilder {
  #slots: number;
  #buf: Buffer;
  #used = 0;

  constructor(numbers = 0) {
    this.#slots = slotsFor(numbers);
    this.#buf = Buffer.alloc(this.#slots * SLOT);
  }

  #find(key: number): number {
    const mask = this.#slots - 1;
    for (let i = slotOf(key, mask); ; i = (i + 1) & mask) {
      const k = readKey(this.#buf, i * SLOT);
      if (k === key || k === 0) return i;
    }
  }

  get(number: string): NumberState<number> | undefined {
    const key = keyOf(number);
    const i = this.#find(key);
    return readKey(this.#buf, i * SLOT) === key ? decodeSlot(this.#buf, i * SLOT) : undefined;
  }

  flags(key: number): number {
    const i = this.#find(key);
    return readKey(this.#buf, i * SLOT) === key ? (this.#buf[i * SLOT + 7] as number) & (OPTED_OUT | POSSIBLE) : 0;
  }

  set(number: string, s: NumberState<number> | undefined): void {
    const key = keyOf(number);
    let i = this.#find(key);
    if (readKey(this.#buf, i * SLOT) === 0) {
      if (this.#used + 1 > this.#slots * MAX_LOAD) {
        this.#grow();
        i = this.#find(key);
      }
      this.#used++;
    }
    encodeSlot(this.#buf, i * SLOT, key, s);
  }

  #grow(): void {
    const old = this.#buf;
    const oldSlots = this.#slots;
    this.#slots *= 2;
    this.#buf = Buffer.alloc(this.#slots * SLOT);
    for (let i = 0; i < oldSlots; i++) {
      const key = readKey(old, i * SLOT);
      if (key !== 0) old.copy(this.#buf, this.#find(key) * SLOT, i * SLOT, (i + 1) * SLOT);
    }
  }

  keys(flags: number, visit: (key: number) => void): void {
    for (let i = 0; i < this.#slots; i++) if (((this.#buf[i * SLOT + 7] as number) & flags) !== 0) visit(readKey(this.#buf, i * SLOT));
  }

  *entries(): Generator<[string, NumberState<number> | undefined]> {
    for (let i = 0; i < this.#slots; i++) {
      const key = readKey(this.#buf, i * SLOT);
      if (key !== 0) yield [numberOf(key), decodeSlot(this.#buf, i * SLOT)];
    }
  }

  /** Writes the index to `path` (aside, flushed, renamed into place). */
  write(path: string, stamp: LogStamp, summary: IndexSummary): void {
    // Not node:crypto: a send would load it at start for this name alone.
    const tmp = `${path}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}.new`;
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeAt(fd, encodeHeader(this.#slots, this.#used, stamp, summary), 0);
      writeAt(fd, this.#buf, HEADER);
      fdatasyncSync(fd);
    } catch (err) {
      closeSync(fd);
      rmSync(tmp, { force: true });
      throw err;
    }
    closeSync(fd);
    renameSync(tmp, path);
  }
}

/** An index on disk, open for lookups (and, under the store's lock, changes). */
export class StoreIndex {
  readonly path: string;
  readonly #fd: number;
  #header: Header;
  #chunk: Buffer | undefined;

  private constructor(path: string, fd: number, header: Header) {
    this.path = path;
    this.#fd = fd;
    this.#header = header;
  }

  /** The index at `path`; undefined when there is none. IndexUnusable when it is not one this msgr can use. */
  static open(path: string, mode: 'r' | 'r+' = 'r'): StoreIndex | undefined {
    let fd: number;
    try {
      fd = openSync(path, mode);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    try {
      const h = Buffer.alloc(HEADER);
      readAt(fd, h, 0);
      return new StoreIndex(path, fd, decodeHeader(h, fstatSync(fd).size));
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  get stamp(): LogStamp {
    return this.#header.stamp;
  }

  get summary(): IndexSummary {
    return this.#header.summary;
  }

  close(): void {
    closeSync(this.#fd);
  }

  /** The slot of `key`: its index, and its bytes (empty when the number is not in the table). */
  #find(key: number): { index: number; slot: Buffer; found: boolean } {
    const { slots } = this.#header;
    const mask = slots - 1;
    // One buffer for every look-up of this index: the slot handed back is a copy.
    this.#chunk ??= Buffer.alloc(Math.min(slots, 128) * SLOT);
    const chunk = this.#chunk;
    let i = slotOf(key, mask);
    // A number's probe ends within a few slots (a table at most MAX_LOAD full): read those first,
    // then more at a time (a bulk run asks this for every row: bulk/send-pass/opt-outs.ts StoreAtStart).
    let want = Math.min(slots, 16);
    for (let seen = 0; seen < slots; ) {
      const n = Math.min(want, chunk.length / SLOT, slots - i);
      want *= 8;
      const got = readAt(this.#fd, chunk.subarray(0, n * SLOT), HEADER + i * SLOT);
      if (got < n * SLOT) throw new IndexUnusable('cut short');
      for (let j = 0; j < n; j++, seen++) {
        const k = readKey(chunk, j * SLOT);
        if (k === key || k === 0) return { index: i + j, slot: Buffer.from(chunk.subarray(j * SLOT, (j + 1) * SLOT)), found: k === key };
      }
      i = (i + n) & mask;
    }
    throw new IndexUnusable('the table is full');
  }

  /** What the index says of `number`: where its changes that count are; undefined: nothing. */
  get(number: string): NumberState<number> | undefined {
    const { slot, found } = this.#find(keyOf(number));
    return found ? decodeSlot(slot, 0) : undefined;
  }

  /**
   * The flags of a number, by its digits (keyOf): OPTED_OUT, POSSIBLE, 0 when it has none; its
   * slot's checksum checked, its state not decoded (a bulk run asks this for every row).
   */
  flags(key: number): number {
    const { slot, found } = this.#find(key);
    if (!found) return 0;
    if (slot.readUInt16LE(30) !== slotCheck(slot, 0)) throw new IndexUnusable('a slot does not match its checksum');
    return (slot[7] as number) & (OPTED_OUT | POSSIBLE);
  }

  /** The table read in runs of slots: each run's bytes and how many slots it holds. */
  *#runs(): Generator<{ chunk: Buffer; n: number }> {
    const { slots } = this.#header;
    const chunk = Buffer.alloc(Math.min(slots, 32_768) * SLOT);
    for (let i = 0; i < slots; ) {
      const n = Math.min(chunk.length / SLOT, slots - i);
      const got = readAt(this.#fd, chunk.subarray(0, n * SLOT), HEADER + i * SLOT);
      if (got < n * SLOT) throw new IndexUnusable('cut short');
      yield { chunk, n };
      i += n;
    }
  }

  /** Every number the table holds, with its state (a number taken off the store: undefined). */
  *entries(): Generator<[string, NumberState<number> | undefined]> {
    for (const { chunk, n } of this.#runs()) {
      for (let j = 0; j < n; j++) {
        const key = readKey(chunk, j * SLOT);
        if (key !== 0) yield [numberOf(key), decodeSlot(chunk, j * SLOT)];
      }
    }
  }

  /**
   * The numbers (as their digits: keyOf) whose slot has any of `flags` (1: opted out, 2: a
   * possible opt-out), slot after slot: no string made, no state decoded but the flags.
   */
  keys(flags: number, visit: (key: number) => void): void {
    for (const { chunk, n } of this.#runs()) {
      for (let j = 0; j < n; j++) {
        const at = j * SLOT;
        if (((chunk[at + 7] as number) & flags) === 0) continue;
        if (chunk.readUInt16LE(at + 30) !== slotCheck(chunk, at)) throw new IndexUnusable('a slot does not match its checksum');
        visit(readKey(chunk, at));
      }
    }
  }

  /**
   * Writes the changed numbers' states in place, flushes them, then the header that says the
   * index now describes the store as `stamp` (under the store's lock). False when the table has
   * no room for the new numbers: the caller makes a larger one.
   */
  update(changed: ReadonlyMap<string, NumberState<number> | undefined>, stamp: LogStamp, summary: IndexSummary): boolean {
    let used = this.#header.used;
    for (const [number, s] of changed) {
      const key = keyOf(number);
      const at = this.#find(key);
      if (!at.found) {
        // The header still says the older store: a caller that makes a larger table leaves
        // nothing half-changed behind, nor does a crash now.
        if (used + 1 > this.#header.slots * MAX_LOAD) return false;
        used++;
      }
      encodeSlot(at.slot, 0, key, s);
      writeAt(this.#fd, at.slot, HEADER + at.index * SLOT);
    }
    if (changed.size > 0) fdatasyncSync(this.#fd);
    this.#header = { slots: this.#header.slots, used, stamp, summary };
    writeAt(this.#fd, encodeHeader(this.#header.slots, used, stamp, summary), 0);
    fdatasyncSync(this.#fd);
    return true;
  }
}
