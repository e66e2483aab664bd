// The HTTP side of `msgr listen` (docs/events.md: "msgr listen"): takes webhook deliveries of any
// shape, checks the token, cuts the body into events, records the new ones (event-log.ts) and
// answers 2xx only once they are on disk. What it cannot store is answered 503, never a 4xx:
// senders retry a 5xx and drop most 4xx. Everything else (the terminal, opt-outs, forwarding)
// hangs off the hooks, so this file is the one place that decides what an answer means.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../errors.js';
import { dedupKey, type Dedup } from './dedup.js';
import { StoreError, type EventLog } from './event-log.js';
import { summarise, type EventSummary, type FieldPaths } from './fields.js';
import { keptHeaders, keptQuery, parseForm, RECORD_VERSION, splitBody, type BodyEvent, type EventRecord } from './records.js';

/** Largest body taken by default; above it 413 (bodies of SMS events are a few hundred bytes). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** How long a 503 asks the sender to wait before it tries again. */
export const RETRY_AFTER_SECONDS = 5;
/**
 * Bytes of bodies being read at once, all requests together: beyond it a request is answered 503
 * (the sender retries), so memory stays bounded however many senders post big bodies at once.
 */
export const MAX_READING_BYTES = 64 * 1024 * 1024;
/** Connections at once; more wait in the kernel's backlog. */
export const MAX_CONNECTIONS = 1024;

export interface Received {
  readonly record: EventRecord;
  readonly summary: EventSummary;
  readonly parsed: unknown;
  /** Recorded before (this is the sender's retry): not written again. */
  readonly duplicate: boolean;
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
}

export interface ListenerStats {
  requests: number;
  recorded: number;
  duplicates: number;
  refused: number;
  unavailable: number;
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

export async function startListener(options: ListenerOptions): Promise<RunningListener> {
  const { log, dedup } = options;
  const fields = options.fields ?? {};
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const tokenDigest = digest(options.token);
  const idPrefix = `ev_${randomBytes(4).toString('hex')}_`;
  let counter = 0;
  const stats: ListenerStats = { requests: 0, recorded: 0, duplicates: 0, refused: 0, unavailable: 0 };
  let closing = false;

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

  async function decide(req: IncomingMessage): Promise<Answer> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const rawPath = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? '' : url.slice(q + 1);
    const path = authorise(req, rawPath);
    if (path === undefined) {
      stats.refused++;
      options.onRefused?.(401, `${req.method ?? '?'} without the listener's token`);
      return { status: 401, headers: { 'www-authenticate': 'Bearer realm="msgr listen"' }, body: 'the listener\'s token is missing or wrong: put it in the path (/TOKEN) or an Authorization: Bearer header\n' };
    }
    const method = req.method ?? 'POST';
    let events: BodyEvent[];
    const contentType = headerValue(req.headers['content-type']);
    if (method === 'POST' || method === 'PUT' || method === 'PATCH') {
      const raw = await readBody(req, maxBody);
      if (raw === 'too-large') {
        stats.refused++;
        options.onRefused?.(413, `a body over ${maxBody} bytes`);
        return { status: 413, headers: { connection: 'close' }, body: `the body is over ${maxBody} bytes\n` };
      }
      if (raw === 'busy') {
        stats.unavailable++;
        options.onRefused?.(503, `more than ${MAX_READING_BYTES >> 20} MiB of bodies are being read at once`);
        return { status: 503, headers: { 'retry-after': String(RETRY_AFTER_SECONDS), connection: 'close' }, body: 'busy: retry later\n' };
      }
      events = splitBody(raw, contentType);
    } else if (method === 'GET' || method === 'HEAD') {
      // A receipt sent as query parameters is an event; a bare GET is a URL check.
      const kept = keptQuery(query);
      if (method === 'HEAD' || kept === undefined) return { status: 200, body: method === 'HEAD' ? '' : 'msgr listen: ready\n' };
      events = [{ parsed: parseForm(kept), bytes: Buffer.from(kept) }];
    } else {
      stats.refused++;
      options.onRefused?.(405, `method ${method}`);
      return { status: 405, headers: { allow: 'POST, PUT, PATCH, GET' }, body: '' };
    }
    return store(req, method, path, keptQuery(query), contentType, events);
  }

  async function store(req: IncomingMessage, method: string, path: string, query: string | undefined, contentType: string | undefined, events: BodyEvent[]): Promise<Answer> {
    const nowMs = Date.now();
    const receivedAt = new Date(nowMs).toISOString();
    const headers = keptHeaders(req.headers);
    const received: Received[] = [];
    const waits: Array<Promise<void>> = [];
    const fresh = new Set<string>();
    let lines = '';
    for (const ev of events) {
      const summary = summarise(ev.parsed, fields);
      const key = dedupKey(summary, req.headers, ev.bytes, ev.item);
      const seen = dedup.find(key, nowMs) ?? (fresh.has(key) ? { durable: undefined } : undefined);
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
        if (seen.durable !== undefined) waits.push(seen.durable);
        received.push({ record, summary, parsed: ev.parsed, duplicate: true });
        continue;
      }
      fresh.add(key);
      lines += `${JSON.stringify(record)}\n`;
      received.push({ record, summary, parsed: ev.parsed, duplicate: false });
    }
    const written = lines === '' ? undefined : log.append(lines);
    if (written !== undefined) for (const key of fresh) dedup.remember(key, nowMs, written);
    try {
      await Promise.all(written !== undefined ? [written, ...waits] : waits);
      await options.afterStore?.(received);
    } catch (err) {
      if (!(err instanceof StoreError)) throw err;
      // Not on disk: the sender's retry must be recorded, not taken for a duplicate.
      if (written !== undefined) {
        const failed = await written.then(() => false, () => true);
        if (failed) for (const key of fresh) dedup.forget(key);
      }
      stats.unavailable++;
      options.onRefused?.(503, err.message);
      return { status: 503, headers: { 'retry-after': String(RETRY_AFTER_SECONDS) }, body: `not stored: ${err.message}; retry later\n` };
    }
    for (const r of received) {
      if (r.duplicate) stats.duplicates++;
      else stats.recorded++;
      options.onEvent?.(r);
    }
    return { status: 200, headers: { 'x-msgr-recorded': String(fresh.size), 'x-msgr-duplicates': String(received.length - fresh.size) }, body: '' };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    stats.requests++;
    let answer: Answer;
    try {
      answer = await decide(req);
    } catch (err) {
      if (req.destroyed || res.destroyed) return;
      // Not the events' fault, and nothing was stored: the sender keeps the event and retries.
      stats.unavailable++;
      options.onRefused?.(503, (err as Error).message);
      answer = { status: 503, headers: { 'retry-after': String(RETRY_AFTER_SECONDS) }, body: '' };
    }
    if (res.destroyed) return;
    const body = answer.body ?? '';
    res.writeHead(answer.status, {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
      ...answer.headers,
      ...(closing ? { connection: 'close' } : {}),
    });
    res.end(body);
    if (answer.headers?.connection === 'close') req.socket.end();
  }

  const server = createServer({ keepAliveTimeout: 30_000, requestTimeout: 60_000, headersTimeout: 20_000 }, (req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.destroy();
    });
  });
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
