// The Context's request outside the API (forwards, triggers, the sandbox's webhooks), against real
// servers on 127.0.0.1: each failure sorted as the API client sorts its own (not sent before the
// request left, in doubt after), a status line answered whatever it says, and no secret of the
// request in what a failure says.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { after, describe, test } from 'node:test';
import { hook } from '../../../src/http/provider.js';

const servers: Array<{ close: () => void }> = [];
after(() => {
  for (const s of servers) s.close();
});

async function listen<S extends Server | ReturnType<typeof createTcpServer>>(server: S): Promise<URL> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/tok-secret-123?k=v`);
}

/** A port nothing listens on: one a server had, closed. */
async function closedPort(): Promise<URL> {
  const s = createTcpServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return new URL(`http://127.0.0.1:${port}/x`);
}

const SECRET_HEADERS = { authorization: 'Basic dXNlcjpwYXNzd29yZA==', 'content-type': 'application/json' };

describe('hook: one request outside the API', () => {
  test('any status is answered, with its body when asked for; the request goes as given', async () => {
    const seen: Array<{ method?: string; url?: string; headers: IncomingMessage['headers']; body: string }> = [];
    const url = await listen(
      createServer((req, res) => {
        let body = '';
        req.on('data', (d: Buffer) => (body += d.toString()));
        req.on('end', () => {
          seen.push({ method: req.method, url: req.url, headers: req.headers, body });
          res.writeHead(seen.length === 1 ? 503 : 302, { location: 'http://elsewhere.invalid/' }).end('busy');
        });
      }),
    );
    const first = await hook({ url, method: 'PUT', headers: SECRET_HEADERS, body: Buffer.from('{"a":1}'), timeoutMs: 5_000, keepBytes: 100 });
    assert.deepEqual(first, { kind: 'answered', status: 503, text: 'busy' });
    // A redirect is an answer, never followed.
    const second = await hook({ url, method: 'POST', headers: {}, body: 'x', timeoutMs: 5_000 });
    assert.deepEqual(second, { kind: 'answered', status: 302, text: '' });
    assert.equal(seen.length, 2);
    assert.equal(seen[0]?.method, 'PUT');
    assert.equal(seen[0]?.url, '/hooks/tok-secret-123?k=v');
    assert.equal(seen[0]?.body, '{"a":1}');
    assert.equal(seen[0]?.headers.authorization, SECRET_HEADERS.authorization);
  });

  test('nothing listening: not sent, by its code, in the words the API client uses', async () => {
    const a = await hook({ url: await closedPort(), method: 'POST', headers: SECRET_HEADERS, body: '{}', timeoutMs: 5_000 });
    assert.deepEqual(a, { kind: 'not-sent', reason: 'ECONNREFUSED', words: 'connection refused', timedOut: false, abandoned: false });
  });

  test('the request arrived and the connection was cut: in doubt', async () => {
    const url = await listen(createServer((req) => req.on('data', () => undefined).on('end', () => req.socket.destroy())));
    const a = await hook({ url, method: 'POST', headers: SECRET_HEADERS, body: '{}', timeoutMs: 5_000 });
    assert.equal(a.kind, 'unknown');
    assert.ok(a.kind === 'unknown' && !a.timedOut && !a.abandoned, JSON.stringify(a));
  });

  test('no answer in time: in doubt, timed out; the secrets stay out of the reason', async () => {
    const url = await listen(createServer(() => undefined));
    const started = performance.now();
    const a = await hook({ url, method: 'POST', headers: SECRET_HEADERS, body: '{}', timeoutMs: 300 });
    assert.ok(performance.now() - started < 4_000, 'the time given is the whole exchange');
    assert.equal(a.kind, 'unknown');
    assert.ok(a.kind === 'unknown' && a.timedOut, JSON.stringify(a));
    assert.doesNotMatch(JSON.stringify(a), /tok-secret-123|dXNlcjpwYXNzd29yZA/);
  });

  test('given up before a connection was made: not sent', async () => {
    // Given up at once: the answer does not wait for the connection undici is still making.
    const sockets: Socket[] = [];
    const url = await listen(createTcpServer((s) => void sockets.push(s)));
    const stop = new AbortController();
    stop.abort();
    const a = await hook({ url, method: 'POST', headers: SECRET_HEADERS, body: '{}', timeoutMs: 5_000, signal: stop.signal });
    assert.equal(a.kind, 'not-sent');
    assert.ok(a.kind === 'not-sent' && a.abandoned && !a.timedOut, JSON.stringify(a));
    assert.doesNotMatch(JSON.stringify(a), /tok-secret-123|dXNlcjpwYXNzd29yZA/);
    for (const s of sockets) s.destroy();
  });
});
