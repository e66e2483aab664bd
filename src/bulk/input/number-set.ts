// A set of E.164 numbers held as the integer of their digits in one Float64Array (open
// addressing, linear probing). E.164 has at most 15 digits and no leading zero after the plus,
// so the integer is exact (below 2^53) and one-to-one with the number. 8 bytes a slot at a load
// of at most 0.7: 10 million numbers in 128-256 MB and no garbage for the collector, where a
// Set<string> takes ~100 bytes a number and stops at 2^24 entries (docs/campaign-input.md: "Scale").

const EMPTY = 0;
const MAX_LOAD = 0.7;

/** A set as export() hands it to another thread. */
export interface ExportedSet {
  readonly slots: Float64Array;
  readonly size: number;
  readonly values?: Uint32Array | undefined;
}

export class NumberSet {
  #slots: Float64Array;
  #size = 0;
  /** A value beside each number (addValued), from its first use; 4 bytes a slot. */
  #values: Uint32Array | undefined;

  constructor(initialCapacity = 1 << 16) {
    // Just the slots the capacity needs, not the next power of two: a set sized for 1,000,000
    // numbers with values takes 17 MB, not 25 (the preflight's set of numbers seen, at the
    // peak of a 1,000,000-row send: docs/performance-history.md, "Personalised messages").
    this.#slots = new Float64Array(Math.max(16, Math.ceil(initialCapacity / MAX_LOAD)));
  }

  get size(): number {
    return this.#size;
  }

  /** Adds the number; returns false when it was already there. */
  add(key: number): boolean {
    const i = this.#place(key);
    if (this.#slots[i] === key) return false;
    this.#slots[i] = key;
    this.#size++;
    return true;
  }

  /**
   * Adds the number with a value (a 32-bit unsigned integer); returns undefined when the number
   * was not there, else the value it was first added with (kept).
   */
  addValued(key: number, value: number): number | undefined {
    this.#values ??= new Uint32Array(this.#slots.length);
    const i = this.#place(key);
    if (this.#slots[i] === key) return this.#values[i];
    this.#slots[i] = key;
    this.#values[i] = value;
    this.#size++;
    return undefined;
  }

  has(key: number): boolean {
    return this.#slots[this.#find(key)] === key;
  }

  /** The value the number was first added with (addValued); undefined when it is not in the set. */
  get(key: number): number | undefined {
    const i = this.#find(key);
    return this.#slots[i] === key ? (this.#values?.[i] ?? 0) : undefined;
  }

  /** The slot of `key` to add it: where it is, or the empty one where it goes (room made first). */
  #place(key: number): number {
    if (key === EMPTY) throw new RangeError('0 is not a number key');
    if (this.#size + 1 > this.#slots.length * MAX_LOAD) this.#grow();
    return this.#find(key);
  }

  /** Where `key` is, or the empty slot where its probe ends. */
  #find(key: number): number {
    const slots = this.#slots;
    const n = slots.length;
    // The hash's 32 bits scaled to the slots. Past 2^53 the product is rounded, by at most 16,
    // which moves the slot at most by one and never past the end (n >= 16). The same in every
    // thread: a set exported to a worker finds its numbers there.
    let i = Math.floor((hash(key) * n) / 4294967296);
    for (;;) {
      const v = slots[i];
      if (v === EMPTY || v === key) return i;
      i = i + 1 === n ? 0 : i + 1;
    }
  }

  /** The slots (and values), to hand the set to another thread (transfer or copy their buffers). */
  export(): ExportedSet {
    return { slots: this.#slots, size: this.#size, ...(this.#values !== undefined ? { values: this.#values } : {}) };
  }

  /** A set over slots made by export() (same hash, same layout). */
  static from(data: ExportedSet): NumberSet {
    const set = new NumberSet(16);
    set.#slots = data.slots;
    set.#size = data.size;
    set.#values = data.values;
    return set;
  }

  /** Every number of the set with its value (0 for a set without values), in slot order. */
  forEach(fn: (key: number, value: number) => void): void {
    const slots = this.#slots;
    const values = this.#values;
    for (let i = 0; i < slots.length; i++) {
      const v = slots[i] as number;
      if (v !== EMPTY) fn(v, values?.[i] ?? 0);
    }
  }

  /** How many numbers of this set are in `other` too (and in `alsoIn`, when given). */
  countShared(other: NumberSet, alsoIn?: NumberSet): number {
    let n = 0;
    const slots = this.#slots;
    for (let i = 0; i < slots.length; i++) {
      const v = slots[i] as number;
      if (v !== EMPTY && other.has(v) && (alsoIn === undefined || alsoIn.has(v))) n++;
    }
    return n;
  }

  /** Up to `max` of the numbers this set shares with `other`. */
  sharedKeys(other: NumberSet, max: number): number[] {
    const out: number[] = [];
    const slots = this.#slots;
    for (let i = 0; i < slots.length && out.length < max; i++) {
      const v = slots[i] as number;
      if (v !== EMPTY && other.has(v)) out.push(v);
    }
    return out;
  }

  #grow(): void {
    const old = this.#slots;
    const oldValues = this.#values;
    this.#slots = new Float64Array(old.length * 2);
    this.#size = 0;
    if (oldValues === undefined) {
      for (const v of old) if (v !== EMPTY) this.add(v);
      return;
    }
    this.#values = new Uint32Array(this.#slots.length);
    for (let i = 0; i < old.length; i++) if (old[i] !== EMPTY) this.addValued(old[i] as number, oldValues[i] as number);
  }
}

function hash(key: number): number {
  const lo = key >>> 0;
  const hi = (key / 4294967296) >>> 0;
  let h = Math.imul(lo ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return (h ^ (h >>> 13)) >>> 0;
}

/** 32-bit FNV-1a of a text's UTF-16 code units: a message's fingerprint beside its number. */
export function textHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * 52 bits of a text (two 32-bit FNV-1a hashes of it, from different starts), never 0: a key for
 * a NumberSet of texts. Two texts share one by a chance of 1 in 2^52.
 */
export function textHash52(text: string): number {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193);
  }
  b ^= b >>> 15;
  b = Math.imul(b, 0x2c1b3c6d);
  b ^= b >>> 13;
  return (a >>> 0) * 0x100000 + ((b >>> 0) >>> 12) + 1;
}

/** `+447911123456` → 447911123456. The caller passes normalised E.164 only. */
export function numberKey(e164: string): number {
  // The digits by hand (a million rows: ~5x cheaper than Number()); anything else, Number()
  // (which reads the leading plus as a sign).
  const n = e164.length;
  if (n < 2 || n > 16 || e164.charCodeAt(0) !== 0x2b) return Number(e164);
  let key = 0;
  for (let i = 1; i < n; i++) {
    const d = e164.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return Number(e164);
    key = key * 10 + d;
  }
  return key;
}

/**
 * The numbers with a duplicate row kept for the report (8 bytes each): the send pass remembers
 * the first line of each. A file with more duplicated numbers names the first line for these only.
 */
export const DUPLICATE_KEYS = 100_000;
