// Each answer of the API, and each way the network fails, ends `msgr send` with the contract's exit code, retried only where that cannot send twice; the key is never shown.
// In-process (test/support/in-process.ts): `msgr send` through main() with a Context of the
// test's, against a scriptable server on 127.0.0.1 (send-server.ts).
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { startTestServer, type TestServer } from '../../../support/test-server.js';
import { assertNoKey, KEY, useSendServer } from './send-server.js';

const { server, send } = useSendServer();

/** A server of the test's own, closed after it. */
async function ownServer(t: TestContext): Promise<TestServer> {
  const own = await startTestServer();
  t.after(() => own.close());
  return own;
}

describe('HTTP errors map to the contract exit codes', () => {
  test('403 → exit 3', async () => {
    server.script({ status: 403, body: { message: 'account suspended' } });
    const r = await send();
    assert.equal(r.code, 3);
    assert.match(r.stderr, /account suspended/);
  });

  test('422 problem+json → exit 4 naming the field, not retried', async () => {
    server.script({ status: 422, body: { title: 'Invalid request', errors: [{ field: 'recipients[0].msisdn', message: 'not allowed' }] } });
    const r = await send();
    assert.equal(r.code, 4);
    assert.match(r.stderr, /HTTP 422/);
    assert.match(r.stderr, /recipients\[0\]\.msisdn: not allowed/);
    assert.equal(server.requests.length, 1);
  });

  test('a plain-text error body is shown', async () => {
    server.script({ status: 400, body: 'Bad things happened', headers: { 'content-type': 'text/plain' } });
    const r = await send();
    assert.equal(r.code, 4);
    assert.match(r.stderr, /Bad things happened/);
  });

  test('429 that never ends → exit 5 after bounded attempts', async () => {
    server.fallback = { status: 429, headers: { 'retry-after': '0' }, body: { message: 'slow down' } };
    const r = await send();
    assert.equal(r.code, 5);
    assert.equal(server.requests.length, 5);
    assert.match(r.stderr, /not sent: HTTP 429: slow down \(after 5 attempts\)/);
  });

  test('a Retry-After longer than msgr waits (429 asking for 5 min, 503 for 3 min): not retried, exit 5, and the error says when to try again', async () => {
    server.script({ status: 429, headers: { 'retry-after': '300' }, body: { title: 'slow down' } });
    const r = await send(['--json']);
    assert.equal(r.code, 5, r.stderr);
    assert.equal(server.requests.length, 1);
    const e = (JSON.parse(r.stdout) as { error: { message: string; hint: string } }).error;
    assert.equal(e.message, 'not sent: HTTP 429: slow down (the API asks to wait 5 min before trying again; msgr waits at most 120 s)');
    assert.equal(e.hint, 'Try again in 5 min or later, as the API asks (Retry-After). Nothing was sent.');
    server.requests.length = 0;
    server.script({ status: 503, headers: { 'retry-after': new Date(Date.now() + 180_000).toUTCString() }, body: 'maintenance' });
    const later = await send();
    assert.equal(later.code, 5, later.stderr);
    assert.equal(server.requests.length, 1);
    assert.match(later.stderr, /^hint: Try again in 3 min or later, as the API asks/m);
  });

  test('MSGR_API_KEY in quotes (a docker --env-file line keeps them): exit 2 saying so, instead of a key refused by the API (exit 3)', async () => {
    const r = await send([], { MSGR_API_KEY: `"${KEY}"` });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^error: env MSGR_API_KEY: the API key is in quotes, which are not part of it$/m);
    assert.equal(server.requests.length, 0);
    assertNoKey(r);
  });

  test('a 3xx is not followed: exit 4, the address it names shown with the key masked, and the hint says to fix the base URL', async () => {
    server.script({ status: 308, headers: { location: `https://moved.example.com/v2/messages?key=${KEY}` } });
    const r = await send(['--json']);
    assert.equal(r.code, 4, r.stderr);
    assert.equal(server.requests.length, 1);
    const e = (JSON.parse(r.stdout) as { error: { message: string; hint: string } }).error;
    assert.equal(e.message, 'the API rejected the request (HTTP 308): unexpected redirect (https://moved.example.com/v2/messages?key=****5678): (no message)');
    assert.match(e.hint, /^msgr does not follow redirects .* make it the base URL \(--base-url, MSGR_BASE_URL or the profile's base-url\)\. Nothing was sent\.$/);
    assertNoKey(r);
  });

  test('503 with Retry-After is retried; 503 without is not (exit 5)', async () => {
    server.script({ status: 503, headers: { 'retry-after': '0' } });
    const ok = await send();
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(server.requests.length, 2);
    server.requests.length = 0;
    server.script({ status: 503, body: 'maintenance' });
    const r = await send();
    assert.equal(r.code, 5);
    assert.equal(server.requests.length, 1);
  });

  for (const status of [500, 502, 504]) {
    test(`${status} → outcome unknown, exit 6, never retried`, async () => {
      server.script({ status, body: '<html>upstream error</html>', headers: { 'content-type': 'text/html' } });
      const r = await send();
      assert.equal(r.code, 6);
      assert.equal(server.requests.length, 1);
      assert.match(r.stderr, /outcome unknown/);
      assert.match(r.stderr, /Check whether the message arrived/);
    });
  }

  test('a socket reset after the request → exit 6, not retried', async () => {
    server.script({ reset: true });
    const r = await send();
    assert.equal(r.code, 6);
    assert.equal(server.requests.length, 1);
    assert.match(r.stderr, /connection was closed before an answer came/);
  });

  test('--verbose shows request and response with the key masked', async () => {
    const r = await send(['--verbose']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /> POST http:\/\/127\.0\.0\.1:\d+\/v2\/messages/);
    assert.match(r.stderr, /> x-api-key: \*\*\*\*5678/);
    assert.match(r.stderr, /< 202/);
    assertNoKey(r);
  });

  test('server text with control characters is shown, and the key is never echoed back', async () => {
    server.script({ status: 400, body: { message: `bad key ${KEY}` } });
    const r = await send();
    assert.equal(r.code, 4);
    assert.match(r.stderr, /bad key \*\*\*\*5678/);
    assertNoKey(r);
  });
});

// What msgr waits out here is its own (a Retry-After of 1 s; a --timeout of 0.5 s, which undici's
// timers round up to about 1 s; the backoff between connection attempts): each test has a server
// of its own, and they wait side by side.
describe('answers msgr waits for: a retry, a timeout, a connection refused', { concurrency: true }, () => {
  test('429 then 202 → retried with the same Idempotency-Key, exit 0', async (t) => {
    const api = await ownServer(t);
    api.script({ status: 429, headers: { 'retry-after': '0' } }, { status: 429, headers: { 'retry-after': '1' } });
    const r = await send([], { MSGR_BASE_URL: api.url });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(api.requests.length, 3);
    const keys = new Set(api.requests.map((q) => q.headers['idempotency-key']));
    assert.equal(keys.size, 1);
    assert.match(r.stderr, /retrying in 1\.0 s \(429\)/);
  });

  test('no answer within --timeout → exit 6, not retried', async (t) => {
    const api = await ownServer(t);
    api.script({ status: 202, delayMs: 3_000 });
    const r = await send(['--timeout', '0.5'], { MSGR_BASE_URL: api.url });
    assert.equal(r.code, 6);
    assert.equal(api.requests.length, 1);
    assert.match(r.stderr, /timed out waiting for the answer/);
  });

  test('connection refused → exit 5 (never sent), after retries', async () => {
    const closed = await startTestServer();
    const url = closed.url;
    await closed.close();
    const r = await send([], { MSGR_BASE_URL: url });
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stderr, /connection refused/);
    assert.match(r.stderr, /safe to run the same command again/);
    // Which host could not be reached, and what to check: a cron log has nothing else to go by.
    assert.match(r.stderr, new RegExp(`^error: not sent: cannot reach 127\\.0\\.0\\.1:${new URL(url).port}: connection refused \\(after 3 attempts\\)$`, 'm'));
    assert.match(r.stderr, new RegExp(`^hint: Nothing accepts connections at 127\\.0\\.0\\.1:${new URL(url).port}: check the base URL's host and port, and that the API is up there \\(\`msgr doctor\` checks each step\\)\\. Nothing was sent`, 'm'));
  });
});

test('a key echoed back in a JSON body never reaches stdout, on success or error', async () => {
  server.script({ status: 202, body: { id: 'm1', echo: `key=${KEY}` } }, { status: 422, body: { detail: `bad key ${KEY}` } });
  const ok = await send(['--json']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(JSON.parse(ok.stdout), { id: 'm1', echo: 'key=****5678' });
  const bad = await send(['--json']);
  assert.equal(bad.code, 4);
  assert.deepEqual((JSON.parse(bad.stdout) as { error: { body: unknown } }).error.body, { detail: 'bad key ****5678' });
  assertNoKey(ok);
  assertNoKey(bad);
});
