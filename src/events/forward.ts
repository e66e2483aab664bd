// Forwarding events to a local app (docs/events.md: "Forwarding and replay"). Each event goes as
// it came: its method, its sub-path and query under the app's URL, its content type and headers
// (without secrets: they were never saved) and its very body, plus X-Msgr-Event-Id so the app
// can drop a second copy. `msgr listen --forward-to` follows the events file from a cursor kept
// beside it, so an app that is down, slow or failing only delays its events: they are on disk,
// and go out in order once it answers 2xx, after a restart of the listener too (at least once).
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { asRecord, type EventRecord } from './records.js';
import { readLinesFrom } from './read.js';

export const FORWARD_TIMEOUT_MS = 10_000;
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;
/** A 4xx the app gives the same event this many times in a row is taken as the app's final word. */
export const REFUSALS_BEFORE_SKIP = 3;

export interface ForwardAttempt {
  readonly status?: number;
  /** A connection that failed or timed out (no status). */
  readonly error?: string;
  readonly ms: number;
}

/** The URL an event goes to: the app's URL, then the event's own sub-path and query. */
export function forwardUrl(base: URL, record: Pick<EventRecord, 'path' | 'query'>): string {
  const url = new URL(base.href);
  if (record.path !== '/' && record.path !== '') url.pathname = `${url.pathname.replace(/\/$/, '')}${record.path}`;
  if (record.query !== undefined) url.search = url.search === '' ? record.query : `${url.search.slice(1)}&${record.query}`;
  return url.href;
}

