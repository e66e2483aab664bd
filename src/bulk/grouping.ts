// Which rows share a request when each row may have a message of its own (README:
// "Personalised messages"). Rows are given in file order with a key that is their whole request
// but the recipient (the rendered text, and the sender when it comes from a column); rows with the
// same key go into one open batch, sealed:
//   - when it holds `batchSize` rows;
//   - when its first row is `window` rows behind the row being added (so memory, and how far the
//     report has to wait, stay bounded whatever the file);
//   - at the end of the file, in the order of their first rows.
// Batches are numbered in the order they are sealed. That order depends on nothing but the keys
// and the two sizes, so the preflight (which counts the requests the journal is sized for) and
// the send pass, and every resumed run of the same file, number the same rows the same way, and
// so rebuild the same bodies under the same Idempotency-Keys.
//
// With one key for every row (one shared text) a batch is sealed only when full, so batch k is
// rows k*batchSize… as before; `window` is never below `batchSize` for that reason.

/** How far back (rows to send) a batch stays open for rows with the same message. */
export const GROUP_WINDOW = 10_000;

export interface SealedBatch<T> {
  /** The batch number: the order in which batches were sealed, from 0. */
  readonly index: number;
  readonly key: string;
  /** The position (among the rows added) of the batch's first row. */
  readonly first: number;
  readonly items: T[];
}

interface OpenBatch<T> {
  readonly key: string;
  readonly first: number;
  readonly items: T[];
}

export class Grouper<T> {
  readonly #batchSize: number;
  readonly #window: number;
  readonly #onBatch: (batch: SealedBatch<T>) => void;
  /** Open batches by key; a Map iterates in insertion order, which is the order of first rows. */
  readonly #open = new Map<string, OpenBatch<T>>();
  #added = 0;
  #sealed = 0;

  constructor(batchSize: number, onBatch: (batch: SealedBatch<T>) => void, window = GROUP_WINDOW) {
    if (!(batchSize >= 1)) throw new RangeError('batchSize must be at least 1');
    this.#batchSize = batchSize;
    this.#window = Math.max(window, batchSize);
    this.#onBatch = onBatch;
  }

  /** Batches sealed so far. */
  get sealed(): number {
    return this.#sealed;
  }

  /** Batches open now. */
  get open(): number {
    return this.#open.size;
  }

  add(key: string, item: T): void {
    const position = this.#added++;
    for (const oldest of this.#open.values()) {
      if (oldest.first > position - this.#window) break;
      this.#seal(oldest);
    }
    let batch = this.#open.get(key);
    if (batch === undefined) {
      batch = { key, first: position, items: [] };
      this.#open.set(key, batch);
    }
    batch.items.push(item);
    if (batch.items.length >= this.#batchSize) this.#seal(batch);
  }

  /** Seals every open batch, oldest first row first. */
  finish(): void {
    for (const b of [...this.#open.values()]) this.#seal(b);
  }

  #seal(b: OpenBatch<T>): void {
    this.#open.delete(b.key);
    this.#onBatch({ index: this.#sealed++, key: b.key, first: b.first, items: b.items });
  }
}
