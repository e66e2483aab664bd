// Forwarding events to a local app (docs/events.md: "Forwarding and replay"). Each event goes as
// it came: its method, its sub-path and query under the app's URL, its content type and headers
// (without secrets: they were never saved) and its very body, plus X-Msgr-Event-Id so the app
// can drop a second copy. `msgr listen --forward-to` follows the events file from a cursor kept
// beside it, so an app that is down, slow or failing only delays its events: they are on disk,
// and go out in order once it answers 2xx, after a restart of the listener too (at least once).
// An event the app has not taken after FORWARD_ATTEMPTS attempts is passed over, said, and left
// in the file for `msgr listen replay`.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import type { Http } from '../http-interface.js';
import { isLoopbackHost } from '../http/endpoint.js';
import { maskUrl } from '../output/sanitize.js';
import { asRecord, subPath, type EventRecord } from './saved-event.js';
import { readLinesFrom } from './read.js';

export const FORWARD_TIMEOUT_MS = 10_000;
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;
/** A 4xx the app gives the same event this many times in a row is taken as the app's final word. */
export const REFUSALS_BEFORE_SKIP = 3;
/**
 * Attempts at one event before it is passed over: with the backoff (0.5 s doubling to 30 s) about
 * seven minutes, long enough for an app's restart or deploy.
 */
export const FORWARD_ATTEMPTS = 20;

/** Where events are forwarded: the app's URL as given, taken apart once (docs/events.md: "Forwarding and replay"). */
export interface ForwardTarget {
  /** The URL requests go to: without its user and password (fetch refuses URLs that carry them). */
  readonly url: URL;
  /** `Basic …` made of the URL's user and password, sent as the Authorization header. */
  readonly authorization: string | undefined;
  /** The URL as msgr prints it: password and query secrets masked (maskUrl). */
  readonly shown: string;
}

/**
 * An app's URL for --forward-to: http or https. A user and password in it are sent as
 * `Authorization: Basic`, percent-decoded as curl does; one that cannot be decoded is refused
 * (exit 2). Nothing in a refusal repeats the password.
 */
export function forwardTarget(value: string, flag = '--forward-to'): ForwardTarget {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UsageError(`${flag}: "${maskUrl(value)}" is not an http:// or https:// URL`, { hint: 'For example --forward-to http://127.0.0.1:3000/webhooks' });
  }
  let authorization: string | undefined;
  if (url.username !== '' || url.password !== '') {
    let user: string;
    let password: string;
    try {
      user = decodeURIComponent(url.username);
      password = decodeURIComponent(url.password);
    } catch {
      throw new UsageError(`${flag}: the user or password in ${maskUrl(value)} has a "%" that does not start a percent-encoded character`, { hint: 'Percent-encode them: % is %25, @ is %40, : is %3A, / is %2F.' });
    }
    authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  return { url, authorization, shown: maskUrl(value) };
}

/**
 * What a forward target exposes, for warnings: events in clear to another machine, a password on
 * a command line (`inArgv`), which every user sees in `ps` while it runs (`variable`: where it
 * belongs instead).
 */
export function forwardWarnings(target: ForwardTarget, inArgv: boolean, variable?: string): string[] {
  const out: string[] = [];
  if (target.url.protocol === 'http:' && !isLoopbackHost(target.url.hostname.replace(/^\[(.*)\]$/, '$1'))) {
    out.push(`forwarding to ${target.shown} over plain http: numbers and reply texts${target.authorization !== undefined ? ', and the password in the URL,' : ''} cross the network unencrypted. Use https:// for an app on another machine.`);
  }
  if (inArgv && target.authorization !== undefined && variable !== undefined) {
    out.push(`the --forward-to URL holds a password, and a command line is visible to every user of this machine (ps): give it in ${variable} instead.`);
  }
  return out;
}

export interface ForwardAttempt {
  readonly status?: number;
  /** A connection that failed or timed out (no status). */
  readonly error?: string;
  readonly ms: number;
  /** Not sent: the event's path would leave the app's path. */
  readonly outside?: boolean;
}

/**
 * The URL an event goes to: the app's URL, then the event's own sub-path and query. The sub-path
 * stays under the app's path, whatever dot segments, backslashes or encoded dots it holds
 * (saved-event.ts: subPath); undefined when it would not (nothing is sent then).
 */
