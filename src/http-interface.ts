// The HTTP a Context provides (src/context.ts: `http`), as types alone: the API's clients (built
// in src/http/client.ts) and single requests to URLs outside the API (src/http/provider.ts: `hook`). A leaf:
// it imports no module of msgr, so the Context, the HTTP stack and the code that renders their
// results all import it without a loop between them (docs/design.md: "HTTP").
import type { Dispatcher } from 'undici';

/** What happened to one request to the API, in the terms of docs/contract.md: "Exit codes" and "Retries". */
export type Outcome =
  /** Any 2xx: accepted, never "delivered". The body may be empty or not JSON. */
  | { readonly kind: 'accepted'; readonly status: number; readonly body: unknown; readonly text: string; readonly attempts: number }
  /** 401/403: the key or the account was refused. */
  | { readonly kind: 'auth'; readonly status: number; readonly body: unknown; readonly message: string; readonly attempts: number }
  /** Any other 4xx (and 3xx): the request was refused; sending it again as is will not help. */
  | { readonly kind: 'rejected'; readonly status: number; readonly body: unknown; readonly message: string; readonly attempts: number }
  /**
   * Provably not processed: no connection, or 429/503 retries exhausted. Safe to send again.
   * `config`: sending again will not help until a setting is fixed (a proxy refusing the
   * credentials, say). `hint`: what to do, when the failure knows better than the command.
   */
  | { readonly kind: 'not-sent'; readonly status?: number; readonly body?: unknown; readonly message: string; readonly attempts: number; readonly code?: string; readonly config?: boolean; readonly hint?: string }
  /** The request left but no answer came: timeout, reset, 500/502/504. */
  | { readonly kind: 'unknown'; readonly status?: number; readonly body?: unknown; readonly message: string; readonly attempts: number; readonly code?: string };

export interface ClientOptions {
  /** The endpoint URL, as returned by `messagesEndpoint`. */
  readonly endpoint: URL;
  readonly apiKey: string;
  readonly userAgent: string;
  /** Per-request timeout for headers and body, milliseconds. */
  readonly timeoutMs: number;
  /** PEM file whose certificates are trusted in addition to the default roots. */
  readonly caFile?: string | undefined;
  /** Where caFile came from, for its errors: `--ca-file` (default), `MSGR_CA_FILE`, a profile. */
  readonly caFileSource?: string | undefined;
  /** Node's version, for what the TLS hint can offer (NODE_USE_SYSTEM_CA). */
  readonly nodeVersion?: string | undefined;
  /** The profile in use, named in the TLS hint (`msgr profile set NAME ca-file …`). */
  readonly profile?: string | undefined;
  /**
   * Where the base URL came from (settings/resolve.ts describeSource: `flag --base-url`, `env
   * MSGR_BASE_URL`, `profile prod`), named in the hint for a host name that does not exist.
   */
  readonly baseUrlSource?: string | undefined;
  /** Parallel connections (POSTs are not pipelined: concurrency = connections). */
  readonly connections?: number;
  /** Attempts for retryable failures, the first included. */
  readonly maxAttempts?: number;
  /** Longest Retry-After honoured before giving up as not-sent. */
  readonly maxRetryAfterMs?: number;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Use no proxy (the in-process sandbox). */
  readonly direct?: boolean;
  /**
   * Whether a 2xx body is read and parsed. Bulk runs without a report need no message ids, and
   * parsing a thousand-recipient answer per request is their largest client-side cost.
   */
  readonly readSuccessBody?: boolean;
  readonly debug?: (line: string) => void;
  /** Told before each wait for a retry (bulk uses it to slow the whole run down). */
  readonly onRetry?: (info: { attempt: number; delayMs: number; reason: string; status?: number }) => void;
  readonly now?: () => Date;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface SendOptions {
  readonly idempotencyKey?: string;
  /** Abandons the request itself: its outcome is then unknown to the caller (throws). */
  readonly signal?: AbortSignal;
  /**
   * A graceful stop: a request in flight is still answered, but no new attempt starts and a
   * wait before one ends, with the last answer's outcome ("not sent": nothing was processed).
   */
  readonly stopRetries?: AbortSignal;
  /**
   * Told when the last attempt provably did not take (an answer asking for a retry, or a failure
   * before the request left) and a wait for the next one begins; and just before each retry
   * leaves, which may refuse it by throwing (then the outcome is "not sent"). Bulk writes these
   * in its journal, so a kill -9 during the wait puts nothing in doubt (docs/files.md: "Nothing lost, nothing sent twice").
   */
  readonly onRetryWait?: () => void;
  readonly beforeRetry?: () => void;
}

/** A request to any path of the API (`msgr api`), under the same key, TLS, proxy and retry rules. */
export interface ApiRequest {
  readonly method: Dispatcher.HttpMethod;
  /** Built by `apiUrl`: always under the base URL. */
  readonly url: URL;
  readonly body?: string | undefined;
  /** Extra headers; they replace msgr's own of the same name, except the key's. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface MessagesClient {
  send(body: unknown, options?: SendOptions): Promise<Outcome>;
  /** Sends an already serialised JSON body (bulk builds request bodies as strings). */
  sendRaw(json: string, options?: SendOptions): Promise<Outcome>;
  close(): Promise<void>;
}

/** The messages client, plus requests to any path (`msgr api`). */
export interface ApiClient extends MessagesClient {
  request(req: ApiRequest, options?: SendOptions): Promise<Outcome>;
}

/** Builds a client for the API (src/http/client.ts: createClient). */
export type ClientFactory = (options: ClientOptions) => ApiClient;

/**
 * One request to a URL outside the API: an event forwarded to an app (`msgr listen --forward-to`,
 * `msgr listen replay`), `msgr trigger`'s event, the sandbox's webhooks. Sent once, with no proxy
 * and the default CA roots, as it always was; redirects are not followed.
 */
export interface HookRequest {
  readonly url: URL;
  readonly method: string;
  /** Sent as given (plus Host and Content-Length): nothing is added. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array | undefined;
  /** The whole exchange, connection included, milliseconds. */
  readonly timeoutMs: number;
  /** Abandons it (a sandbox closing): the answer is then `unknown` or `not-sent`, `abandoned`. */
  readonly signal?: AbortSignal | undefined;
  /** Bytes of the answer's body kept as `text` (default 0: read and dropped). */
  readonly keepBytes?: number;
}

/**
 * What became of a HookRequest, sorted as the API's outcomes are (src/http/outcome.ts):
 * answered with a status; not sent (no connection, nothing left); or in doubt (it may have
 * arrived). `reason` is the failure's code (`ECONNREFUSED`), never the URL or a header.
 */
export type HookAnswer = { readonly kind: 'answered'; readonly status: number; readonly text: string } | HookFailure<'not-sent'> | HookFailure<'unknown'>;

/** `timedOut`: the request's time ran out; `abandoned`: its signal gave it up. */
export interface HookFailure<Kind extends 'not-sent' | 'unknown' = 'not-sent' | 'unknown'> {
  readonly kind: Kind;
  readonly reason: string;
  /** What happened, for people: `connection refused`, `timed out connecting` (src/http/client.ts: describeNetworkError). */
  readonly words: string;
  readonly timedOut: boolean;
  readonly abandoned: boolean;
}

/** The HTTP the Context provides: one way out for every request msgr makes. */
export interface Http {
  /** Clients for the API, under its key, TLS, proxy and retry rules. */
  readonly client: ClientFactory;
  /** One request outside the API. */
  readonly hook: (request: HookRequest) => Promise<HookAnswer>;
}
