// `msgr sandbox`: a local emulator of `POST /v2/messages` (docs/api.md: "Endpoint"),
// strict about requests, its own documented choices about answers (docs/sandbox.md). Used by
// `msgr sandbox`, by `msgr send --sandbox` in-process, by e2e tests and by the bulk benchmark,
// so the hot path is plain code and it keeps no per-recipient state.
import { createRandom } from './random.js';
import { isLoopbackHost } from '../http/endpoint.js';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../errors.js';
import { maskUrl, showControls } from '../output/sanitize.js';
import { IdempotencyCache, IDEMPOTENCY_KEY_PATTERN } from './idempotency.js';
import { examineBody, type Examined, type ExamineJob } from './examine.js';
import { ExaminePool } from './pool.js';
import { batchIdFor } from './response.js';
import { planEvents, type EventPlanOptions } from './own-events.js';
import { WebhookSender, type WebhookStats } from './webhooks.js';
import type { ValidMessageRequest } from './validate.js';
import type { Http } from '../http-interface.js';

/** Without the Context's HTTP, each post fails (and is counted as not acknowledged). */
const noHttp = (): Promise<Http> => Promise.reject(new Error('no HTTP to post the events with'));

export interface SandboxOptions {
  /** Default '127.0.0.1'. Only loopback hosts are accepted: nothing here is meant to be reachable. */
  host?: string;
  /** Default 4010; 0 picks a free port (read it from `RunningSandbox.port`). */
  port?: number;
  /** If set, X-Api-Key must equal it; if unset, any non-empty key is accepted. */
  apiKey?: string;
  /** If set, accountReference must equal it (else 403). */
  account?: string;
  /** Appends one JSON line per accepted request (docs/sandbox.md, "Record file"). */
  record?: string;
  /** Delay before every answer, milliseconds. */
  latencyMs?: number;
  /** 0..1: fraction of valid requests answered 500 (nothing recorded). */
  errorRate?: number;
  /** Requests per second on /v2/messages; beyond it 429 with Retry-After. */
  rateLimit?: number;
  /** Seed of the error-rate PRNG; the same seed and requests give the same 500s. */
  seed?: number;
  /** One line per request, for people. Never contains the API key. */
  log?: (line: string) => void;
  /** Largest request body accepted, bytes (default MAX_BODY_BYTES); beyond it 413. */
  maxBodyBytes?: number;
  /**
   * Worker threads that examine bodies of POOL_MIN_BYTES or more (parse, validate, build the
   * answer); 0: all on the server's thread. Default: 2 when there are 2 cores or more.
   */
  threads?: number;
  /** Start those threads with the server, not on the first big body (`msgr sandbox`). */
  startThreads?: boolean;
  /** Post delivery events and replies for every accepted recipient (docs/events.md: "The sandbox's events"). */
  webhook?: SandboxWebhook;
  /** The Context's HTTP, through which the webhook's events are posted (needed with `webhook`). */
  http?: () => Promise<Http>;
}

export interface SandboxWebhook {
  readonly url: string;
  readonly plan: EventPlanOptions;
  /** Give an event up this long after its first attempt (default 10 minutes). */
  readonly retryForMs?: number;
  /** Appends one JSON line per event the receiver acknowledged. */
  readonly record?: string;
  readonly concurrency?: number;
}

/** The events' defaults: every recipient delivered a second after acceptance, no replies. */
export const DEFAULT_EVENT_PLAN: EventPlanOptions = { delayMs: 1_000, failedRate: 0, expiredRate: 0, sentEvents: false, partReceipts: false, replyRate: 0, replyTexts: ['STOP'] };

export interface RunningSandbox {
  /** For example 'http://127.0.0.1:4010', no trailing slash. */
  url: string;
  port: number;
  /**
   * Stops listening. With drainMs, requests already received are still answered for up to that
   * long (a client mid-request then learns its outcome); the rest are cut off. With
   * webhookFlushMs, events still queued are posted now, retried for up to that long (an
   * in-process sandbox whose command ends); without, they are dropped.
   */
  close(drainMs?: number, webhookFlushMs?: number): Promise<void>;
  /**
   * `requests`: each counted once it is decided (read whole, then answered or held for
   * latencyMs), or once its client went away mid-body: an Idempotency-Key a counted request
   * carries is in flight by then.
   */
  stats(): { requests: number; accepted: number; recipients: number; webhooks?: Readonly<WebhookStats> & { readonly unsent: number } };
}

