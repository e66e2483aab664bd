// The HTTP side of `msgr listen` (docs/events.md: "msgr listen"): takes webhook deliveries of any
// shape, checks the token, cuts the body into events, records the new ones (event-log.ts) and
// answers 2xx only once they are on disk. Every request gets an answer: what cannot be stored
// now is answered 503 (senders retry a 5xx and drop most 4xx), what can never be stored a final
// 413, and an error of msgr's own a 503 too. Everything else (the terminal, opt-outs,
// forwarding) hangs off the hooks, so this file is the one place that decides what an answer
// means.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { UsageError } from '../errors.js';
import { dedupKey, type Dedup } from './dedup.js';
import { MAX_PENDING_BYTES, StoreError, type EventLog } from './event-log.js';
import { summarise, type EventSummary, type FieldPaths } from './fields.js';
import { keptHeaders, keptQuery, MAX_EVENTS_PER_BODY, parseForm, RECORD_VERSION, splitBody, subPath, TooManyEventsError, type BodyEvent, type EventRecord } from './saved-event.js';

/** Largest body taken by default; above it 413 (bodies of SMS events are a few hundred bytes). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** How long a 503 asks the sender to wait before it tries again. */
export const RETRY_AFTER_SECONDS = 5;
/**
 * Bytes of bodies being read at once, all requests together: beyond it a request is answered 503
 * (the sender retries), so memory stays bounded however many senders post big bodies at once.
 */
export const MAX_READING_BYTES = 64 * 1024 * 1024;
/** Connections at once; more are refused by Node until some close. */
export const MAX_CONNECTIONS = 1024;
/**
 * A connection that has not sent a whole request's headers this long after it opened is closed:
 * a provider sends its request at once.
 */
export const HEADERS_TIMEOUT_MS = 10_000;
/**
 * Connections that have not sent a request yet, per peer address and in all. Beyond either, the
 * oldest of them is closed: nothing needs a token to open a connection, so idle ones must not be
 * able to take the slots deliveries need (docs/events.md: "Hostile input").
 */
export const MAX_WAITING_PER_PEER = 32;
export const MAX_WAITING = 256;
/** Stored events whose request was answered 503 afterwards, kept to be shown when a retry is answered 2xx. */
const MAX_UNSHOWN = 10_000;

export interface Received {
  readonly record: EventRecord;
  readonly summary: EventSummary;
  readonly parsed: unknown;
  /** Recorded before (this is the sender's retry): not written again. */
  readonly duplicate: boolean;
  /**
   * This answer is the event's first 2xx: it is shown now. A duplicate is shown when the request
   * that stored it was answered 503 (an opt-out that could not be written, an error): the record
   * is then the one in the file.
   */
  readonly first: boolean;
}

export interface ListenerOptions {
  readonly host: string;
  readonly port: number;
  readonly token: string;
  readonly log: EventLog;
  readonly dedup: Dedup;
  readonly fields?: FieldPaths;
  readonly maxBodyBytes?: number;
  /**
   * Runs once a request's new events are on disk, before the answer (opt-outs), with every event
   * of the request, duplicates too (a retry after a 503 must still get its opt-out through). A
   * StoreError it throws is answered 503.
   */
  readonly afterStore?: (events: readonly Received[]) => Promise<void> | void;
  /** Each event of an answered request, in order, duplicates too. */
  readonly onEvent?: (event: Received) => void;
  /** A request refused (401, 405, 413) or not stored (503), for the terminal. */
  readonly onRefused?: (status: number, why: string) => void;
  /** An error of msgr's own, answered 503: said once, for the terminal. */
  readonly onError?: (err: unknown) => void;
}

export interface ListenerStats {
  requests: number;
  recorded: number;
  duplicates: number;
  refused: number;
  unavailable: number;
  /** Connections closed before their first request: over the caps (MAX_WAITING_PER_PEER, MAX_WAITING), or idle too long. */
  idleCapped: number;
  idleTimedOut: number;
}

export interface RunningListener {
  readonly url: string;
  readonly port: number;
  readonly stats: () => Readonly<ListenerStats>;
  /** Stops taking requests; those in flight are answered (for at most drainMs), then the file is closed. */
  close(drainMs?: number): Promise<void>;
}

