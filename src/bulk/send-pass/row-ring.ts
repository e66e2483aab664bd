// The strings of the rows the grouping holds open (bulk/compose/grouping.ts), kept as bytes
// outside the JavaScript heap until their batch is sealed. A row waits there up to a window of
// rows; held as a string, each was a slice of the 64 KiB spool chunk it was read from and kept
// that chunk alive. Every young-generation collection then copied ~1.5–2.4 MB of them, and V8
// grows the young generation by the bytes that survive its collections: to 64 MB a semi-space on
// Node 24 over a 1,000,000-row send (docs/performance-history.md: "Personalised messages").
//
// Each slot has a fixed width; a string is stored as bytes only when it is ASCII and fits (recipient
// JSON and E.164 numbers are, as msgr writes them), else kept as it is, in a map beside.

export class RowRing {
  readonly #bytes: Buffer;
  readonly #width: number;
  /** Bytes in each slot; -1 when the slot's string is in #long. */
  readonly #lengths: Int32Array;
  readonly #long = new Map<number, string>();

  constructor(slots: number, width: number) {
    this.#width = width;
    this.#bytes = Buffer.alloc(slots * width);
    this.#lengths = new Int32Array(slots);
  }

  set(slot: number, s: string): void {
    if (this.#lengths[slot] === -1) this.#long.delete(slot);
    const at = slot * this.#width;
    // With room for s and a character of four bytes more, a write is never cut short; one byte
    // a character is then ASCII (any other character takes two or more in UTF-8).
    if (s.length <= this.#width - 4) {
      const n = this.#bytes.write(s, at, this.#width, 'utf8');
      if (n === s.length) {
        this.#lengths[slot] = n;
        return;
      }
    }
    this.#lengths[slot] = -1;
    this.#long.set(slot, s);
  }

  get(slot: number): string {
    const n = this.#lengths[slot] as number;
    if (n === -1) return this.#long.get(slot) as string;
    const at = slot * this.#width;
    return this.#bytes.toString('latin1', at, at + n);
  }
}
