// The sandbox posting its events to a webhook URL (docs/events.md: "The sandbox's events"), the
// way a provider does: each event as one JSON POST, retried with backoff while the receiver does
// not answer 2xx, for at most `retryForMs` from its first attempt, then given up and counted.
// One queue ordered by due time (a binary heap), a fixed number of requests in flight, and the
// events kept as their JSON text: a campaign of a million recipients is a few hundred megabytes
// at most, bounded by MAX_QUEUED (beyond it events are dropped, counted and said).
import { closeSync, openSync, writeSync } from 'node:fs';
import type { Http } from '../http-interface.js';
import type { SandboxEvent } from './own-events.js';
import { maskUrl } from '../output/sanitize.js';

export const DEFAULT_RETRY_FOR_MS = 10 * 60_000;
export const MAX_QUEUED = 1_000_000;
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 30_000;
const ATTEMPT_TIMEOUT_MS = 10_000;

export interface WebhookOptions {
  readonly url: string;
  /** The Context's HTTP, through which every event is posted (docs/design.md: "HTTP"). */
  readonly http: () => Promise<Http>;
  /** Give an event up this long after its first attempt. */
  readonly retryForMs?: number;
  /** Requests in flight at once. */
  readonly concurrency?: number;
  /** Appends one JSON line per event the receiver acknowledged (2xx). */
  readonly record?: string;
  readonly userAgent?: string;
  /** Lines for people (failures and give-ups, at most one a second). */
  readonly log?: (line: string) => void;
}

export interface WebhookStats {
  queued: number;
  delivered: number;
  retries: number;
  gaveUp: number;
  dropped: number;
}

interface Item {
  due: number;
  readonly firstAt: number;
  attempts: number;
  readonly id: string;
  readonly type: string;
  readonly body: string;
}

/** A binary min-heap of items by due time. */
class Heap {
  readonly #a: Item[] = [];
  get size(): number {
    return this.#a.length;
  }
  peek(): Item | undefined {
    return this.#a[0];
  }
  push(x: Item): void {
    const a = this.#a;
    a.push(x);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if ((a[p] as Item).due <= x.due) break;
      a[i] = a[p] as Item;
      i = p;
    }
    a[i] = x;
  }
  pop(): Item | undefined {
    const a = this.#a;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const r = l + 1;
        const c = r < a.length && (a[r] as Item).due < (a[l] as Item).due ? r : l;
        if ((a[c] as Item).due >= last.due) break;
        a[i] = a[c] as Item;
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
  drain(): Item[] {
    return this.#a.splice(0);
  }
}

export class WebhookSender {
  readonly #o: WebhookOptions;
  readonly #queue = new Heap();
  readonly #stats: WebhookStats = { queued: 0, delivered: 0, retries: 0, gaveUp: 0, dropped: 0 };
  readonly #inFlight = new Set<AbortController>();
  #timer: NodeJS.Timeout | undefined;
  #timerDue = Infinity;
  #recordFd: number | undefined;
  #closed = false;
  /** Send everything queued now, whatever its due time (an in-process sandbox closing). */
  #hurry = false;
  #lastLog = 0;
  #unlogged = 0;
  #idle: Array<() => void> = [];

  readonly #url: URL;

  constructor(options: WebhookOptions) {
    this.#o = options;
    this.#url = new URL(options.url);
    if (options.record !== undefined) this.#recordFd = openSync(options.record, 'a', 0o600);
  }