interface Answer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Close the connection at once after the answer: the rest of the body is not read. */
  readonly cut?: boolean;
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** Bytes of bodies being read now, by every request (MAX_READING_BYTES). */
const reading = { bytes: 0 };

/**
 * Reads the body up to `limit` bytes: 'too-large' over it, 'busy' when all requests together are
 * reading more than MAX_READING_BYTES (the connection is then closed, the rest not read).
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large' | 'busy'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: Buffer | 'too-large' | 'busy'): void => {
      if (done) return;
      done = true;
      reading.bytes -= size;
      chunks.length = 0;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      reading.bytes += chunk.length;
      if (size > limit) finish('too-large');
      else if (reading.bytes > MAX_READING_BYTES) finish('busy');
      else chunks.push(chunk);
    });
    req.on('end', () => finish(Buffer.concat(chunks, size)));
    const fail = (err: Error): void => {
      if (!done) {
        done = true;
        reading.bytes -= size;
      }
      reject(err);
    };
    req.on('error', fail);
    req.on('aborted', () => fail(new Error('the request was aborted')));
  });
}

/**
 * The listener's token out of what is kept and forwarded: a header, a path, a query or a body that
 * carries it (a provider that echoes its webhook URL, a proxy's X-Original-URI) has it replaced by
 * `***`. Its form-encoded spelling too (`~` as `%7E`).
 */
function tokenHider(token: string): { text: (s: string) => string; bytes: (b: Buffer) => Buffer; inText: (s: string) => boolean; encoded: (s: string) => boolean } {
  const forms = [...new Set([token, token.replace(/~/g, '%7E'), token.replace(/~/g, '%7e')])];
  const buffers = forms.map((f) => Buffer.from(f));
  const inText = (s: string): boolean => forms.some((f) => s.includes(f));
  return {
    inText,
    encoded: (s) => inText(decodeURIComponentSafe(s)) || inBase64(s, inText),
    text: (s) => (inText(s) ? forms.reduce((acc, f) => acc.split(f).join('***'), s) : s),
    bytes: (b) => (buffers.some((f) => b.includes(f)) ? Buffer.from(forms.reduce((acc, f) => acc.split(f).join('***'), b.toString('latin1')), 'latin1') : b),
  };
}

/** Base64 (or base64url) long enough to hold a token (16 characters or more). */
const BASE64_RUN = /[A-Za-z0-9+/_-]{21,}/g;

/**
 * Whether text carries, base64-encoded, what `found` looks for: `Basic base64(any:TOKEN)` is how
 * the listener itself accepts its token, so a header of any name may carry it so (an upstream
 * proxy's `X-Upstream: Basic …`). Each run of base64 is decoded from each of its first four
 * characters, as the token may start anywhere in what was encoded. Percent-encoded base64 too.
 */
function inBase64(text: string, found: (decoded: string) => boolean): boolean {
  for (const t of new Set([text, decodeURIComponentSafe(text)])) {
    for (const [run] of t.matchAll(BASE64_RUN)) {
      for (let from = 0; from < 4; from++) if (found(Buffer.from(run.slice(from), 'base64').toString('latin1'))) return true;
    }
  }
  return false;
}

/**
 * A waiting connection younger than this is never closed for the caps: a delivery sends its
 * request within milliseconds of connecting, and a client that opens many connections at once
 * (a pool of 64) must not lose one to the cap before it could send. (Measured: with no grace,
 * the bench's pool of 64 saw 2 resets in 290,000 requests.)
 */
export const WAITING_GRACE_MS = 1_000;

/**
 * Connections that have not sent a request yet (MAX_WAITING_PER_PEER, MAX_WAITING,
 * HEADERS_TIMEOUT_MS): each is closed when its time is up, or, once it has waited
 * WAITING_GRACE_MS, when it is the oldest of a peer, or of all, over the cap; without the grace
 * when the connections come near MAX_CONNECTIONS, beyond which Node would refuse new ones. A
 * delivery sends its request at once, so it is never among those closed.
 */
