// What happened to one request, in the terms of docs/contract.md: "Exit codes" and "Retries".
// Every failure is one of: never sent, rejected (auth or other), or outcome unknown.
import { isTlsCode, tlsFailureOf } from './trust.js';
import { maskUrl } from '../output/sanitize.js';
import type { Outcome } from '../http-interface.js';

export type { Outcome } from '../http-interface.js';

export type OutcomeKind = Outcome['kind'];

// undici and Node error codes for failures that happen before any byte of the request leaves
// (docs/dependencies.md: "undici 7"). Certificate failures are in this class too.
const NEVER_SENT_CODES = new Set([
  // The proxy did not open the tunnel (http/tunnel.ts): nothing of the request left.
  'MSGR_PROXY_TUNNEL',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_PRX_TLS',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
  // undici refuses an invalid request (a header with a control character, say) before sending.
  'UND_ERR_INVALID_ARG',
]);

// A connection that was never made: the host's name did not resolve, or nothing answered at its
// address and port (refused, no route, no answer within the connect timeout).
const UNREACHABLE_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);

// Of those, the ones worth retrying: they might go through next time. A name that does not exist
// (ENOTFOUND, EAI_NONAME) will not exist a second later; a temporary DNS failure (EAI_AGAIN) may
// clear. Certificate problems are never-sent too, but retrying cannot fix them
// (docs/contract.md: "Retries").
const RETRYABLE_CODES = new Set(['EAI_AGAIN', 'ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * `unreachable`: the connection to the API's host was never made (the proxy's failures are the
 * tunnel's, `config` when only a fix helps).
 */
export type FailureClass = { kind: 'not-sent'; retryable: boolean; unreachable: boolean; config?: boolean } | { kind: 'unknown' };

/** What the tunnel connector (http/tunnel.ts) fails with, before the tunnel is up. */
export const TUNNEL_CODE = 'MSGR_PROXY_TUNNEL';

/**
 * A CONNECT that was not answered 2xx carried none of the request: never sent, whatever the
 * answer. Missing or refused credentials, a policy refusal and other 4xx answers need a fix
 * first (config); the proxy failing to reach the API (5xx, 408, 429), or the proxy itself
 * unreachable, refusing, dropping or timing out the connection, are retried like any
 * connection failure, except a proxy host name that does not exist.
 */
export function classifyTunnelFailure(failure: { status?: number | undefined; cause?: string | undefined }): { retryable: boolean; config: boolean } {
  const s = failure.status;
  if (s !== undefined) {
    const temporary = s >= 500 || s === 408 || s === 429;
    return { retryable: temporary, config: !temporary };
  }
  if (failure.cause === 'BAD_ANSWER') return { retryable: false, config: true };
  // TLS with an https:// proxy: retrying cannot fix it; a handshake that fails outright is a
  // proxy that does not speak TLS there, a setting to fix (docs/network.md: "When the proxy says no").
  if (failure.cause !== undefined && isTlsCode(failure.cause)) return { retryable: false, config: tlsFailureOf(failure.cause) === 'handshake' };
  // A proxy host name that does not exist will not exist on the next attempt either.
  if (failure.cause === 'ENOTFOUND' || failure.cause === 'EAI_NONAME') return { retryable: false, config: false };
  return { retryable: true, config: false };
}

/** Classifies a thrown network error by its code (and its cause's code). */
export function classifyNetworkError(err: unknown, requestStarted = false): FailureClass & { code: string } {
  const code = errorCode(err);
  // Once the request was on its way, no error proves it never left: a TLS alert or a bad record
  // while the answer is read is as unknown as a reset (docs/dependencies.md: "undici 7").
  if (requestStarted) return { kind: 'unknown', code };
  if (code === TUNNEL_CODE) {
    const failure = findTunnelFailure(err) ?? {};
    return { kind: 'not-sent', unreachable: false, ...classifyTunnelFailure(failure), code };
  }
  if (NEVER_SENT_CODES.has(code) || /^ERR_TLS_|^ERR_SSL_|CERT/.test(code)) {
    return { kind: 'not-sent', retryable: RETRYABLE_CODES.has(code), unreachable: UNREACHABLE_CODES.has(code), code };
  }
  // Headers/body timeouts, "other side closed", ECONNRESET, EPIPE, aborts after the write:
  // the server may have processed the request (docs/dependencies.md: "undici 7").
  return { kind: 'unknown', code };
}

function findTunnelFailure(err: unknown): { status?: number; cause?: string } | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e !== null && typeof e === 'object'; depth++) {
    const failure = (e as { failure?: unknown }).failure;
    if ((e as { code?: unknown }).code === TUNNEL_CODE && failure !== null && typeof failure === 'object') return failure;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

export function errorCode(err: unknown): string {
  const codes: string[] = [];
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e !== null && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    e = (e as { cause?: unknown }).cause;
  }
  // A wrapper's generic code must not hide a cause that proves the request never left.
  return codes.find((c) => NEVER_SENT_CODES.has(c)) ?? codes[0] ?? 'UNKNOWN';
}

export type StatusClass = 'accepted' | 'auth' | 'rejected' | 'throttled' | 'unavailable' | 'unknown';

/** HTTP status → class (docs/contract.md: "Exit codes", "Retries"). */
export function classifyStatus(status: number): StatusClass {
  if (status >= 200 && status < 300) return 'accepted';
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'throttled';
  if (status === 503) return 'unavailable';
  if (status >= 300 && status < 500) return 'rejected';
  return 'unknown';
}

/**
 * What to do about a 3xx: msgr never follows one (the key would go to the address it names), and
 * the API did not process the request, so the base URL is what needs fixing.
 */
export const REDIRECT_HINT = 'msgr does not follow redirects (the API key would go to the address given): if that address is the API, make it the base URL (--base-url, MSGR_BASE_URL or the profile\'s base-url).';

/**
 * A 404 or 405 from the URL msgr built: the address is wrong, not the message. The API has one
 * endpoint (docs/api.md: "Endpoint"), so every request sent there would get the same answer; like
 * a 3xx, it says the base URL needs fixing.
 */
export function isWrongAddress(status: number | undefined): boolean {
  return status === 404 || status === 405;
}

export interface WrongAddress {
  readonly status: number;
  readonly method: string;
  /** The URL the request went to. */
  readonly url: URL;
  /** How msgr built it: `{base_url}/v2/messages`, or `{base_url}{path}` for `msgr api`. */
  readonly built: string;
  /** The base URL as given, and where it came from (`flag --base-url`, `profile prod`). */
  readonly baseUrl?: string | undefined;
  readonly source?: string | undefined;
}

/** What to do about a 404 or 405: the URL msgr built, how, and from which base URL. */
export function wrongAddressHint(w: WrongAddress): string {
  const answer = w.status === 405 ? `HTTP 405 (it takes no ${w.method} there)` : 'HTTP 404 (nothing there)';
  const from = w.baseUrl !== undefined ? ` from the base URL ${maskUrl(w.baseUrl)}${w.source !== undefined ? ` (${w.source})` : ''}` : '';
  const what = w.built.includes('{path}') ? 'check the path and the base URL' : 'the API has this one endpoint, so check the base URL';
  return `msgr sent ${w.method} ${maskUrl(w.url)}, built as ${w.built}${from}, and got ${answer}: ${what} (--base-url, MSGR_BASE_URL or the profile's base-url; \`msgr profile show\` says which is in use).`;
}

/** Parses Retry-After: delta seconds or an HTTP date. Returns milliseconds, or undefined. */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return undefined;
  const t = v.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  const date = Date.parse(t);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now.getTime());
}

