// The messages client: one undici dispatcher with keep-alive and timeouts, a proxy from the
// environment (http/proxy.ts) reached through msgr's own tunnel (http/tunnel.ts), extra CAs
// added to (not replacing) the default roots, and msgr's own retry loop (docs/contract.md: "Retries"):
// retry only what provably did not happen or what the server asked to be retried (429, 503 +
// Retry-After); never after the request may have been processed (docs/contract.md: "Retries").
import { readFileSync } from 'node:fs';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import type { Dispatcher } from 'undici';
import type { ApiClient, ApiRequest, ClientOptions, SendOptions } from '../http-interface.js';
import { AfterRequestStart, Agent, BodyCutShort, roundTrip } from './undici.js';
import { readCaFile } from './ca-file.js';
import { maskSecret, maskUrl, redact } from '../output/sanitize.js';
import { backoffMs, classifyNetworkError, errorCode, classifyStatus, parseRetryAfter, serverMessage, TUNNEL_CODE, type Outcome } from './outcome.js';
import { describeRoute, describeTunnelFailure, routeFor, TunnelError, type Route } from './proxy.js';
import { isTlsCode, tlsFailureOf, tlsHint, TLS_FAILURE_TEXT } from './trust.js';
import { tunnelConnector } from './tunnel.js';

/** Exported here too: a bulk run checks its CA file before writing its journal. */
export { readCaFile };

/** The client's types, where the Context's interface keeps them (src/http-interface.ts). */
export type { ApiClient, ApiRequest, ClientOptions, MessagesClient, SendOptions } from '../http-interface.js';

/**
 * TLS options that trust the default roots plus the PEM file. `ca` replaces the default roots
 * (docs/dependencies.md: "undici 7"), and rebuilding them from `tls.rootCertificates` costs
 * ~70 ms per run, so the PEM is added to a default context instead (the same call Node makes
 * for each `ca` entry; the default context also keeps NODE_EXTRA_CA_CERTS and, where it is on,
 * NODE_USE_SYSTEM_CA). Where that call is missing, fall back to the documented, slower way.
 * Exported for `doctor`, which checks TLS with the same options.
 */
export function extraCaOptions(caFile: string, env: ClientOptions['env'], source?: string): { secureContext: SecureContext } | { ca: string[] } {
  const pem = readCaFile(caFile, source);
  const secureContext = createSecureContext();
  const native = (secureContext as unknown as { context?: { addCACert?: (pem: string) => void } }).context;
  if (typeof native?.addCACert === 'function') {
    for (const cert of pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []) native.addCACert(cert);
    return { secureContext };
  }
  const extra = env.NODE_EXTRA_CA_CERTS;
  const extraPem = extra !== undefined && extra !== '' ? tryRead(extra) : undefined;
  return { ca: [...rootCertificates, ...(extraPem !== undefined ? [extraPem] : []), pem] };
}