class WaitingConnections {
  /** Oldest first (a Map keeps insertion order). */
  readonly #sockets = new Map<Socket, { readonly peer: string; readonly since: number; readonly timer: NodeJS.Timeout }>();
  readonly #perPeer = new Map<string, number>();
  readonly #onClosed: (why: 'capped' | 'timed-out') => void;
  /** Runs while some are over a cap but too young to close. */
  #sweep: NodeJS.Timeout | undefined;
  /** Connections open, waiting or not. */
  #open = 0;

  constructor(onClosed: (why: 'capped' | 'timed-out') => void) {
    this.#onClosed = onClosed;
  }

  add(socket: Socket): void {
    const peer = socket.remoteAddress ?? '';
    const timer = setTimeout(() => this.#close(socket, 'timed-out'), HEADERS_TIMEOUT_MS);
    timer.unref();
    this.#sockets.set(socket, { peer, since: performance.now(), timer });
    this.#perPeer.set(peer, (this.#perPeer.get(peer) ?? 0) + 1);
    this.#open++;
    socket.once('close', () => {
      this.#open--;
      this.requested(socket);
    });
    if (this.#sockets.size > MAX_WAITING || (this.#perPeer.get(peer) ?? 0) > MAX_WAITING_PER_PEER) this.#trim();
  }

  /** The connection sent a request, or closed: it waits no more. */
  requested(socket: Socket): void {
    const w = this.#sockets.get(socket);
    if (w === undefined) return;
    clearTimeout(w.timer);
    this.#sockets.delete(socket);
    const n = (this.#perPeer.get(w.peer) ?? 1) - 1;
    if (n <= 0) this.#perPeer.delete(w.peer);
    else this.#perPeer.set(w.peer, n);
  }

  /** Closes the oldest over the caps that have waited long enough; sweeps again later for the rest. */
  #trim(): void {
    const crowded = this.#open >= MAX_CONNECTIONS - MAX_WAITING_PER_PEER;
    const ripe = crowded ? Number.POSITIVE_INFINITY : performance.now() - WAITING_GRACE_MS;
    let over = false;
    for (const [socket, w] of this.#sockets) {
      const peerOver = (this.#perPeer.get(w.peer) ?? 0) > MAX_WAITING_PER_PEER;
      if (!peerOver && this.#sockets.size <= MAX_WAITING) continue;
      if (w.since > ripe) {
        // Oldest first: every one after this is younger still.
        over = true;
        break;
      }
      this.#close(socket, 'capped');
    }
    if (over && this.#sweep === undefined) {
      this.#sweep = setTimeout(() => {
        this.#sweep = undefined;
        this.#trim();
      }, WAITING_GRACE_MS / 4);
      this.#sweep.unref();
    }
  }

  #close(socket: Socket, why: 'capped' | 'timed-out'): void {
    this.requested(socket);
    socket.destroy();
    this.#onClosed(why);
  }
}

export async function startListener(options: ListenerOptions): Promise<RunningListener> {
  const { log, dedup } = options;
  const fields = options.fields ?? {};
  // A body larger than the write queue can never be stored, whatever --max-body allows.
  const readLimit = Math.min(options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, MAX_PENDING_BYTES);
  const tokenDigest = digest(options.token);
  const hide = tokenHider(options.token);
  const idPrefix = `ev_${randomBytes(4).toString('hex')}_`;
  let counter = 0;
  const stats: ListenerStats = { requests: 0, recorded: 0, duplicates: 0, refused: 0, unavailable: 0, idleCapped: 0, idleTimedOut: 0 };
  let closing = false;
  /** Stored events not yet answered 2xx (their request got a 503 after the write), by key. */
  const unshown = new Map<string, Received>();

  const tokenMatches = (given: string | undefined): boolean => given !== undefined && given !== '' && timingSafeEqual(digest(given), tokenDigest);

  /** The path after the token, when the token is the first segment or a header carries it. */
  function authorise(req: IncomingMessage, path: string): string | undefined {
    const segments = path.split('/');
    const first = segments[1];
    if (first !== undefined && tokenMatches(decodeURIComponentSafe(first))) return `/${segments.slice(2).join('/')}`;
    const auth = req.headers.authorization;
    if (auth !== undefined) {
      const [scheme, value] = auth.split(/\s+/, 2);
      if (scheme?.toLowerCase() === 'bearer' && tokenMatches(value)) return path;
      // https://any:TOKEN@host/ as a provider that only knows basic authentication sends it.
      if (scheme?.toLowerCase() === 'basic' && value !== undefined) {
        const decoded = Buffer.from(value, 'base64').toString('utf8');
        if (tokenMatches(decoded.slice(decoded.indexOf(':') + 1))) return path;
      }
    }
    const header = req.headers['x-msgr-token'];
    if (tokenMatches(Array.isArray(header) ? header[0] : header)) return path;
    return undefined;
  }

  /**
   * A final refusal. The connection is not kept alive: a stranger without the token cannot hold
   * it open between requests. `cut`: closed at once, the rest of a big body not read.
   */
  function refuse(status: number, why: string, body: string, headers: Record<string, string> = {}, cut = false): Answer {
    stats.refused++;
    options.onRefused?.(status, why);
    return { status, headers: { ...headers, connection: 'close' }, body, cut };
  }

  async function decide(req: IncomingMessage, continueWith: ServerResponse | undefined): Promise<Answer> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const rawPath = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? '' : url.slice(q + 1);
    const given = authorise(req, rawPath);
    if (given === undefined) {
      return refuse(401, `${req.method ?? '?'} without the listener's token`, 'the listener\'s token is missing or wrong: put it in the path (/TOKEN) or an Authorization: Bearer header\n', { 'www-authenticate': 'Bearer realm="msgr listen"' });
    }
    const path = subPath(hide.text(given));
    const method = req.method ?? 'POST';
    let events: BodyEvent[];
    const contentType = headerValue(req.headers['content-type']);
    if (method === 'POST' || method === 'PUT' || method === 'PATCH') {
      const declared = Number(headerValue(req.headers['content-length']) ?? Number.NaN);
      if (declared > readLimit) return refuse(413, `a body of ${declared} bytes, over ${readLimit}`, `the body is over ${readLimit} bytes: it can never be taken\n`, {}, true);
      // `Expect: 100-continue` (curl's, for bodies over 1 MB) is answered only now: a sender
      // without the token or with a body too large gets its refusal before it sends the body.
      if (continueWith !== undefined) continueWith.writeContinue();
      const raw = await readBody(req, readLimit);
      if (raw === 'too-large') return refuse(413, `a body over ${readLimit} bytes`, `the body is over ${readLimit} bytes: it can never be taken\n`, {}, true);
      if (raw === 'busy') {
        stats.unavailable++;
        options.onRefused?.(503, `more than ${MAX_READING_BYTES >> 20} MiB of bodies are being read at once`);
        return { status: 503, headers: { 'retry-after': String(RETRY_AFTER_SECONDS), connection: 'close' }, body: 'busy: retry later\n', cut: true };
      }
      try {
        events = splitBody(hide.bytes(raw), contentType, MAX_EVENTS_PER_BODY);
      } catch (err) {
        if (!(err instanceof TooManyEventsError)) throw err;
        return refuse(413, err.message, `${err.message}: it can never be taken; send fewer events per request\n`);
      }
    } else if (method === 'GET' || method === 'HEAD') {
      // A receipt sent as query parameters is an event; a bare GET is a URL check.
      const kept = keptQuery(query);
      if (method === 'HEAD' || kept === undefined) return { status: 200, body: method === 'HEAD' ? '' : 'msgr listen: ready\n' };
      const text = hide.text(kept);
      events = [{ parsed: parseForm(text), bytes: Buffer.from(text) }];
    } else {
      return refuse(405, `method ${method}`, '', { allow: 'POST, PUT, PATCH, GET' });
    }
    const kept = keptQuery(query);
    return store(req, method, path, kept === undefined ? undefined : hide.text(kept), contentType === undefined ? undefined : hide.text(contentType), events);
  }