export const DEFAULT_PORT = 4010;
export const DEFAULT_HOST = '127.0.0.1';
/** 10,000 recipients with a few variables and metaData each fit with room to spare. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;
export const MESSAGES_PATH = '/v2/messages';
/** Bodies from this size are examined in a worker thread (a batch of ~500 recipients). */
export const POOL_MIN_BYTES = 32 * 1024;


const PROBLEM_TYPE = 'urn:msgr:sandbox:problem:';

/** A token bucket holding one second of requests, so short bursts up to the rate pass. */
function createRateLimiter(perSecond: number): () => number {
  const capacity = Math.max(1, perSecond);
  let tokens = capacity;
  let last = performance.now();
  /** Returns 0 when the request may pass, else the milliseconds until it could. */
  return () => {
    const now = performance.now();
    tokens = Math.min(capacity, tokens + ((now - last) / 1000) * perSecond);
    last = now;
    if (tokens >= 1) {
      tokens -= 1;
      return 0;
    }
    return ((1 - tokens) / perSecond) * 1000;
  };
}

interface Reply {
  status: number;
  body: string | Uint8Array;
  contentType?: string;
  headers?: Record<string, string>;
  /** What the log line says after the status. */
  note: string;
  /** Runs after the latency, just before the answer is written (recording, caching). */
  commit?: () => void;
}

function problem(status: number, slug: string, title: string, detail: string, extra: Record<string, unknown> = {}): Reply {
  return {
    status,
    body: JSON.stringify({ type: PROBLEM_TYPE + slug, title, status, detail, ...extra }),
    contentType: 'application/problem+json',
    note: detail,
  };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

function sha256(data: string | Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}

/** application/json, optionally with charset=utf-8; any other media type or charset is 415. */
function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const [type, ...params] = value.split(';');
  if (type?.trim().toLowerCase() !== 'application/json') return false;
  for (const param of params) {
    const [name, raw] = param.split('=');
    if (name?.trim().toLowerCase() === 'charset' && raw?.trim().replace(/^"|"$/g, '').toLowerCase() !== 'utf-8') return false;
  }
  return true;
}

