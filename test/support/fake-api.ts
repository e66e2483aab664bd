// An API for commands run in-process, as gh's commands run against httpmock: the Context's HTTP
// provider (fakeContext({ http })) gets clients that record each request (its JSON body, its
// Idempotency-Key, the options the command built the client with) and answer with the test's
// outcome. Nothing leaves the process, so a test can assert exactly what would have been sent.
import type { ClientFactory } from '../../src/context.js';
import type { ApiClient, ClientOptions, SendOptions } from '../../src/http/client.js';
import type { Outcome } from '../../src/http/outcome.js';

export interface FakeRequest {
  /** The request body, parsed. */
  readonly body: { readonly recipients?: ReadonlyArray<{ readonly msisdn: string }> } & Record<string, unknown>;
  readonly idempotencyKey: string | undefined;
  /** The options of the client that sent it: endpoint, key, connections, retries. */
  readonly client: ClientOptions;
}

export type Responder = (request: FakeRequest, index: number) => Outcome | Promise<Outcome>;

export interface FakeApi {
  /** For fakeContext({ http }). */
  readonly http: ClientFactory;
  readonly requests: FakeRequest[];
  /** The options of every client made, in order. */
  readonly clients: ClientOptions[];
  /** Clients closed so far. */
  readonly closed: () => number;
}

/** 202, with a message id per recipient (`id-<number>`), in the shape the sandbox answers. */
export const accept: Responder = (r) => ({
  kind: 'accepted',
  status: 202,
  body: { messages: (r.body.recipients ?? []).map((x) => ({ id: `id-${x.msisdn}`, msisdn: x.msisdn })) },
  text: '',
  attempts: 1,
});

export function fakeApi(respond: Responder = accept): FakeApi {
  const requests: FakeRequest[] = [];
  const clients: ClientOptions[] = [];
  let closed = 0;
  const http: ClientFactory = (options) => {
    clients.push(options);
    const answer = (json: string, o?: SendOptions): Promise<Outcome> => {
      const request: FakeRequest = { body: JSON.parse(json) as FakeRequest['body'], idempotencyKey: o?.idempotencyKey, client: options };
      requests.push(request);
      return Promise.resolve(respond(request, requests.length - 1));
    };
    const client: ApiClient = {
      send: (body, o) => answer(JSON.stringify(body), o),
      sendRaw: answer,
      request: () => Promise.reject(new Error('the fake API answers POST /v2/messages only')),
      close: () => {
        closed++;
        return Promise.resolve();
      },
    };
    return client;
  };
  return { http, requests, clients, closed: () => closed };
}