  async function store(req: IncomingMessage, method: string, path: string, query: string | undefined, contentType: string | undefined, events: BodyEvent[]): Promise<Answer> {
    const nowMs = Date.now();
    const receivedAt = new Date(nowMs).toISOString();
    // A header that carries the token (a Referer, X-Forwarded-Uri, X-Original-URI) keeps its
    // value with the token replaced; one that carries it in another spelling (percent-encoded,
    // base64 as in Basic authentication) is dropped.
    const headers = keptHeaders(req.headers, (value) => {
      const shown = hide.text(value);
      return hide.encoded(shown) ? undefined : shown;
    });
    const received: Received[] = [];
    const waits: Array<Promise<void>> = [];
    const fresh = new Set<string>();
    let lines = '';
    for (const ev of events) {
      const summary = summarise(ev.parsed, fields);
      const key = dedupKey(summary, req.headers, ev.bytes, ev.item);
      const seen = dedup.find(key, nowMs) ?? (fresh.has(key) ? { durable: undefined } : undefined);
      if (seen !== undefined) {
        if (seen.durable !== undefined) waits.push(seen.durable);
        // Stored, but its request was answered 503: this retry shows it, as the file has it.
        const stored = unshown.get(key);
        if (stored !== undefined) {
          unshown.delete(key);
          received.push({ ...stored, duplicate: true, first: true });
          continue;
        }
      }
      const record: EventRecord = {
        v: RECORD_VERSION,
        id: `${idPrefix}${(counter++).toString(36)}`,
        receivedAt,
        key,
        method,
        path,
        ...(query !== undefined ? { query } : {}),
        ...(contentType !== undefined ? { contentType } : {}),
        headers,
        ...(ev.body !== undefined ? { body: ev.body } : {}),
        ...(ev.bodyBase64 !== undefined ? { bodyBase64: ev.bodyBase64 } : {}),
        ...(ev.item !== undefined ? { item: ev.item } : {}),
      };
      if (seen !== undefined) {
        received.push({ record, summary, parsed: ev.parsed, duplicate: true, first: false });
        continue;
      }
      fresh.add(key);
      lines += `${JSON.stringify(record)}\n`;
      received.push({ record, summary, parsed: ev.parsed, duplicate: false, first: true });
    }
    // Decided before anything is queued: lines that can never fit the write queue are a body that
    // can never be stored, answered with a final 413 rather than a 503 retried for ever.
    if (Buffer.byteLength(lines) > MAX_PENDING_BYTES) {
      keepUnshown(received.filter((r) => r.duplicate && r.first));
      return refuse(413, `events that take more than ${MAX_PENDING_BYTES >> 20} MiB as records`, `the events take more than ${MAX_PENDING_BYTES >> 20} MiB as records: they can never be stored; send fewer or smaller events per request\n`);
    }
    const written = lines === '' ? undefined : log.append(lines);
    if (written !== undefined) for (const key of fresh) dedup.remember(key, nowMs, written);
    let stored = written === undefined;
    try {
      if (written !== undefined) {
        await written;
        stored = true;
      }
      await Promise.all(waits);
      await options.afterStore?.(received);
    } catch (err) {
      if (!stored) {
        // Not on disk: the sender's retry must be recorded, not taken for a duplicate.
        for (const key of fresh) dedup.forget(key);
      }
      // On disk, but answered 503: the retry, a duplicate then, shows them.
      keepUnshown(stored ? received.filter((r) => r.first) : received.filter((r) => r.duplicate && r.first));
      if (!(err instanceof StoreError)) throw err;
      stats.unavailable++;
      options.onRefused?.(503, err.message);
      return { status: 503, headers: { 'retry-after': String(RETRY_AFTER_SECONDS) }, body: `not stored: ${err.reason}; retry later\n` };
    }
    for (const r of received) {
      if (r.first) stats.recorded++;
      else stats.duplicates++;
      // Stored and answered whatever a hook does: its failure is said, never a lost answer.
      try {
        options.onEvent?.(r);
      } catch (err) {
        options.onError?.(err);
      }
    }
    return { status: 200, headers: { 'x-msgr-recorded': String(fresh.size), 'x-msgr-duplicates': String(received.length - fresh.size) }, body: '' };
  }