/** Sends one saved event to the app, once. */
export async function forwardOnce(record: EventRecord, base: URL, timeoutMs = FORWARD_TIMEOUT_MS): Promise<ForwardAttempt> {
  const started = performance.now();
  const headers: Record<string, string> = { ...record.headers, 'x-msgr-event-id': record.id, 'x-msgr-received-at': record.receivedAt };
  if (record.contentType !== undefined) headers['content-type'] = record.contentType;
  const hasBody = record.method !== 'GET' && record.method !== 'HEAD';
  const body = !hasBody ? undefined : record.bodyBase64 !== undefined ? Buffer.from(record.bodyBase64, 'base64') : (record.body ?? '');
  try {
    const res = await fetch(forwardUrl(base, record), { method: record.method, headers, ...(body !== undefined ? { body } : {}), redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer().catch(() => undefined);
    return { status: res.status, ms: performance.now() - started };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    const why = e.name === 'TimeoutError' ? `no answer in ${timeoutMs / 1000} s` : (e.cause?.code ?? e.message);
    return { error: why, ms: performance.now() - started };
  }
}

/** Whether the app may take the event on another try: no answer, 5xx, 408 or 429. */
export function worthRetrying(a: ForwardAttempt): boolean {
  return a.status === undefined || a.status >= 500 || a.status === 408 || a.status === 429;
}

export function isDelivered(a: ForwardAttempt): boolean {
  return a.status !== undefined && a.status >= 200 && a.status < 300;
}

/** Backoff before attempt n+1 (n from 1), jittered: 0.5 s, 1 s, 2 s … up to 30 s. */
export function backoffMs(attempt: number): number {
  const base = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (attempt - 1));
  return Math.round(base * (0.75 + Math.random() * 0.5));
}

export interface ForwardResult extends ForwardAttempt {
  readonly record: EventRecord;
  readonly attempt: number;
  /** Delivered to the app (2xx). */
  readonly ok: boolean;
  /** Not delivered; the next try is in this many ms. */
  readonly retryInMs?: number;
  /** Refused REFUSALS_BEFORE_SKIP times with a 4xx: passed over (it stays in the file, for replay). */
  readonly skipped?: boolean;
}

export interface ForwarderOptions {
  readonly file: string;
  readonly url: URL;
  /** Where the next event to forward is kept, so a restart continues there. */
  readonly cursorFile: string;
  /** Where to start when the cursor file has nothing for this file and URL (the file's end at start). */
  readonly startOffset: number;
  readonly onResult: (r: ForwardResult) => void;
  readonly timeoutMs?: number;
}

interface Cursor {
  readonly url: string;
  readonly file: string;
  readonly offset: number;
}

/** The cursor file of a forward target: beside the events file, one per app URL. */
export function cursorPath(file: string, url: URL): string {
  return `${file}.forward-${createHash('sha256').update(url.href).digest('hex').slice(0, 12)}.json`;
}

export class Forwarder {
  readonly #o: ForwarderOptions;
  #offset: number;
  #stopped = false;
  #wake: (() => void) | undefined;
  #running: Promise<void> | undefined;
  #savedOffset = -1;
  #lastSave = 0;
  /** Events forwarded (2xx) and passed over since start. */
  delivered = 0;
  skipped = 0;

  constructor(options: ForwarderOptions) {
    this.#o = options;
    this.#offset = readCursor(options.cursorFile, options.file, options.url) ?? options.startOffset;
  }

  /** Where forwarding stands in the file (bytes). */
  get offset(): number {
    return this.#offset;
  }

  start(): void {
    this.#running ??= this.#loop();
  }

  /** New events were appended. */
  notify(): void {
    this.#wake?.();
  }

  /** Stops after the attempt under way and keeps the cursor; events not yet forwarded wait in the file. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    await this.#running;
    this.#save(true);
  }

  #sleep(ms: number | undefined): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      function done(): void {
        if (timer !== undefined) clearTimeout(timer);
        resolve();
      }
      this.#wake = () => {
        this.#wake = undefined;
        done();
      };
    });
  }

  async #loop(): Promise<void> {
    while (!this.#stopped) {
      let batch;
      try {
        batch = await readLinesFrom(this.#o.file, this.#offset);
      } catch {
        await this.#sleep(1_000);
        continue;
      }
      if (batch.size < this.#offset) this.#offset = batch.size;
      if (batch.lines.length === 0) {
        this.#save(true);
        // Woken by notify(); the timer is a safety net for appends made by another process.
        await this.#sleep(2_000);
        continue;
      }
      for (const line of batch.lines) {
        if (this.#stopped) return;
        let record: EventRecord | undefined;
        try {
          record = asRecord(JSON.parse(line.text));
        } catch {
          record = undefined;
        }
        if (record !== undefined && !(await this.#deliver(record))) return;
        this.#offset = line.end;
        this.#save(false);
      }
    }
  }

  /** Tries until the app takes it (or refuses it for good); false when stopped meanwhile. */
  async #deliver(record: EventRecord): Promise<boolean> {
    let refusals = 0;
    for (let attempt = 1; ; attempt++) {
      if (this.#stopped) return false;
      const a = await forwardOnce(record, this.#o.url, this.#o.timeoutMs);
      if (isDelivered(a)) {
        this.delivered++;
        this.#o.onResult({ ...a, record, attempt, ok: true });
        return true;
      }
      if (!worthRetrying(a) && ++refusals >= REFUSALS_BEFORE_SKIP) {
        this.skipped++;
        this.#o.onResult({ ...a, record, attempt, ok: false, skipped: true });
        return true;
      }
      const wait = backoffMs(attempt);
      this.#o.onResult({ ...a, record, attempt, ok: false, retryInMs: wait });
      await this.#sleep(wait);
    }
  }

  #save(force: boolean): void {
    if (this.#offset === this.#savedOffset) return;
    const now = Date.now();
    if (!force && now - this.#lastSave < 250) {
      // The next event's save, or stop(), writes it.
      return;
    }
    this.#lastSave = now;
    const cursor: Cursor = { url: this.#o.url.href, file: this.#o.file, offset: this.#offset };
    try {
      const aside = `${this.#o.cursorFile}.${randomBytes(4).toString('hex')}.new`;
      writeFileSync(aside, `${JSON.stringify(cursor)}\n`, { mode: 0o600 });
      renameSync(aside, this.#o.cursorFile);
      this.#savedOffset = this.#offset;
    } catch {
      // A cursor not saved only means events forwarded again after a restart (at least once).
    }
  }
}

function readCursor(path: string, file: string, url: URL): number | undefined {
  try {
    const c = JSON.parse(readFileSync(path, 'utf8')) as Partial<Cursor>;
    return c.url === url.href && c.file === file && typeof c.offset === 'number' && c.offset >= 0 ? c.offset : undefined;
  } catch {
    return undefined;
  }
}
