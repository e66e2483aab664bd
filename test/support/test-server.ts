// A scriptable HTTP(S) server on 127.0.0.1 for end-to-end tests: it records every request and
// answers from a script (statuses, headers, bodies, delays, socket resets, garbage).
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach } from 'node:test';

export interface ScriptedResponse {
  status?: number;
  headers?: Record<string, string>;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
  delayMs?: number;
  /**
   * Answer once this settles (a line in msgr's output, another process gone): the request is held
   * exactly as long as the test needs. With delayMs, at the latest after delayMs, a bound only a
   * failure reaches.
   */
  until?: Promise<unknown>;
  /** Destroy the socket after reading the request, without answering. */
  reset?: boolean;
  /** Send the status line and part of a longer body, then destroy the socket. */
  cutBody?: boolean;
}

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  json: unknown;
}

export interface TestServer {
  url: string;
  requests: ReceivedRequest[];
  /** Responses used in order; when the script runs out, `answer` (when set), else `fallback`. */
  script(...responses: ScriptedResponse[]): void;
  fallback: ScriptedResponse;
  /** Answers made from the request (e.g. a message id per recipient). */
  answer: ((req: ReceivedRequest) => ScriptedResponse) | undefined;
  /** Takes no new connection from now on (they are refused); those open are still answered. */
  stopListening(): void;
  close(): Promise<void>;
}

/** `port`: listen there (an API started again where it was), else on a free port. */
export async function startTestServer(options: { tls?: { key: string; cert: string }; port?: number } = {}): Promise<TestServer> {
  const queue: ScriptedResponse[] = [];
  const requests: ReceivedRequest[] = [];
  // Answers still waiting out their delayMs: dropped when the server closes, so that a long delay
  // (a server that never answers within the test) keeps no timer alive after it, which would hold
  // the test file's process open until the delay ran out. One held `until` a promise keeps
  // nothing alive, and is not written once its connection is gone.
  const delayed = new Set<NodeJS.Timeout>();
  const state = { fallback: { status: 202, body: { id: 'msg-1', status: 'accepted' } } as ScriptedResponse, answer: undefined as ((req: ReceivedRequest) => ScriptedResponse) | undefined };
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, json };
      requests.push(received);
      const step = queue.shift() ?? state.answer?.(received) ?? state.fallback;
      const answer = (): void => {
        if (step.reset === true) {
          req.socket.destroy();
          return;
        }
        if (step.cutBody === true) {
          res.writeHead(step.status ?? 200, { 'content-type': 'application/json', 'content-length': '100' });
          res.write('{"id":');
          setTimeout(() => req.socket.destroy(), 50);
          return;
        }
        const payload = step.body === undefined ? '' : typeof step.body === 'string' ? step.body : JSON.stringify(step.body);
        const headers = { ...(typeof step.body === 'string' || step.body === undefined ? {} : { 'content-type': 'application/json' }), ...step.headers };
        res.writeHead(step.status ?? 200, headers);
        res.end(payload);
      };
      if (step.delayMs === undefined && step.until === undefined) {
        answer();
        return;
      }
      let held = true;
      const release = (): void => {
        if (!held) return;
        held = false;
        if (timer !== undefined) {
          clearTimeout(timer);
          delayed.delete(timer);
        }
        if (!res.destroyed) answer();
      };
      const timer = step.delayMs !== undefined ? setTimeout(release, step.delayMs) : undefined;
      if (timer !== undefined) delayed.add(timer);
      step.until?.then(release, release);
    });
  };
  const server = options.tls !== undefined ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, handler) : createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const scheme = options.tls !== undefined ? 'https' : 'http';
  const host = options.tls !== undefined ? 'localhost' : '127.0.0.1';
  return {
    url: `${scheme}://${host}:${port}`,
    requests,
    script: (...responses) => queue.push(...responses),
    get fallback() {
      return state.fallback;
    },
    set fallback(r: ScriptedResponse) {
      state.fallback = r;
    },
    get answer() {
      return state.answer;
    },
    set answer(f: ((req: ReceivedRequest) => ScriptedResponse) | undefined) {
      state.answer = f;
    },
    stopListening: () => void server.close(),
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of delayed) clearTimeout(timer);
        delayed.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The server of a test file or of a describe block (node:test hooks): listening before its tests,
 * closed after them. Before each test its record of requests is emptied and `reset` runs, for
 * the answers every test starts from. Read it only inside tests and hooks: before the first
 * hook has run there is no server yet.
 */
export function useTestServer(options: { tls?: () => { key: string; cert: string }; reset?: (server: TestServer) => void } = {}): TestServer {
  let started: TestServer | undefined;
  const live = (): TestServer => {
    if (started === undefined) throw new Error('useTestServer: the server is read before its before() hook ran');
    return started;
  };
  before(async () => {
    started = await startTestServer(options.tls !== undefined ? { tls: options.tls() } : {});
  });
  after(async () => {
    await started?.close();
  });
  beforeEach(() => {
    live().requests.length = 0;
    options.reset?.(live());
  });
  return {
    get url() {
      return live().url;
    },
    get requests() {
      return live().requests;
    },
    script: (...responses) => live().script(...responses),
    get fallback() {
      return live().fallback;
    },
    set fallback(r: ScriptedResponse) {
      live().fallback = r;
    },
    get answer() {
      return live().answer;
    },
    set answer(f: ((req: ReceivedRequest) => ScriptedResponse) | undefined) {
      live().answer = f;
    },
    stopListening: () => live().stopListening(),
    close: () => live().close(),
  };
}

/** A hold for ScriptedResponse.until: the answer waits until the test calls `release`. */
export function hold(): { until: Promise<void>; release: () => void } {
  let release = (): void => {};
  const until = new Promise<void>((resolve) => (release = resolve));
  return { until, release };
}

/** The numbers a request to POST /v2/messages was for. */
export const recipientsOf = (r: ReceivedRequest): string[] => ((r.json as { recipients?: Array<{ msisdn: string }> } | undefined)?.recipients ?? []).map((x) => x.msisdn);

/** 202, with the message id `<prefix><number>` for each of `numbers`. */
export const acceptedWithIds = (numbers: readonly string[], prefix = 'm-'): ScriptedResponse => ({ status: 202, body: { messages: numbers.map((m) => ({ id: `${prefix}${m}`, msisdn: m })) } });