/** Reads the whole body, or drains it when it is over the limit so the client still gets its 413. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | { tooLarge: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else chunks.length = 0;
    });
    req.on('end', () => resolve(size > limit ? { tooLarge: size } : Buffer.concat(chunks, size)));
    req.on('error', reject);
    req.on('aborted', () => reject(new Error('request aborted')));
  });
}

function writeAll(fd: number, text: string): void {
  const buf = Buffer.from(text, 'utf8');
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
}

function checkOptions(o: SandboxOptions): void {
  const host = o.host ?? DEFAULT_HOST;
  if (!isLoopbackHost(host)) {
    throw new UsageError(`sandbox host ${JSON.stringify(host)} is not a loopback address`, {
      hint: 'the sandbox only listens on 127.0.0.1, ::1 or localhost',
    });
  }
  const port = o.port ?? DEFAULT_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`sandbox port must be an integer from 0 to 65535 (got ${port})`);
  if (o.errorRate !== undefined && !(o.errorRate >= 0 && o.errorRate <= 1)) {
    throw new UsageError(`sandbox error rate must be between 0 and 1 (got ${o.errorRate})`);
  }
  if (o.rateLimit !== undefined && !(o.rateLimit > 0 && Number.isFinite(o.rateLimit))) {
    throw new UsageError(`sandbox rate limit must be a number of requests per second above 0 (got ${o.rateLimit})`);
  }
  if (o.latencyMs !== undefined && !(o.latencyMs >= 0 && Number.isFinite(o.latencyMs))) {
    throw new UsageError(`sandbox latency must be 0 or more milliseconds (got ${o.latencyMs})`);
  }
  if (o.maxBodyBytes !== undefined && !(Number.isInteger(o.maxBodyBytes) && o.maxBodyBytes > 0)) {
    throw new UsageError(`sandbox body limit must be a positive integer (got ${o.maxBodyBytes})`);
  }
  if (o.threads !== undefined && !(Number.isInteger(o.threads) && o.threads >= 0 && o.threads <= 64)) {
    throw new UsageError(`sandbox threads must be an integer from 0 to 64 (got ${o.threads})`);
  }
  if (o.apiKey === '') throw new UsageError('sandbox API key must not be empty (leave it unset to accept any key)');
  if (o.webhook !== undefined) checkWebhook(o.webhook);
}

function checkWebhook(w: SandboxWebhook): void {
  let url: URL | undefined;
  try {
    url = new URL(w.url);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UsageError(`the webhook URL ${maskUrl(w.url, { hidePath: true })} is not an http:// or https:// URL`, { hint: 'For a local listener: MSGR_WEBHOOK_URL="$(msgr listen --print-url)" (a variable keeps its token out of `ps`)' });
  }
  const p = w.plan;
  if (!(p.failedRate >= 0 && p.expiredRate >= 0 && p.failedRate + p.expiredRate <= 1)) throw new UsageError('the failed and expired rates must be fractions from 0 to 1 that add up to 1 at most');
  if (!(p.replyRate >= 0 && p.replyRate <= 1)) throw new UsageError('the reply rate must be a fraction from 0 to 1');
  if (!(p.delayMs >= 0 && Number.isFinite(p.delayMs))) throw new UsageError('the event delay must be 0 or more milliseconds');
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  checkOptions(options);
  const host = (options.host ?? DEFAULT_HOST).replace(/^\[(.*)\]$/, '$1');
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const latencyMs = options.latencyMs ?? 0;
  const errorRate = options.errorRate ?? 0;
  const random = createRandom(options.seed ?? randomBytes(4).readUInt32LE(0));
  const rateLimited = options.rateLimit === undefined ? undefined : createRateLimiter(options.rateLimit);
  const expectedKeyHash = options.apiKey === undefined ? undefined : sha256(options.apiKey);
  const cache = new IdempotencyCache();
  const threads = options.threads ?? (availableParallelism() >= 2 ? 2 : 0);
  const pool = threads > 0 ? new ExaminePool(threads) : undefined;
  const counters = { requests: 0, accepted: 0, recipients: 0 };
  const timers = new Set<NodeJS.Timeout>();
  const log = options.log;
  const webhook = options.webhook;
  // A generator of its own, so a seed gives the same 500s with events on or off.
  const eventRandom = createRandom(((options.seed ?? randomBytes(4).readUInt32LE(0)) + 0x9e3779b9) >>> 0);
  let unsent = 0;

  let webhooks: WebhookSender | undefined;
  if (webhook !== undefined) {
    try {
      webhooks = new WebhookSender({ url: webhook.url, http: options.http ?? noHttp, retryForMs: webhook.retryForMs, concurrency: webhook.concurrency, record: webhook.record, userAgent: 'msgr-sandbox', log });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? String(err);
      throw new UsageError(`cannot open the webhook record file ${webhook.record ?? ''} (${code})`, { hint: 'check that its folder exists and is writable' });
    }
  }
  let recordFd: number | undefined;
  if (options.record !== undefined) {
    try {
      recordFd = openSync(options.record, 'a', 0o600);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? String(err);
      throw new UsageError(`cannot open the record file ${options.record} (${code})`, { hint: 'check that its folder exists and is writable' });
    }
  }

  /** Keys are never logged: redact the configured one and any long-enough key a client sent. */
  const redactLine = (line: string, givenKey: string | undefined): string => {
    let out = line;
    if (options.apiKey !== undefined) out = out.split(options.apiKey).join('****');
    if (givenKey !== undefined && givenKey.length >= 6) out = out.split(givenKey).join('****');
    return out;
  };

  async function decide(req: IncomingMessage): Promise<Reply> {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (path !== MESSAGES_PATH) {
      return problem(404, 'not-found', 'Not Found', `no such endpoint; the sandbox serves POST ${MESSAGES_PATH}`);
    }
    if (req.method !== 'POST') {
      return { ...problem(405, 'method-not-allowed', 'Method Not Allowed', `${MESSAGES_PATH} takes POST only`), headers: { allow: 'POST' } };
    }
    const givenKey = headerValue(req.headers['x-api-key']);
    if (givenKey === undefined || givenKey === '') {
      return problem(401, 'unauthorized', 'Unauthorized', 'the X-Api-Key header is missing');
    }
    if (expectedKeyHash !== undefined && !timingSafeEqual(sha256(givenKey), expectedKeyHash)) {
      return problem(401, 'unauthorized', 'Unauthorized', 'the X-Api-Key header does not match the sandbox key');
    }
    if (rateLimited !== undefined) {
      const waitMs = rateLimited();
      if (waitMs > 0) {
        const seconds = Math.max(1, Math.ceil(waitMs / 1000));
        return {
          ...problem(429, 'rate-limited', 'Too Many Requests', `over the sandbox rate limit of ${options.rateLimit} requests per second; retry after ${seconds} s`),
          headers: { 'retry-after': String(seconds) },
        };
      }
    }
    if (!isJsonContentType(headerValue(req.headers['content-type']))) {
      return problem(415, 'unsupported-media-type', 'Unsupported Media Type', 'the request body must be sent with Content-Type: application/json');
    }
    const raw = await readBody(req, maxBody);
    if (!Buffer.isBuffer(raw)) {
      return problem(413, 'payload-too-large', 'Content Too Large', `the request body is ${raw.tooLarge} bytes; the sandbox takes at most ${maxBody}`);
    }
    const idempotencyKey = headerValue(req.headers['idempotency-key']);
    // The 202 body is built with the batch token while the body is examined: a replay's token
    // when the key is known already (checked again below), else a new one.
    const known = idempotencyKey !== undefined ? cache.peek(idempotencyKey) : undefined;
    const fresh = known?.state !== 'done';
    const job: ExamineJob = {
      nowMs: Date.now(),
      token: known?.state === 'done' ? known.token : randomBytes(8).toString('hex'),
      receivedAt: known?.state === 'done' ? known.receivedAt : new Date().toISOString(),
      hash: idempotencyKey !== undefined,
      record: recordFd !== undefined,
    };
    const examined = raw.length >= POOL_MIN_BYTES && pool?.usable === true ? await pool.run(raw, job) : examineBody(raw, job);
    switch (examined.kind) {
      case 'not-utf8':
        return problem(400, 'bad-request', 'Bad Request', 'the request body is not valid UTF-8');
      case 'not-json':
        return problem(400, 'bad-request', 'Bad Request', `the request body is not valid JSON: ${examined.message}`);
      case 'invalid': {
        const first = examined.errors[0];
        const more = examined.errorCount > 1 ? ` (and ${examined.errorCount - 1} more)` : '';
        return {
          ...problem(422, 'invalid-request', 'Unprocessable Content', `the request has ${examined.errorCount} invalid field${examined.errorCount === 1 ? '' : 's'}`, {
            errors: examined.errors,
            ...(examined.errorCount > examined.errors.length ? { errorCount: examined.errorCount } : {}),
          }),
          note: `${first?.field ?? '$'}: ${first?.message ?? 'invalid'}${more}`,
        };
      }
      case 'valid':
        break;
    }
    if (options.account !== undefined && examined.accountReference !== options.account) {
      return problem(403, 'forbidden', 'Forbidden', 'accountReference is not an account this key may use');
    }
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
      return problem(400, 'bad-idempotency-key', 'Bad Request', 'Idempotency-Key must be 1 to 255 printable ASCII characters');
    }
    if (errorRate > 0 && random() < errorRate) {
      return problem(500, 'simulated-failure', 'Internal Server Error', 'simulated failure (error rate); nothing was accepted or recorded');
    }

    let accepted = examined;
    const hash = examined.hash;
    if (idempotencyKey !== undefined && hash !== undefined) {
      const entry = cache.get(idempotencyKey);
      if (entry !== undefined) {
        if (entry.hash !== hash) {
          return problem(422, 'idempotency-key-reused', 'Unprocessable Content', 'this Idempotency-Key was already used with a different request body');
        }
        if (entry.state === 'pending') {
          return problem(409, 'idempotency-key-in-use', 'Conflict', 'a request with this Idempotency-Key is still being processed; retry later');
        }
        // The same answer as the first time: rebuilt here if the key's entry changed meanwhile.
        const replay = entry.token === examined.token && entry.receivedAt === examined.receivedAt ? examined : again(raw, { ...job, token: entry.token, receivedAt: entry.receivedAt });
        return {
          status: 202,
          body: replay.body,
          headers: { 'idempotent-replayed': 'true' },
          note: `replayed ${batchIdFor(entry.token)} (same Idempotency-Key and body; not recorded again)`,
        };
      }
      cache.set(idempotencyKey, { state: 'pending', hash });
    }
    // A token meant for a replay whose entry has gone since: this is a new batch after all.
    if (!fresh) accepted = again(raw, { ...job, token: randomBytes(8).toString('hex'), receivedAt: new Date().toISOString() });

    const { token, receivedAt } = accepted;
    const batchId = batchIdFor(token);
    const { recipients, contacts, fallbacks } = accepted.summary;
    const parts = [`${recipients} recipient${recipients === 1 ? '' : 's'}`];
    if (contacts > 0) parts.push(`${contacts} contact${contacts === 1 ? '' : 's'}`);
    const fellBack = fallbacks > 0 ? `, ${fallbacks} fell back to SMS` : '';
    return {
      status: 202,
      body: accepted.body,
      note: `accepted ${batchId}: ${parts.join(', ')} by ${accepted.channel}${fellBack}`,
      commit: () => {
        try {
          if (recordFd !== undefined) {
            const key = idempotencyKey === undefined ? 'null' : JSON.stringify(idempotencyKey);
            // Written synchronously before the 202 leaves: a client that got its answer finds the line.
            writeAll(recordFd, `{"receivedAt":"${receivedAt}","batchId":"${batchId}","idempotencyKey":${key},"request":${accepted.record ?? 'null'}}\n`);
          }
        } catch (err) {
          if (idempotencyKey !== undefined) cache.delete(idempotencyKey);
          throw err;
        }
        if (idempotencyKey !== undefined && hash !== undefined) cache.set(idempotencyKey, { state: 'done', hash, token, receivedAt });
        counters.accepted += 1;
        counters.recipients += recipients + contacts;
        if (webhooks !== undefined && webhook !== undefined) {
          const request = JSON.parse(raw.toString('utf8')) as ValidMessageRequest;
          webhooks.schedule(planEvents(request, token, Date.now(), webhook.plan, eventRandom));
        }
      },
    };
  }

  /** Examines a body again on this thread, with another token (a rare race on one key). */
  function again(raw: Buffer, job: ExamineJob): Extract<Examined, { kind: 'valid' }> {
    const r = examineBody(raw, job);
    if (r.kind !== 'valid') throw new Error('a valid body examined again was not valid');
    return r;
  }

  function delay(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });
  }

  let closing: Promise<void> | undefined;
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    let reply: Reply;
    try {
      reply = await decide(req);
    } catch (err) {
      if (req.destroyed || res.destroyed) return; // the client went away mid-body
      reply = problem(500, 'internal', 'Internal Server Error', `sandbox error: ${(err as Error).message}`);
    } finally {
      counters.requests += 1;
    }
    await delay(latencyMs);
    if (reply.commit !== undefined) {
      try {
        reply.commit();
      } catch (err) {
        reply = problem(500, 'record-failed', 'Internal Server Error', `the sandbox could not write its record file: ${(err as Error).message}`);
      }
    }
    if (!res.destroyed) {
      res.writeHead(reply.status, {
        'content-type': reply.contentType ?? 'application/json',
        'content-length': Buffer.byteLength(reply.body),
        'cache-control': 'no-store',
        ...reply.headers,
        // Stopping: the answer closes its connection, so a client sends no new request on it
        // that the drain's deadline would cut off unanswered (in doubt for the client).
        ...(closing !== undefined ? { connection: 'close' } : {}),
      });
      res.end(reply.body);
    }
    if (log !== undefined) {
      const path = (req.url ?? '/').replace(/\?.*$/s, '').replace(/[^\x21-\x7e]/g, '?').slice(0, 120);
      const ms = Math.round(performance.now() - started);
      const line = `${new Date().toISOString()} ${req.method ?? '?'} ${path} ${reply.status} ${reply.note} (${ms} ms)`;
      log(redactLine(showControls(line), headerValue(req.headers['x-api-key'])));
    }
  }

  const server = createServer({ keepAliveTimeout: 5_000, requestTimeout: 120_000 }, (req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    const onListenError = (err: NodeJS.ErrnoException): void => {
      if (recordFd !== undefined) closeSync(recordFd);
      if (err.code === 'EADDRINUSE') {
        reject(new UsageError(`port ${options.port ?? DEFAULT_PORT} on ${host} is already in use`, { hint: 'pick another with --port, or --port 0 for a free one' }));
      } else if (err.code === 'EACCES') {
        reject(new UsageError(`not allowed to listen on port ${options.port ?? DEFAULT_PORT}`, { hint: 'use a port above 1023, or --port 0' }));
      } else {
        reject(err);
      }
    };
    server.once('error', onListenError);
    server.listen(options.port ?? DEFAULT_PORT, host, () => {
      server.off('error', onListenError);
      resolve();
    });
  });
  // A socket error after start-up must not crash the process that hosts the sandbox.
  server.on('error', () => undefined);
  if (options.startThreads === true) pool?.start();

  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    port,
    stats: () => ({ ...counters, ...(webhooks !== undefined ? { webhooks: { ...webhooks.stats(), unsent } } : {}) }),
    close: (drainMs = 0, webhookFlushMs = 0) => {
      closing ??= new Promise<void>((resolve) => {
        const cutOff = (): void => {
          for (const t of timers) clearTimeout(t);
          timers.clear();
          server.closeAllConnections();
        };
        const deadline = drainMs > 0 ? setTimeout(cutOff, drainMs) : undefined;
        server.close(() => {
          if (deadline !== undefined) clearTimeout(deadline);
          void pool?.close();
          if (recordFd !== undefined) closeSync(recordFd);
          recordFd = undefined;
          if (webhooks === undefined) return resolve();
          void webhooks.close(webhookFlushMs).then((left) => {
            unsent = left;
            resolve();
          });
        });
        if (deadline === undefined) cutOff();
        else server.closeIdleConnections();
      });
      return closing;
    },
  };
}
