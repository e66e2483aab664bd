// `msgr api` as a script uses it: the request sent as given, under the base URL, with the key and
// an Idempotency-Key; the answer printed; the API's errors as send's exit codes; what is refused
// before anything is sent. In-process (test/support/in-process.ts), against a scriptable server on
// 127.0.0.1; e2e keeps HTTPS through a proxy and the signals (test/e2e/api.test.ts).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir, type RunResult } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { useTestServer } from '../../../support/test-server.js';

const KEY = 'sk_test_apikey_abcd9876';
const server = useTestServer({
  reset: (s) => {
    s.fallback = { status: 200, body: { ok: true } };
  },
});

function api(args: string[], extra: Record<string, string | undefined> = {}, input?: string): Promise<RunResult> {
  const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: KEY, MSGR_BASE_URL: `${server.url}/base`, MSGR_ACCOUNT_REFERENCE: 'ACME01', ...extra });
  return runInProcess(['api', ...args], { env, ...(input !== undefined ? { input } : {}) });
}

function assertNoKey(r: RunResult): void {
  assert.ok(!r.stdout.includes(KEY) && !r.stderr.includes(KEY), 'API key leaked');
}

describe('msgr api', () => {
  test('--input FILE: POST by default, the body as is, under the base URL, with the key and an Idempotency-Key', async () => {
    const file = join(tempDir(), 'req.json');
    const body = '{"accountReference":"ACME01","body":{"rcs":{"card":{"title":"Hi"}}},"recipients":[{"msisdn":"+447400900123"}]}';
    writeFileSync(file, body);
    server.script({ status: 202, body: { batchId: 'b1' } });
    const r = await api(['/v2/messages', '--input', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { batchId: 'b1' });
    const req = server.requests[0]!;
    assert.equal(req.method, 'POST');
    assert.equal(req.url, '/base/v2/messages');
    assert.equal(req.body, body);
    assert.equal(req.headers['x-api-key'], KEY);
    assert.equal(req.headers['content-type'], 'application/json');
    assert.match(String(req.headers['idempotency-key']), /^msgr-[0-9a-f-]{36}$/);
    assert.match(r.stderr, /HTTP 202 for POST \/base\/v2\/messages/);
  });

  test('--field builds a JSON body: text, JSON, nesting, arrays, {account}', async () => {
    const r = await api(['POST', '/v2/messages', '-f', 'accountReference={account}', '-f', 'body.text=Hi', '-f', 'recipients[].msisdn=+447400900123', '-f', 'meta:={"n": 1, "ok": true}']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(server.requests[0]!.json, { accountReference: 'ACME01', body: { text: 'Hi' }, recipients: [{ msisdn: '+447400900123' }], meta: { n: 1, ok: true } });
  });

  test('GET without a body: no content-type, fields become query parameters; extra headers are sent', async () => {
    const r = await api(['GET', '/v2/messages?limit=2', '-f', 'status=accepted', '-H', 'X-Trace: abc']);
    assert.equal(r.code, 0, r.stderr);
    const req = server.requests[0]!;
    assert.equal(req.method, 'GET');
    assert.equal(req.url, '/base/v2/messages?limit=2&status=accepted');
    assert.equal(req.headers['content-type'], undefined);
    assert.equal(req.headers['x-trace'], 'abc');
    assert.equal(req.body, '');
  });

  test('a non-JSON answer is printed as text; --json wraps it in one document', async () => {
    server.script({ status: 200, body: 'plain words' }, { status: 204 });
    const text = await api(['/v2/status']);
    assert.equal(text.stdout, 'plain words\n');
    const json = await api(['/v2/status', '--json']);
    assert.deepEqual(JSON.parse(json.stdout), { accepted: true, status: 204, text: '' });
  });

  test('HTTP errors: the exit codes and the one JSON error shape of send', async () => {
    server.script({ status: 401, body: { title: 'Unauthorized', detail: `bad key ${KEY}` } });
    const auth = await api(['/v2/messages', '--json']);
    assert.equal(auth.code, 3);
    const doc = JSON.parse(auth.stdout) as { error: { status: number; exitCode: number; body: { detail: string } } };
    assert.equal(doc.error.status, 401);
    assert.equal(doc.error.exitCode, 3);
    assert.equal(doc.error.body.detail, 'bad key ****9876');
    assertNoKey(auth);
    server.script({ status: 404, body: { title: 'Not Found' } });
    assert.equal((await api(['/v2/nothing'])).code, 4);
  });

  test('retries only what provably did not happen: 429 is retried, a reset is not (exit 6)', async () => {
    server.script({ status: 429, headers: { 'retry-after': '0' }, body: { title: 'slow down' } }, { status: 202, body: { id: 'm' } });
    const ok = await api(['/v2/messages', '-f', 'a=b']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(server.requests.length, 2);
    assert.equal(server.requests[0]!.headers['idempotency-key'], server.requests[1]!.headers['idempotency-key']);
    server.requests.length = 0;
    server.script({ reset: true });
    const reset = await api(['/v2/messages', '-f', 'a=b']);
    assert.equal(reset.code, 6);
    assert.equal(server.requests.length, 1);
    assert.match(reset.stderr, /outcome unknown/);
  });

  test('--verbose shows the exchange with the key masked, never the key', async () => {
    const r = await api(['/v2/messages', '-f', 'a=b', '--verbose']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /> POST http:\/\/127\.0\.0\.1:\d+\/base\/v2\/messages/);
    assert.match(r.stderr, /> x-api-key: \*\*\*\*9876/);
    assertNoKey(r);
  });

  test('refused before anything is sent: a full URL, a key header, a body on GET, plain http elsewhere', async () => {
    const cases: Array<[string[], RegExp, Record<string, string>?]> = [
      [['https://example.com/v2/messages'], /is not a path/],
      [['/v2/messages', '-H', `X-Api-Key: ${KEY}`], /X-Api-Key is never taken on the command line/],
      [['GET', '/v2/messages', '--input', '-'], /a GET request has no body/],
      [['FETCH', '/v2/messages'], /"FETCH" is not an HTTP method/],
      [['/v2/messages'], /refusing to send the API key over plain http/, { MSGR_BASE_URL: 'http://api.example.com' }],
      [['/v2/messages', '-f', 'n:={bad'], /the value of n is not JSON/],
    ];
    for (const [args, message, env] of cases) {
      const r = await api(args, env ?? {}, '{}');
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assertNoKey(r);
    }
    assert.equal(server.requests.length, 0);
  });
});