  function keepUnshown(events: readonly Received[]): void {
    for (const r of events) {
      unshown.set(r.record.key, { ...r, duplicate: false, first: true });
      if (unshown.size > MAX_UNSHOWN) {
        const oldest = unshown.keys().next();
        if (oldest.done !== true) unshown.delete(oldest.value);
      }
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): Promise<void> {
    stats.requests++;
    let answer: Answer;
    try {
      answer = await decide(req, expectsContinue ? res : undefined);
    } catch (err) {
      // msgr's own failure (an event it could not take apart, a bug): the sender keeps the event
      // and retries, and what was stored is kept. Said once; the connection is closed, as
      // whatever of the body was not read is not waited for.
      stats.unavailable++;
      options.onError?.(err);
      answer = { status: 503, headers: { 'retry-after': String(RETRY_AFTER_SECONDS), connection: 'close' }, body: 'not stored: the listener failed on this request; retry later\n', cut: true };
    }
    // Answered unless the connection is gone (the sender went away: nothing can reach it).
    if (res.writableEnded || res.destroyed || res.socket === null || res.socket.destroyed) return;
    const body = answer.body ?? '';
    res.writeHead(answer.status, {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
      ...answer.headers,
      ...(closing ? { connection: 'close' } : {}),
    });
    if (answer.cut === true) linger(req.socket);
    res.end(body);
  }

  const waiting = new WaitingConnections((why) => (why === 'capped' ? stats.idleCapped++ : stats.idleTimedOut++));
  const onRequest = (expectsContinue: boolean) => (req: IncomingMessage, res: ServerResponse): void => {
    waiting.requested(req.socket);
    handle(req, res, expectsContinue).catch((err: unknown) => {
      // Only writing the answer itself can get here: nothing more can be said to this sender.
      options.onError?.(err);
      res.destroy();
    });
  };
  const server = createServer({ keepAliveTimeout: 30_000, requestTimeout: 60_000, headersTimeout: HEADERS_TIMEOUT_MS, connectionsCheckingInterval: 1_000 }, onRequest(false));
  server.on('checkContinue', onRequest(true));
  server.on('connection', (socket: Socket) => waiting.add(socket));
  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      if (err.code === 'EADDRINUSE') reject(new UsageError(`port ${options.port} on ${options.host} is already in use`, { hint: 'Pick another with --port (0 picks a free one), or stop what listens there.' }));
      else if (err.code === 'EACCES') reject(new UsageError(`not allowed to listen on port ${options.port}`, { hint: 'Use a port above 1023, or --port 0.' }));
      else if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') reject(new UsageError(`--host ${options.host} is not an address of this machine`, { hint: 'Give one of its addresses, 0.0.0.0 for all, or leave --host out for 127.0.0.1.' }));
      else reject(err);
    };
    server.once('error', onError);
    server.listen(options.port, options.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  server.on('error', () => undefined);
  server.maxConnections = MAX_CONNECTIONS;
  const port = (server.address() as AddressInfo).port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    stats: () => ({ ...stats }),
    close: (drainMs = 5_000) => {
      closed ??= new Promise<void>((resolve) => {
        closing = true;
        const cutOff = setTimeout(() => server.closeAllConnections(), drainMs);
        server.close(() => {
          clearTimeout(cutOff);
          void log.close().finally(resolve);
        });
        server.closeIdleConnections();
      });
      return closed;
    },
  };
}

/** How long a connection answered before its body was read keeps being read (and discarded). */
const LINGER_MS = 5_000;

/**
 * A lingering close, as nginx does it: an answer given before the body was read (413, busy) is
 * followed by our half of the close, and the rest of the body is read and dropped until the sender
 * closes its half (or LINGER_MS pass). Closed at once, the socket would reset the connection while
 * the sender still writes, and most clients then lose the answer with the reset.
 */
function linger(socket: Socket): void {
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  // Node's server ends a `connection: close` answer with destroySoon(): here only our half closes.
  socket.destroySoon = () => socket.end();
  socket.once('end', () => socket.destroy());
  socket.once('close', () => clearTimeout(timer));
  socket.resume();
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