export function forwardUrl(base: URL, record: Pick<EventRecord, 'path' | 'query'>): string | undefined {
  const url = new URL(base.href);
  url.username = '';
  url.password = '';
  const root = url.pathname.replace(/\/$/, '');
  const sub = subPath(record.path);
  if (sub !== '/') url.pathname = `${root}${sub}`;
  if (url.pathname !== root && url.pathname !== `${root}/` && !url.pathname.startsWith(`${root}/`)) return undefined;
  if (record.query !== undefined) url.search = url.search === '' ? record.query : `${url.search.slice(1)}&${record.query}`;
  return url.href;
}

/** The Context's one request outside the API (src/context.ts: `http`; src/http-interface.ts: Http). */
export type Hook = Http['hook'];

/** Sends one saved event to the app, once, through the Context's HTTP (`hook`). */
export async function forwardOnce(hook: Hook, record: EventRecord, target: ForwardTarget, timeoutMs = FORWARD_TIMEOUT_MS): Promise<ForwardAttempt> {
  const started = performance.now();
  const to = forwardUrl(target.url, record);
  if (to === undefined) return { error: 'its path would leave the --forward-to path', ms: 0, outside: true };
  const headers: Record<string, string> = { ...record.headers, 'x-msgr-event-id': record.id, 'x-msgr-received-at': record.receivedAt };
  if (record.contentType !== undefined) headers['content-type'] = record.contentType;
  if (target.authorization !== undefined) headers.authorization = target.authorization;
  const hasBody = record.method !== 'GET' && record.method !== 'HEAD';
  const body = !hasBody ? undefined : record.bodyBase64 !== undefined ? Buffer.from(record.bodyBase64, 'base64') : (record.body ?? '');
  const a = await hook({ url: new URL(to), method: record.method, headers, body, timeoutMs });
  if (a.kind === 'answered') return { status: a.status, ms: performance.now() - started };
  return { error: a.timedOut ? `no answer in ${timeoutMs / 1000} s` : a.words, ms: performance.now() - started };
}

/** Whether the app may take the event on another try: no answer, 5xx, 408 or 429. */
export function worthRetrying(a: ForwardAttempt): boolean {
  if (a.outside === true) return false;
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
  /**
   * Passed over (it stays in the file, for replay): `refused` REFUSALS_BEFORE_SKIP times with a
   * 4xx, not taken in FORWARD_ATTEMPTS `attempts`, or a `path` that would leave the app's path.
   */
  readonly skipped?: 'refused' | 'attempts' | 'path';
}

export interface ForwarderOptions {
  readonly file: string;
  readonly target: ForwardTarget;
  /** Where the next event to forward is kept, so a restart continues there. */
  readonly cursorFile: string;
  /** Where to start when the cursor file has nothing for this file and URL (the file's end at start). */
  readonly startOffset: number;
  readonly onResult: (r: ForwardResult) => void;
  /** The Context's HTTP, through which each event goes. */
  readonly hook: Hook;
  readonly timeoutMs?: number;
  /** FORWARD_ATTEMPTS and backoffMs, unless a test gives others. */
  readonly attempts?: number;
  readonly backoffMs?: (attempt: number) => number;
}

interface Cursor {
  /** The app's URL, masked; `urlHash` tells URLs apart. */
  readonly url: string;
  readonly urlHash?: string;
  readonly file: string;
  readonly offset: number;
  /** The events file the offset is in (its inode): after a rotation, the new file starts at 0. */
  readonly ino?: number;
}

const urlHash = (url: URL): string => createHash('sha256').update(url.href).digest('hex');

/** The cursor file of a forward target: beside the events file, one per app URL (its user and password aside). */
export function cursorPath(file: string, url: URL): string {
  return `${file}.forward-${urlHash(url).slice(0, 12)}.json`;
}

export class Forwarder {
  readonly #o: ForwarderOptions;
  #offset: number;
  /** The events file as the forwarder reads it: its own handle, so that it reads a moved file to its end. */
  #fh: FileHandle | undefined;
  #ino: number | undefined;
  /**
   * The files the listener opened since, oldest first (follow()): each is read from its start once
   * the one before is read to its end, however quickly they were moved on in turn.
   */
  readonly #next: Array<{ fh: FileHandle; ino: number }> = [];
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
    const saved = readCursor(options.cursorFile, options.file, options.target.url);
    let ino: number | undefined;
    try {
      ino = statSync(options.file).ino;
    } catch {
      ino = undefined;
    }
    // A cursor kept for a file since moved away (rotated while msgr was stopped): the file at
    // the path now is read from its start.
    this.#offset = saved === undefined ? options.startOffset : saved.ino !== undefined && ino !== undefined && saved.ino !== ino ? 0 : saved.offset;
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