  stats(): Readonly<WebhookStats> {
    return { ...this.#stats, queued: this.#queue.size + this.#inFlight.size };
  }

  /** Queues events `afterMs` from now. */
  schedule(events: ReadonlyArray<{ readonly afterMs: number; readonly event: SandboxEvent }>, nowMs = Date.now()): void {
    if (this.#closed) return;
    for (const { afterMs, event } of events) {
      if (this.#queue.size >= MAX_QUEUED) {
        this.#stats.dropped++;
        this.#say(`webhook queue full (${MAX_QUEUED} events): event ${event.id} dropped`);
        continue;
      }
      const due = nowMs + afterMs;
      this.#queue.push({ due, firstAt: due, attempts: 0, id: event.id, type: event.type, body: JSON.stringify(event) });
    }
    this.#pump();
  }

  #pump(): void {
    const limit = this.#o.concurrency ?? 16;
    const now = Date.now();
    while (this.#inFlight.size < limit) {
      const next = this.#queue.peek();
      // Hurrying, a new event goes now; a retry still waits its backoff.
      if (next === undefined || ((!this.#hurry || next.attempts > 0) && next.due > now)) break;
      this.#queue.pop();
      void this.#post(next);
    }
    const next = this.#queue.peek();
    if (next === undefined || this.#inFlight.size >= limit) {
      if (this.#queue.size === 0 && this.#inFlight.size === 0) for (const f of this.#idle.splice(0)) f();
      return;
    }
    if (this.#timer !== undefined && this.#timerDue <= next.due) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerDue = next.due;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#timerDue = Infinity;
      this.#pump();
    }, Math.max(0, next.due - now));
    this.#timer.unref();
  }

  async #post(item: Item): Promise<void> {
    const controller = new AbortController();
    this.#inFlight.add(controller);
    item.attempts++;
    let status: number | undefined;
    let why = '';
    try {
      const { hook } = await this.#o.http();
      const a = await hook({
        url: this.#url,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': this.#o.userAgent ?? 'msgr-sandbox', 'webhook-id': item.id },
        body: item.body,
        timeoutMs: ATTEMPT_TIMEOUT_MS,
        signal: controller.signal,
      });
      if (a.kind === 'answered') {
        status = a.status;
        why = `HTTP ${status}`;
      } else {
        why = a.timedOut || a.abandoned ? 'no answer' : a.reason;
      }
    } catch (err) {
      // No HTTP to post with (a Context that gives none): retried, then given up and counted.
      why = err instanceof Error ? err.message : String(err);
    } finally {
      this.#inFlight.delete(controller);
    }
    const now = Date.now();
    if (status !== undefined && status >= 200 && status < 300) {
      this.#stats.delivered++;
      if (this.#recordFd !== undefined) {
        // Written before the event counts as delivered: the kill -9 test compares it with the listener's file.
        const line = `{"at":"${new Date(now).toISOString()}","id":"${item.id}","type":"${item.type}","attempts":${item.attempts},"status":${status},"event":${item.body}}\n`;
        try {
          const buf = Buffer.from(line);
          let off = 0;
          while (off < buf.length) off += writeSync(this.#recordFd, buf, off, buf.length - off);
        } catch {
          // The record is for tests and people; the event was delivered all the same.
        }
      }
    } else if (this.#closed && !this.#hurry) {
      // Stopping: not retried.
    } else if (now - item.firstAt >= (this.#o.retryForMs ?? DEFAULT_RETRY_FOR_MS)) {
      this.#stats.gaveUp++;
      this.#say(`webhook gave up on ${item.id} (${item.type}) after ${item.attempts} attempts: ${why}`);
    } else {
      this.#stats.retries++;
      item.due = now + Math.round(Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (item.attempts - 1)) * (0.75 + Math.random() * 0.5));
      this.#queue.push(item);
      this.#say(`webhook ${maskUrl(this.#o.url, { hidePath: true })}: ${why} for ${item.id}; retrying (attempt ${item.attempts + 1})`);
    }
    this.#pump();
  }

  /** At most one line a second; the lines left out are counted in the next. */
  #say(line: string): void {
    const now = Date.now();
    if (now - this.#lastLog < 1_000) {
      this.#unlogged++;
      return;
    }
    this.#lastLog = now;
    const more = this.#unlogged > 0 ? ` (and ${this.#unlogged} more webhook lines)` : '';
    this.#unlogged = 0;
    this.#o.log?.(`${new Date(now).toISOString()} ${line}${more}`);
  }

  /**
   * Stops. With `flushMs` > 0 (an in-process sandbox whose command is ending), every queued event
   * is sent now, retried within that time; without, what is queued is dropped. Returns the
   * events that were never acknowledged.
   */
  async close(flushMs = 0): Promise<number> {
    if (flushMs > 0 && !this.#closed) {
      this.#hurry = true;
      const idle = new Promise<void>((resolve) => this.#idle.push(resolve));
      this.#pump();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([idle, new Promise<void>((resolve) => (timer = setTimeout(resolve, flushMs)))]);
      clearTimeout(timer);
    }
    this.#closed = true;
    this.#hurry = false;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    const left = this.#queue.drain().length + this.#inFlight.size;
    for (const c of this.#inFlight) c.abort();
    if (this.#recordFd !== undefined) closeSync(this.#recordFd);
    this.#recordFd = undefined;
    return left;
  }
}
