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

  /**
   * Past the capacity, the oldest tenth goes in one sweep. Evicting one key per insert
   * (`keys().next()`) walks over every entry deleted before it still in the Map's table: 100,000
   * inserts into a full cache took 1.7–6.2 s instead of ~30 ms, and the sandbox's CPU per
   * request doubled after its first 100,000 keys.
   */
  set(key: string, entry: IdempotencyEntry): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    if (this.#entries.size <= this.#capacity) return;
    let evict = this.#entries.size - this.#capacity + Math.floor(this.#capacity / 10);
    for (const oldest of this.#entries.keys()) {
      if (evict-- <= 0) break;
      this.#entries.delete(oldest);
    }
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }
}