  /**
   * The listener now writes a new file at the path (rotation, SIGHUP): opened here at once, while
   * the path names it (`ino`), and read once the file before it is read to its end.
   */
  follow(ino: number | undefined): void {
    void open(this.#o.file, 'r')
      .then(async (fh) => {
        const at = (await fh.stat()).ino;
        if ((ino !== undefined && at !== ino) || at === this.#ino || this.#next.some((n) => n.ino === at)) {
          // Moved on again already, or known: the path is checked when the file read now ends.
          await fh.close();
          return;
        }
        this.#next.push({ fh, ino: at });
        this.#wake?.();
      })
      .catch(() => undefined);
  }

  /** Stops after the attempt under way and keeps the cursor; events not yet forwarded wait in the file. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    await this.#running;
    this.#save(true);
    for (const f of [this.#fh, ...this.#next.splice(0).map((n) => n.fh)]) await f?.close().catch(() => undefined);
    this.#fh = undefined;
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

  /**
   * The handle to read from: the open one; once it is read to its end, the next file the listener
   * opened (follow()), else the file at the path when it names another (rotated by someone else
   * while no notice came), each from its start.
   */
  async #file(atEnd: boolean): Promise<FileHandle> {
    if (this.#fh !== undefined && atEnd) {
      const next = this.#next.shift();
      if (next !== undefined) {
        await this.#fh.close().catch(() => undefined);
        this.#fh = next.fh;
        this.#ino = next.ino;
        this.#offset = 0;
        return next.fh;
      }
      const now = await stat(this.#o.file).catch(() => undefined);
      if (now !== undefined && now.ino !== this.#ino) {
        await this.#fh.close().catch(() => undefined);
        this.#fh = undefined;
        this.#offset = 0;
      }
    }
    if (this.#fh === undefined) {
      this.#fh = await open(this.#o.file, 'r');
      this.#ino = (await this.#fh.stat()).ino;
    }
    return this.#fh;
  }

  async #loop(): Promise<void> {
    let atEnd = false;
    while (!this.#stopped) {
      let batch;
      try {
        batch = await readLinesFrom(await this.#file(atEnd), this.#offset);
      } catch {
        await this.#fh?.close().catch(() => undefined);
        this.#fh = undefined;
        await this.#sleep(1_000);
        continue;
      }
      if (batch.size < this.#offset) this.#offset = batch.size;
      if (batch.lines.length === 0) {
        this.#save(true);
        if (!atEnd) {
          // At the end of the file: is the path still this file? (checked once per quiet spell)
          atEnd = true;
          continue;
        }
        // Woken by notify(); the timer is a safety net for appends made by another process.
        await this.#sleep(2_000);
        continue;
      }
      atEnd = false;
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

  /** Tries until the app takes it, refuses it for good, or FORWARD_ATTEMPTS are used; false when stopped meanwhile. */
  async #deliver(record: EventRecord): Promise<boolean> {
    let refusals = 0;
    for (let attempt = 1; ; attempt++) {
      if (this.#stopped) return false;
      const a = await forwardOnce(this.#o.hook, record, this.#o.target, this.#o.timeoutMs);
      if (isDelivered(a)) {
        this.delivered++;
        this.#o.onResult({ ...a, record, attempt, ok: true });
        return true;
      }
      const skipped = a.outside === true ? 'path' : !worthRetrying(a) && ++refusals >= REFUSALS_BEFORE_SKIP ? 'refused' : attempt >= (this.#o.attempts ?? FORWARD_ATTEMPTS) ? 'attempts' : undefined;
      if (skipped !== undefined) {
        this.skipped++;
        this.#o.onResult({ ...a, record, attempt, ok: false, skipped });
        return true;
      }
      const wait = (this.#o.backoffMs ?? backoffMs)(attempt);
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
    const cursor: Cursor = { url: this.#o.target.shown, urlHash: urlHash(this.#o.target.url), file: this.#o.file, offset: this.#offset, ...(this.#ino !== undefined ? { ino: this.#ino } : {}) };
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

function readCursor(path: string, file: string, url: URL): { offset: number; ino: number | undefined } | undefined {
  try {
    const c = JSON.parse(readFileSync(path, 'utf8')) as Partial<Cursor>;
    // `url` alone: a cursor an earlier msgr wrote, with the URL in full.
    const same = c.urlHash !== undefined ? c.urlHash === urlHash(url) : c.url === url.href;
    return same && c.file === file && typeof c.offset === 'number' && c.offset >= 0 ? { offset: c.offset, ino: typeof c.ino === 'number' ? c.ino : undefined } : undefined;
  } catch {
    return undefined;
  }
}
