// undici, in part. The package's index loads fetch, WebSocket, caches, mocks and more (~100 ms
// at start-up on Node 20); msgr needs the connection pool, its connector and request(), which
// load in well under half of that (README: "Performance"). The deep paths are undici 7's own modules; the
// lock file pins the version, and every end-to-end test goes through them.
import type { Agent as AgentType, Dispatcher, buildConnector as BuildConnector } from 'undici';
// @ts-expect-error -- undici ships no types for its internal modules; the shapes are the index's.
import AgentModule from 'undici/lib/dispatcher/agent.js';
// @ts-expect-error -- as above.
import buildConnectorModule from 'undici/lib/core/connect.js';
// @ts-expect-error -- as above.
import api from 'undici/lib/api/index.js';
// @ts-expect-error -- as above.
import DispatcherModule from 'undici/lib/dispatcher/dispatcher.js';

// What undici's index does: dispatchers get request(), connect() and the rest from the API
// modules.
Object.assign((DispatcherModule as { prototype: object }).prototype, api);

export const Agent = AgentModule as typeof AgentType;
/** undici's TCP/TLS connector; msgr's proxy tunnel (tunnel.ts) runs TLS to the API through it. */
export const buildConnector = buildConnectorModule as typeof BuildConnector;

/** undici's request() for a full URL on a given dispatcher (what the index's wrapper does). */
export function request(
  url: URL,
  options: { method: Dispatcher.HttpMethod; headers: Record<string, string>; body?: string; dispatcher: Dispatcher; signal?: AbortSignal },
): Promise<Dispatcher.ResponseData> {
  const { dispatcher, ...rest } = options;
  return dispatcher.request({ ...rest, origin: url.origin, path: `${url.pathname}${url.search}` });
}
