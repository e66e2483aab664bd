// Which events `msgr listen` has recorded already (docs/events.md: "Duplicates"). Providers send
// an event again when its answer was lost or late, so the same event must be recorded once:
// known by its event id (with its status and part: some providers' `id` is the message's, shared
// by its receipts), else by a provider's idempotency header, else by the same body within a
// window. Bounded: the newest MAX_KEYS ids and headers, and the bodies of the last window.
import { createHash } from 'node:crypto';
import type { EventSummary } from './fields.js';

/** Headers providers use to name one delivery of an event (Standard Webhooks, Svix, others). */
export const IDEMPOTENCY_HEADERS: readonly string[] = ['idempotency-key', 'x-idempotency-key', 'webhook-id', 'svix-id', 'x-webhook-id', 'x-event-id'];

export const DEFAULT_WINDOW_MS = 10 * 60_000;
export const MAX_KEYS = 200_000;

/** An earlier record of a key: `durable` settles once it is on disk (undefined: it is). */
export interface Seen {
  readonly durable: Promise<void> | undefined;
}

const ON_DISK: Seen = { durable: undefined };

export function dedupKey(summary: EventSummary, headers: Readonly<Record<string, string | string[] | undefined>>, bytes: Uint8Array, item: { readonly index: number } | undefined): string {
  if (summary.eventId !== undefined) {
    return `id:${summary.eventId}${summary.status !== undefined ? `|${summary.status}` : ''}${summary.part !== undefined ? `|p${summary.part.index}` : ''}`;
  }
  for (const name of IDEMPOTENCY_HEADERS) {
    const v = headers[name];
    const value = Array.isArray(v) ? v[0] : v;
    if (value !== undefined && value !== '') return `hdr:${value}${item !== undefined ? `#${item.index}` : ''}`;
  }
  return `body:${createHash('sha256').update(bytes).digest('base64url')}`;
}

export class Dedup {
  readonly #windowMs: number;
  readonly #capacity: number;
  // Only the time each key was recorded (epoch ms): 200,000 keys are their strings and a number
  // each, about 20 MB (docs/performance-history.md: "Receiving events").
  /** id: and hdr: keys, oldest first (a Map keeps insertion order). */
  readonly #ids = new Map<string, number>();
  /** body: keys, in the order they came, so the expired ones are at the front. */
  readonly #bodies = new Map<string, number>();
  /** Keys whose record is not on disk yet, and the flush that puts it there. */
  readonly #pending = new Map<string, Promise<void>>();

  constructor(windowMs = DEFAULT_WINDOW_MS, capacity = MAX_KEYS) {
    this.#windowMs = windowMs;
    this.#capacity = capacity;
  }

  get size(): number {
    return this.#ids.size + this.#bodies.size;
  }

  /** The earlier record of this key, when there is one that still counts. */
  find(key: string, nowMs: number): Seen | undefined {
    let known: boolean;
    if (key.startsWith('body:')) {
      this.#expire(nowMs);
      known = this.#bodies.has(key);
    } else {
      known = this.#ids.has(key);
    }
    if (!known) return undefined;
    const durable = this.#pending.get(key);
    return durable === undefined ? ON_DISK : { durable };
  }

  /**
   * Notes a key as recorded at `atMs`, durable once `durable` settles (undefined: on disk
   * already, as for the records read back at start, `nowMs` later).
   */
  remember(key: string, atMs: number, durable?: Promise<void>, nowMs = atMs): void {
    if (durable !== undefined) {
      this.#pending.set(key, durable);
      const settled = (): void => {
        if (this.#pending.get(key) === durable) this.#pending.delete(key);
      };
      void durable.then(settled, settled);
    }
    if (key.startsWith('body:')) {
      if (this.#windowMs <= 0 || atMs < nowMs - this.#windowMs) return;
      this.#bodies.delete(key);
      this.#bodies.set(key, atMs);
      return;
    }
    this.#ids.delete(key);
    this.#ids.set(key, atMs);
    if (this.#ids.size > this.#capacity) {
      // The oldest tenth in one sweep (see sandbox/idempotency.ts for why not one at a time).
      let evict = this.#ids.size - this.#capacity + Math.floor(this.#capacity / 10);
      for (const k of this.#ids.keys()) {
        if (evict-- <= 0) break;
        this.#ids.delete(k);
      }
    }
  }

  /** A record that could not be written: its key is free again, so the sender's retry is recorded. */
  forget(key: string): void {
    this.#ids.delete(key);
    this.#bodies.delete(key);
    this.#pending.delete(key);
  }

  #expire(nowMs: number): void {
    for (const [k, at] of this.#bodies) {
      if (at >= nowMs - this.#windowMs) break;
      this.#bodies.delete(k);
    }
  }
}
