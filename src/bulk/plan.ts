// The preflight's verdict per data row, kept on disk between the two passes (issue: "Scale":
// two passes, nothing per row in memory): one float64 per row, the E.164 number as an integer
// when the row is to be sent, or a negative code saying why it is not. The send pass reads it
// in step with the CSV, so numbers are checked (the slow part) and de-duplicated only once.
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';

export const PlanCode = {
  invalid: -1,
  duplicate: -2,
  excluded: -3,
} as const;

const BLOCK = 8192;

export class PlanWriter {
  readonly #fd: number;
  readonly #buf = new Float64Array(BLOCK);
  #n = 0;
  rows = 0;

  constructor(readonly path: string) {
    this.#fd = openSync(path, 'w', 0o600);
  }

  push(value: number): void {
    this.#buf[this.#n++] = value;
    this.rows++;
    if (this.#n === BLOCK) this.#flush();
  }

  #flush(): void {
    const bytes = new Uint8Array(this.#buf.buffer, 0, this.#n * 8);
    let off = 0;
    while (off < bytes.length) off += writeSync(this.#fd, bytes, off, bytes.length - off);
    this.#n = 0;
  }

  close(): void {
    this.#flush();
    closeSync(this.#fd);
  }
}

/** Reads the plan in row order. */
export class PlanReader {
  readonly #fd: number;
  readonly #buf = new Float64Array(BLOCK);
  #start = 0;
  #len = 0;

  constructor(readonly path: string) {
    this.#fd = openSync(path, 'r');
  }

  /** The value for row `index`; rows must be asked for in increasing order. */
  get(index: number): number {
    if (index < this.#start || index >= this.#start + this.#len) this.#load(index);
    return this.#buf[index - this.#start] ?? PlanCode.invalid;
  }

  #load(index: number): void {
    const bytes = new Uint8Array(this.#buf.buffer);
    const read = readSync(this.#fd, bytes, 0, bytes.length, index * 8);
    this.#start = index;
    this.#len = Math.floor(read / 8);
  }

  close(): void {
    closeSync(this.#fd);
  }
}

export function removePlan(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
