// Idempotency-Key handling, following draft-ietf-httpapi-idempotency-key-header: the same key
// with the same body replays the first answer; the same key with another body is 422; a key
// whose first request is still being answered is 409. Entries hold a body hash and the batch
// token, never the response: the 202 body is rebuilt from the replayed (identical) request, so
// 100,000 keys cost a few megabytes whatever the batch sizes.

export type IdempotencyEntry =
  | { readonly state: 'pending'; readonly hash: string }
  | { readonly state: 'done'; readonly hash: string; readonly token: string; readonly receivedAt: string };

export const IDEMPOTENCY_CACHE_SIZE = 100_000;
/** Printable ASCII, 1 to 255 characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e][\x20-\x7e]{0,254}$/;

/** A map in insertion order used as an LRU: a hit moves the key to the end. */
export class IdempotencyCache {
  readonly #entries = new Map<string, IdempotencyEntry>();
  readonly #capacity: number;

  constructor(capacity = IDEMPOTENCY_CACHE_SIZE) {
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): IdempotencyEntry | undefined {
    const entry = this.#entries.get(key);
    if (entry !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    return entry;
  }

  /** The entry without touching its place in the LRU order. */
  peek(key: string): IdempotencyEntry | undefined {
    return this.#entries.get(key);
  }

  set(key: string, entry: IdempotencyEntry): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    while (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      this.#entries.delete(oldest.value);
    }
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}
