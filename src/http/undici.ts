// undici, in part. The package's index loads fetch, WebSocket, caches, mocks and more (~100 ms
// at start-up on Node 20); msgr needs the connection pool and its connector, and reads answers
// through the pool's dispatch interface (roundTrip below), not undici's request() API modules
// (docs/performance.md). The deep paths are undici 7's own modules; the
// lock file pins the version, and every end-to-end test goes through them.
import type { Agent as AgentType, Dispatcher, buildConnector as BuildConnector } from 'undici';
// @ts-expect-error -- undici ships no types for its internal modules; the shapes are the index's.
import AgentModule from 'undici/lib/dispatcher/agent.js';
// @ts-expect-error -- as above.
import buildConnectorModule from 'undici/lib/core/connect.js';

export const Agent = AgentModule as typeof AgentType;
/** undici's TCP/TLS connector; msgr's proxy tunnel (tunnel.ts) runs TLS to the API through it. */
export const buildConnector = buildConnectorModule as typeof BuildConnector;

/** A whole answer: its status, headers and body as text (the body's first `limit` bytes). */
export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/** The status line and headers came, then the body was cut short (`cause`). */
export class BodyCutShort extends Error {
  constructor(
    readonly status: number,
    readonly headers: Answer['headers'],
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/**
 * The error of a request undici had started on a connected socket (its TLS handshake done, its
 * bytes on their way): whatever the error's code says, the request may have reached the server.
 */
export class AfterRequestStart extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

export interface RoundTrip {
  readonly method: Dispatcher.HttpMethod;
  readonly headers: Record<string, string>;
  readonly body?: string | Uint8Array | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Told when the request starts on a connected socket: from then it may reach the server. */
  readonly onStart?: () => void;
  /** Bytes of body kept; the rest is read and dropped. */
  readonly limit: number;
  /** A 2xx body is read and dropped (its text is ''). */
  readonly drop2xx?: boolean;
}

/**
 * One request and its whole answer, through undici's dispatch API (its handler interface,
 * docs/dependencies.md: "undici 7"): the answer's body is collected as it comes, where request()
 * would wrap it in a stream read back through an async iterator, ~15 % of the CPU of a bulk run
 * with a request per row (docs/performance-history.md: "Personalised messages"). Rejects with undici's
 * error (or the signal's reason) when the request was never started on a connected socket,
 * AfterRequestStart when it was, and BodyCutShort when the error came after the status line.
 */
export function roundTrip(dispatcher: Dispatcher, url: URL, req: RoundTrip): Promise<Answer> {
  return new Promise((resolve, reject) => {
    dispatcher.dispatch(
      { origin: url.origin, path: `${url.pathname}${url.search}`, method: req.method, headers: req.headers, body: req.body ?? null },
      new AnswerHandler(req, resolve, reject),
    );
  });
}

type Controller = Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestStart']>>[0];

class AnswerHandler implements Dispatcher.DispatchHandler {
  #status = 0;
  #headers: Answer['headers'] = {};
  #keep = true;
  #chunks: Buffer[] = [];
  #size = 0;
  #controller: Controller | undefined;
  #started = false;
  readonly #onAbort: (() => void) | undefined;

  constructor(
    readonly req: RoundTrip,
    readonly resolve: (answer: Answer) => void,
    readonly reject: (err: unknown) => void,
  ) {
    const { signal } = req;
    if (signal !== undefined) {
      this.#onAbort = () => this.#controller?.abort(signal.reason as Error);
      signal.addEventListener('abort', this.#onAbort, { once: true });
    }
  }

  onRequestStart(controller: Controller): void {
    // undici calls this as it writes the request onto a connected socket (client-h1's writeH1).
    this.#started = true;
    this.#controller = controller;
    this.req.onStart?.();
    if (this.req.signal?.aborted === true) controller.abort(this.req.signal.reason as Error);
  }

  onResponseStart(_controller: Controller, status: number, headers: Answer['headers']): void {
    // 1xx answers come before the real one.
    if (status < 200) return;
    this.#status = status;
    this.#headers = headers;
    this.#keep = !(this.req.drop2xx === true && status < 300);
  }

  onResponseData(_controller: Controller, chunk: Buffer): void {
    if (!this.#keep) return;
    this.#size += chunk.length;
    if (this.#size <= this.req.limit) this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    this.#done();
    const chunks = this.#chunks;
    const text = chunks.length === 0 ? '' : chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
    this.resolve({ status: this.#status, headers: this.#headers, text });
  }

  onResponseError(_controller: Controller, err: Error): void {
    this.#done();
    this.reject(this.#status !== 0 ? new BodyCutShort(this.#status, this.#headers, err) : this.#started ? new AfterRequestStart(err) : err);
  }

  #done(): void {
    if (this.#onAbort !== undefined) this.req.signal?.removeEventListener('abort', this.#onAbort);
  }
}
