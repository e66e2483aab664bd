// The HTTP main.ts gives the Context (src/http-interface.ts: Http): the API's clients
// (./client.ts) and single requests to URLs outside the API, the events msgr forwards, triggers
// and posts as the sandbox. Every failure of either is sorted in one place, ./outcome.ts
// (classifyNetworkError): not sent, in doubt, or answered (docs/design.md: "HTTP").
import type { Dispatcher } from 'undici';
import type { HookAnswer, HookFailure, HookRequest, Http } from '../http-interface.js';
import { createClient, describeNetworkError } from './client.js';
import { classifyNetworkError, errorCode } from './outcome.js';
import { AfterRequestStart, Agent, BodyCutShort, roundTrip } from './undici.js';

/**
 * The pool of requests outside the API, made on the first: no proxy and the default CA roots
 * (NODE_EXTRA_CA_CERTS and NODE_USE_SYSTEM_CA included), undici's defaults otherwise, as Node's
 * fetch() had them when these requests went through it (docs/events.md: "Forwarding and replay").
 */
let hookPool: Dispatcher | undefined;

/** One request outside the API, sent once, its failure sorted as the API's are. */
export async function hook(req: HookRequest): Promise<HookAnswer> {
  hookPool ??= new Agent();
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal === undefined ? timeout : AbortSignal.any([timeout, req.signal]);
  let started = false;
  const trip = roundTrip(hookPool, req.url, {
    method: req.method,
    headers: { ...req.headers },
    body: req.body,
    signal,
    limit: req.keepBytes ?? 0,
    onStart: () => (started = true),
  });
  // A request still connecting is not held up by undici's abort (it takes effect as the request
  // starts): the time is up, or the caller gave up, when the signal says so.
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<'stopped'>((resolve) => {
    onAbort = () => resolve('stopped');
    if (signal.aborted) resolve('stopped');
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  const failed = (err: unknown): HookFailure => {
    const cause = err instanceof AfterRequestStart || err instanceof BodyCutShort ? err.cause : err;
    const sorted = classifyNetworkError(cause, started || err instanceof AfterRequestStart || err instanceof BodyCutShort);
    return { kind: sorted.kind, reason: reasonOf(cause, req), words: scrub(describeNetworkError(cause, errorCode(cause)), req), timedOut: timeout.aborted, abandoned: req.signal?.aborted === true };
  };
  try {
    const answer = await Promise.race([trip, stopped]);
    if (answer === 'stopped') {
      trip.catch(() => undefined);
      // Given up before the request started on a connection: nothing of it left.
      const failure = failed(signal.reason);
      return started ? failure : { ...failure, kind: 'not-sent' };
    }
    return { kind: 'answered', status: answer.status, text: answer.text };
  } catch (err) {
    // A programming error is a bug (exit 1), not a network outcome.
    if ((err instanceof TypeError || err instanceof ReferenceError) && (err as { code?: unknown }).code === undefined) throw err;
    // The status line came: answered, whatever became of the body.
    if (err instanceof BodyCutShort && !signal.aborted) return { kind: 'answered', status: err.status, text: '' };
    return failed(err);
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}

/**
 * A failure's code (`ECONNREFUSED`); without one, its message, with the URL and every header
 * value taken out: a listener's token rides in its URL, a forward's password in Authorization.
 */
function reasonOf(err: unknown, req: HookRequest): string {
  const code = errorCode(err);
  if (code !== 'UNKNOWN') return code;
  return scrub(err instanceof Error ? err.message : String(err), req);
}

/** Text about a request without its URL or a header's value in it. */
function scrub(text: string, req: HookRequest): string {
  const secrets = [req.url.href, `${req.url.pathname}${req.url.search}`, ...Object.values(req.headers)].filter((s) => s.length >= 4 && s !== '/');
  let out = text;
  for (const s of secrets.sort((a, b) => b.length - a.length)) out = out.split(s).join('***');
  return out;
}

/** The Context's HTTP (src/context.ts: `http`). */
export const http: Http = { client: createClient, hook };