/** Exponential backoff with full jitter: attempt 1 → up to base, doubling, capped. */
export function backoffMs(attempt: number, baseMs = 500, capMs = 20_000, random: () => number = Math.random): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * The server's message from an error body: problem+json (title, detail, errors[]), other
 * common JSON shapes (message, error, error_description, errors[].message), or plain text.
 */
export function serverMessage(body: unknown, text: string): string {
  if (body !== null && typeof body === 'object') {
    const o = body as Record<string, unknown>;
    const parts: string[] = [];
    const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
    const title = str(o.title);
    const detail = str(o.detail);
    if (title !== undefined) parts.push(title);
    if (detail !== undefined && detail !== title) parts.push(detail);
    const message = str(o.message) ?? str(o.error_description) ?? str(o.error);
    if (message !== undefined && !parts.includes(message)) parts.push(message);
    if (o.error !== null && typeof o.error === 'object') {
      const inner = str((o.error as Record<string, unknown>).message);
      if (inner !== undefined) parts.push(inner);
    }
    if (Array.isArray(o.errors)) {
      for (const item of o.errors.slice(0, 10)) {
        if (typeof item === 'string') parts.push(item);
        else if (item !== null && typeof item === 'object') {
          const it = item as Record<string, unknown>;
          const field = str(it.field) ?? str(it.pointer) ?? str(it.path) ?? str(it.name);
          const msg = str(it.message) ?? str(it.detail) ?? str(it.title);
          if (msg !== undefined) parts.push(field !== undefined ? `${field}: ${msg}` : msg);
        }
      }
    }
    if (parts.length > 0) return parts.join(' — ');
  }
  const trimmed = text.trim();
  if (trimmed === '') return '(no message)';
  return trimmed.length > 500 ? `${trimmed.slice(0, 500)}…` : trimmed;
}

/**
 * A failure's hint without its closing "Nothing was sent." (or "…; it is safe to run the same
 * command again."): those words are about one request, and are not true of a bulk run that sent
 * other batches, nor of doctor, which sends nothing anyway. Undefined when nothing is left.
 */
export function withoutNothingSent(hint: string | undefined): string | undefined {
  const rest = hint?.replace(/\s*Nothing was sent(; it is safe to run the same command again)?\.$/, '');
  return rest === undefined || rest === '' ? undefined : rest;
}
