// Which rows share a request when each row may have a message of its own (docs/personalised.md:
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
  /** Rows in the batch. */
  readonly count: number;
  /** The items added with the rows (none kept by `countOnly`). */
  readonly items: T[];
}

interface OpenBatch<T> {
  /** -1 while open. */
  index: number;
  readonly key: string;
  readonly first: number;
  count: number;
  /** Handed over when sealed: the queue may hold the batch a while longer, never its rows. */
  items: T[];
}

const NO_ITEMS: never[] = [];

/**
 * A string of its own (a message key, or a set-aside row's number kept for the report). The send
 * pass reads each key as a slice of the 64 KiB spool chunk its row came from, and in V8 a slice
 * keeps its whole parent alive: every open batch, and every sealed one until its request is
 * answered, held a chunk, ~2 MB at any time that each young-generation collection copied and the
 * old generation then kept. A string joined to
 * another and sliced back is flattened into a new string first, so it refers to nothing else.
 * Measured (the peak of a 1,000,000-row send, memory on Node 24 and 26): docs/performance.md:
 * "Why the misses".
 */
export function ownCopy(key: string): string {
  return ` ${key}`.slice(1);
}

export class Grouper<T> {
  readonly #batchSize: number;
  readonly #window: number;
  readonly #onBatch: (batch: SealedBatch<T>) => void;
  /** Open batches by key. */
  readonly #open = new Map<string, OpenBatch<T>>();
  /**
   * Batches in the order of their first rows, sealed ones skipped as they reach the head. (Not
   * the Map's own order: iterating a Map from its start walks every entry deleted since it was
   * last rehashed, which made each add cost more the longer the file.)
   */
  #queue: Array<OpenBatch<T>> = [];
  #head = 0;
  #added = 0;
  #sealed = 0;

  readonly #keepItems: boolean;

  /** `countOnly`: batches are counted and numbered, their items not kept (the preflight). */
  constructor(batchSize: number, onBatch: (batch: SealedBatch<T>) => void, window = GROUP_WINDOW, countOnly = false) {
    if (!(batchSize >= 1)) throw new RangeError('batchSize must be at least 1');
    this.#batchSize = batchSize;
    this.#window = Math.max(window, batchSize);
    this.#onBatch = onBatch;
    this.#keepItems = !countOnly;
  }

  /** How many rows back a batch stays open, at most: a row is sealed within this many more. */
  get window(): number {
    return this.#window;
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
    const limit = position - this.#window;
    const queue = this.#queue;
    while (this.#head < queue.length) {
      const oldest = queue[this.#head] as OpenBatch<T>;
      if (oldest.index === -1) {
        if (oldest.first > limit) break;
        this.#seal(oldest);
      }
      this.#head++;
    }
    if (this.#head > 1024 && this.#head * 2 > queue.length) {
      this.#queue = queue.slice(this.#head);
      this.#head = 0;
    }
    let batch = this.#open.get(key);
    if (batch === undefined) {
      // Only the send pass keeps items, and only its keys are slices (the preflight's are
      // rendered from the row's fields): a copy there would be a string a row for nothing.
      if (this.#keepItems) key = ownCopy(key);
      batch = { index: -1, key, first: position, count: 0, items: this.#keepItems ? [] : NO_ITEMS };
      this.#open.set(key, batch);
      this.#queue.push(batch);
    }
    if (this.#keepItems) batch.items.push(item);
    if (++batch.count >= this.#batchSize) this.#seal(batch);
  }

  /** Seals every open batch, oldest first row first. */
  finish(): void {
    for (let i = this.#head; i < this.#queue.length; i++) {
      const b = this.#queue[i] as OpenBatch<T>;
      if (b.index === -1) this.#seal(b);
    }
    this.#queue = [];
    this.#head = 0;
  }

  #seal(b: OpenBatch<T>): void {
    b.index = this.#sealed++;
    this.#open.delete(b.key);
    const items = b.items;
    b.items = NO_ITEMS;
    this.#onBatch({ index: b.index, key: b.key, first: b.first, count: b.count, items });
  }
}