function tryRead(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The route a client's requests take: none for the in-process sandbox, else from the environment. */
export function clientRoute(options: Pick<ClientOptions, 'endpoint' | 'env' | 'direct'>): Route {
  return options.direct === true ? { kind: 'direct', reason: 'no proxy: the built-in sandbox is in this process' } : routeFor(options.endpoint, options.env);
}

export function createDispatcher(options: ClientOptions, route: Route = clientRoute(options)): Dispatcher {
  const tls = options.caFile !== undefined ? extraCaOptions(options.caFile, options.env, options.caFileSource) : {};
  const connectTimeout = Math.min(10_000, options.timeoutMs);
  const common = {
    connections: options.connections ?? 4,
    keepAliveTimeout: 4_000,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  };
  if (route.kind === 'proxy') {
    return new Agent({ ...common, connect: tunnelConnector({ proxy: route.proxy, timeoutMs: connectTimeout, tls, userAgent: options.userAgent }) });
  }
  return new Agent({ ...common, connect: { timeout: connectTimeout, ...tls } });
}

const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * A connection that was never made (refused, no route, a connect timeout, a late DNS answer; the
 * proxy's too) is tried this many times in all, the first included, and not again once this long
 * has passed since its first failure: enough for a server that is restarting or a resolver that
 * was slow, short enough that a wrong host or port is said within seconds, not after minutes of
 * backoff (docs/contract.md: "Retries"). A connect timeout (10 s) is therefore not tried again.
 */
const CONNECT_ATTEMPTS = 3;
const CONNECT_RETRY_MS = 10_000;

const MAX_BODY_BYTES = 16 * 1024 * 1024;
const ACCEPT = 'application/json, application/problem+json;q=0.9, */*;q=0.1';

export function createClient(options: ClientOptions): ApiClient {
  const route = clientRoute(options);
  const dispatcher = createDispatcher(options, route);
  const maxAttempts = options.maxAttempts ?? 5;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 120_000;
  const now = options.now ?? (() => new Date());
  const sleep = options.sleep ?? defaultSleep;
  const debug = options.debug;
  debug?.(`route: ${describeRoute(route, options.endpoint)}`);

  /** Waits before a retry; false when a graceful stop came first (or comes meanwhile). */
  async function retryWait(delayMs: number, o: SendOptions): Promise<boolean> {
    const stop = o.stopRetries;
    const stopped = (): boolean => stop?.aborted === true;
    if (stopped()) return false;
    o.onRetryWait?.();
    try {
      await sleep(delayMs, stop === undefined ? o.signal : o.signal === undefined ? stop : AbortSignal.any([o.signal, stop]));
    } catch (err) {
      if (o.signal?.aborted === true || !stopped()) throw err;
    }
    return !stopped();
  }

  const sendRaw = (json: string, sendOptions: SendOptions = {}): Promise<Outcome> =>
    exchange({ method: 'POST', url: options.endpoint, body: json }, sendOptions);

  async function exchange(req: ApiRequest, sendOptions: SendOptions = {}): Promise<Outcome> {
    const { method, url, body: json } = req;
    const headers: Record<string, string> = json !== undefined ? { 'content-type': 'application/json', accept: ACCEPT, 'user-agent': options.userAgent } : { accept: ACCEPT, 'user-agent': options.userAgent };
    if (sendOptions.idempotencyKey !== undefined) headers['idempotency-key'] = sendOptions.idempotencyKey;
    if (req.headers !== undefined) for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = v;
    // The key comes only from msgr's own sources (never argv), whatever the extra headers say.
    headers['x-api-key'] = options.apiKey;
    /** Failed connections of this request, and when the first of them began. */
    let connectFailures = 0;
    let firstConnectAt: number | undefined;
    for (let attempt = 1; ; attempt++) {
      const attemptAt = performance.now();
      if (attempt > 1 && sendOptions.beforeRetry !== undefined) {
        try {
          sendOptions.beforeRetry();
        } catch (err) {
          // A local cause (the journal's disk is full): the retry does not leave.
          return { kind: 'not-sent', message: `not sent: ${err instanceof Error ? err.message : String(err)}`, attempts: attempt - 1 };
        }
      }
      if (debug !== undefined) {
        debug(`> ${method} ${maskUrl(url)} (attempt ${attempt})`);
        for (const [k, v] of Object.entries(headers)) debug(`> ${k}: ${k === 'x-api-key' ? maskSecret(v) : v}`);
        if (json !== undefined) debug(`> ${json.length > 4000 ? `${json.slice(0, 4000)}… (${json.length} bytes)` : json}`);
      }
      let status: number;
      let text: string;
      let responseHeaders: Record<string, string | string[] | undefined>;
      try {
        const answer = await roundTrip(dispatcher, url, {
          method,
          headers,
          body: json,
          signal: sendOptions.signal,
          limit: MAX_BODY_BYTES,
          drop2xx: options.readSuccessBody === false && debug === undefined,
        });
        ({ status, text } = answer);
        responseHeaders = answer.headers;
      } catch (cut) {
        // The status line already said 2xx: a body cut short does not undo the acceptance.
        const accepted = cut instanceof BodyCutShort && cut.status >= 200 && cut.status < 300;
        if (accepted && sendOptions.signal?.aborted !== true) {
          debug?.(`< ${cut.status} (the body could not be read: ${errorCode(cut.cause)})`);
          return { kind: 'accepted', status: cut.status, body: undefined, text: '', attempts: attempt };
        }
        const started = cut instanceof BodyCutShort || cut instanceof AfterRequestStart;
        const err = started ? cut.cause : cut;
        if (sendOptions.signal?.aborted === true) throw err;
        // A programming error is a bug (exit 1), not a network outcome.
        if ((err instanceof TypeError || err instanceof ReferenceError) && (err as { code?: unknown }).code === undefined) throw err;
        const failure = classifyNetworkError(err, started);
        // A connection never made names the host and port, as the proxy's failures name the
        // proxy: a cron log then says where msgr could not get to.
        const unreachable = failure.kind === 'not-sent' && failure.unreachable;
        const message = unreachable ? `cannot reach ${hostAndPort(url)}: ${describeNetworkError(err, failure.code)}` : describeNetworkError(err, failure.code);
        debug?.(`< network error ${failure.code}: ${message}`);
        if (failure.kind === 'not-sent') {
          connectFailures++;
          firstConnectAt ??= attemptAt;
          const again = connectFailures < CONNECT_ATTEMPTS && performance.now() - firstConnectAt < CONNECT_RETRY_MS;
          if (failure.retryable && again && attempt < maxAttempts) {
            const delayMs = backoffMs(connectFailures);
            options.onRetry?.({ attempt, delayMs, reason: message });
            if (await retryWait(delayMs, sendOptions)) continue;
          }
          const hint =
            failure.code === TUNNEL_CODE && err instanceof TunnelError ? describeTunnelFailure(err.failure).hint
            : isTlsCode(failure.code) ? tlsHint(tlsFailureOf(failure.code), options.nodeVersion ?? '0', options.profile)
            : unreachable ? `${unreachableHint(failure.code, url, options.baseUrlSource)} Nothing was sent; it is safe to run the same command again.`
            : undefined;
          return { kind: 'not-sent', message, attempts: attempt, code: failure.code, ...(failure.config === true ? { config: true } : {}), ...(hint !== undefined ? { hint } : {}) };
        }
        return { kind: 'unknown', message: route.kind === 'proxy' ? `${message} (through the proxy ${route.proxy.origin})` : message, attempts: attempt, code: failure.code };
      }
      const body = parseBody(text);
      if (debug !== undefined) {
        debug(`< ${status}`);
        for (const [k, v] of Object.entries(responseHeaders)) debug(`< ${k}: ${Array.isArray(v) ? v.join(', ') : (v ?? '')}`);
        if (text !== '') debug(`< ${text.length > 4000 ? `${text.slice(0, 4000)}…` : text}`);
      }
      const cls = classifyStatus(status);
      if (cls === 'accepted') return { kind: 'accepted', status, body, text, attempts: attempt };
      // A server may echo the key back; no message built from its answer carries it further.
      const message = redact(serverMessage(body, text), options.apiKey);
      if (cls === 'auth') return { kind: 'auth', status, body, message, attempts: attempt };
      // The address a redirect names is the server's text too (it may carry the key back).
      if (cls === 'rejected') return { kind: 'rejected', status, body, message: status < 400 ? redact(`unexpected redirect (${String(responseHeaders.location ?? 'no location')}): ${message}`, options.apiKey) : message, attempts: attempt };
      if (cls === 'throttled' || cls === 'unavailable') {
        const retryAfter = parseRetryAfter(responseHeaders['retry-after'], now());
        // 503 is retried only when the server says when (docs/contract.md: "Retries").
        const retryable = cls === 'throttled' || retryAfter !== undefined;
        if (retryable && attempt < maxAttempts && (retryAfter === undefined || retryAfter <= maxRetryAfterMs)) {
          const delayMs = retryAfter ?? backoffMs(attempt, 1000, 30_000);
          options.onRetry?.({ attempt, delayMs, reason: String(status), status });
          debug?.(`  retrying in ${delayMs} ms`);
          if (await retryWait(delayMs, sendOptions)) continue;
        }
        if (retryAfter !== undefined && retryAfter > maxRetryAfterMs) {
          // Running it again at once would only be refused again: say when the API will take it.
          const wait = retryAfter >= 120_000 ? `${Math.ceil(retryAfter / 60_000)} min` : `${Math.ceil(retryAfter / 1000)} s`;
          return { kind: 'not-sent', status, body, message: `${message} (the API asks to wait ${wait} before trying again; msgr waits at most ${Math.round(maxRetryAfterMs / 1000)} s)`, attempts: attempt, hint: `Try again in ${wait} or later, as the API asks (Retry-After). Nothing was sent.` };
        }
        return { kind: 'not-sent', status, body, message, attempts: attempt };
      }
      return { kind: 'unknown', status, body, message, attempts: attempt };
    }
  }

  return {
    send: (body, sendOptions) => sendRaw(JSON.stringify(body), sendOptions),
    sendRaw,
    request: exchange,
    close: async () => {
      await dispatcher.close();
    },
  };
}

/** Tolerant: an empty or non-JSON body is kept as text (docs/contract.md: "Streams"). */
export function parseBody(text: string): unknown {
  const t = text.trim();
  if (t === '') return undefined;
  if (t.startsWith('{') || t.startsWith('[') || t.startsWith('"')) {
    try {
      return JSON.parse(t) as unknown;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** `api.example.com:443`: the port too, whether the URL names it or not. */
export function hostAndPort(url: URL): string {
  return `${url.hostname}:${url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80'}`;
}

/** What to check when the connection to the API's host was never made. */
function unreachableHint(code: string, url: URL, baseUrlSource: string | undefined): string {
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_NONAME': {
      // Where to fix it: the flag or variable it came from, or the profile (which profile show shows).
      const from = baseUrlSource === undefined ? ' (`msgr profile show` says where it came from)' : ` (it came from ${baseUrlSource}${/profile/.test(baseUrlSource) ? '; `msgr profile show` shows it' : ''})`;
      return `The host name ${url.hostname} does not exist: check the base URL for a typo${from}; if this network reaches the internet only through a proxy, set HTTPS_PROXY.`;
    }
    case 'EAI_AGAIN':
      return `DNS did not answer for ${url.hostname}: check this machine's network and DNS (\`msgr doctor\` checks each step).`;
    case 'ECONNREFUSED':
      return `Nothing accepts connections at ${hostAndPort(url)}: check the base URL's host and port, and that the API is up there (\`msgr doctor\` checks each step).`;
    default:
      return `Check the base URL's host and port, and that it can be reached from here: a firewall, a VPN or a proxy (HTTPS_PROXY) may be in the way (\`msgr doctor\` checks each step).`;
  }
}

/**
 * A network failure in words for people (`connection refused`, `timed out connecting`): the one
 * wording for every request msgr makes, to the API and outside it (forwarded and replayed events,
 * triggers: ./provider.ts). Which failures are retried or in doubt is ./outcome.ts's.
 */
export function describeNetworkError(err: unknown, code: string): string {
  const msg = err instanceof Error ? err.message : String(err);
  switch (code) {
    case TUNNEL_CODE:
      return err instanceof TunnelError ? describeTunnelFailure(err.failure).message : msg;
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_NONAME':
      return 'host name not found (DNS)';
    case 'EAI_AGAIN':
      return 'DNS did not answer (a temporary failure)';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `no route to the host (${code})`;
    case 'EADDRNOTAVAIL':
      return `no local address to connect from (${code})`;
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'timed out connecting';
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return 'timed out waiting for the answer';
    case 'UND_ERR_SOCKET':
    case 'ECONNRESET':
    case 'EPIPE':
      return 'the connection was closed before an answer came';
    default:
      if (isTlsCode(code)) return `${TLS_FAILURE_TEXT[tlsFailureOf(code)]} (${code}): ${tlsReason(err, msg)}`;
      return `${msg} (${code})`;
  }
}

/** OpenSSL's own words (`wrong version number`), not its whole error line with source paths. */
function tlsReason(err: unknown, msg: string): string {
  const reason = err !== null && typeof err === 'object' ? (err as { reason?: unknown }).reason : undefined;
  return (typeof reason === 'string' && reason !== '' ? reason : msg).trim().replace(/:$/, '');
}
