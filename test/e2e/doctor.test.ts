// `msgr doctor` end to end where a process is the point: an HTTPS server with a certificate made
// at test time (with and without its CA, and NODE_EXTRA_CA_CERTS, which Node reads as it starts),
// through tinyproxy, and a state folder whose making would hang (a hang needs a process to kill).
// Every server here records what it received: doctor must never POST. The other steps are
// proved in-process: test/unit/commands/doctor/each-step-and-its-exit-code.test.ts.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cleanEnv, runCli, tempDir } from '../support/cli.js';
import { assertNeverPosted, doc, step } from '../support/doctor.js';
import { useTestServer } from '../support/test-server.js';
import { startTinyproxy, tinyproxySkip, type Tinyproxy } from '../support/tinyproxy.js';
import { makeCerts, type TestCerts } from '../support/tls.js';

const KEY = 'doctor-key-123456789';

let certs: TestCerts;
const server = useTestServer({
  tls: () => (certs = makeCerts()),
  reset: (s) => {
    s.fallback = { status: 404, body: 'not here', headers: { date: new Date().toUTCString() } };
  },
});

function env(extra: Record<string, string | undefined> = {}): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: KEY, MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: 'ACME01', ...extra });
}

test('an HTTPS server whose CA is not trusted: TLS fails with the trust hint, exit 5, nothing POSTed', async () => {
  server.requests.length = 0;
  const r = await runCli(['doctor', '--json'], { env: env() });
  assert.equal(r.code, 5, r.stderr);
  const d = doc(r);
  assert.equal(d.exitCode, 5);
  const tls = step(d, 'tls');
  assert.equal(tls.status, 'fail');
  assert.match(tls.detail, /is not trusted \(.+\): subject CN=localhost; issuer CN=msgr test CA; expires \d{4}-\d\d-\d\d/);
  assert.match(tls.hint ?? '', /inspects TLS.*--ca-file ROOT\.pem.*profile set NAME ca-file.*MSGR_CA_FILE/);
  assert.equal(step(d, 'http').status, 'skip');
  assert.equal(server.requests.length, 0);
  assert.ok(!r.stdout.includes(KEY) && !r.stderr.includes(KEY), 'the key in the output');
  assert.match(step(d, 'settings').detail, /API key: \*\*\*\*6789 \(env MSGR_API_KEY\)/);
});

test('with the CA (--ca-file): trusted through a root outside Node\'s bundle (a warning), one GET of the base URL, exit 0', async () => {
  server.requests.length = 0;
  const r = await runCli(['doctor', '--ca-file', certs.caFile], { env: env() });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /warn\s+TLS\s+trusted through the CA file \(flag --ca-file\), not Node's bundled roots: subject CN=localhost; issuer CN=msgr test CA/);
  assert.match(r.stdout, /ok\s+HTTP\s+GET https:\/\/localhost:\d+\/ → HTTP 404 in \d+ ms .*server clock \d+ s (ahead of|behind)/);
  assert.match(r.stdout, /CA file: .*ca\.pem \(flag --ca-file\)/);
  assert.equal(server.requests.length, 1);
  assertNeverPosted(server);
});

test('NODE_EXTRA_CA_CERTS naming a file Node cannot load is a warning at the Node step (Node only notes it at start-up, then trusts nothing from it); a readable one passes and trusts the CA', async () => {
  for (const bad of [join(tempDir(), 'missing.pem'), '/etc/hostname']) {
    const r = await runCli(['doctor', '--json'], { env: env({ NODE_EXTRA_CA_CERTS: bad }) });
    assert.equal(r.code, 5, r.stderr);
    const node = step(doc(r), 'node');
    assert.equal(node.status, 'warn', node.detail);
    assert.match(node.detail, new RegExp(`NODE_EXTRA_CA_CERTS: (cannot read ${bad} \\(no such file\\)|${bad} holds no PEM certificate): Node ignores it`));
    assert.match(node.hint ?? '', /Point NODE_EXTRA_CA_CERTS at a readable PEM file, or give the root with --ca-file/);
  }
  const good = await runCli(['doctor', '--json'], { env: env({ NODE_EXTRA_CA_CERTS: certs.caFile }) });
  assert.equal(good.code, 0, good.stderr);
  assert.equal(step(doc(good), 'node').status, 'pass');
  assertNeverPosted(server);
});

test('a state folder that cannot be made (nested under /proc) fails that step at once, naming the folder', async () => {
  // mkdirSync's `recursive` never returns on such a path; doctor must make folders as send-bulk does.
  const folder = '/proc/msgr-doctor-test/state';
  const r = await runCli(['doctor', '--ca-file', certs.caFile, '--json'], { env: env({ MSGR_CONFIG_DIR: folder }), timeoutMs: 10_000 });
  assert.equal(r.code, 2, r.stderr);
  const state = step(doc(r), 'state');
  assert.equal(state.status, 'fail');
  assert.match(state.detail, /^\/proc\/msgr-doctor-test\/state is not writable/);
  assert.match(state.hint ?? '', /MSGR_CONFIG_DIR/);
  assertNeverPosted(server);
});

describe('through tinyproxy', { skip: tinyproxySkip() }, () => {
  const password = 'doctorPw42';
  let proxy: Tinyproxy;
  before(async () => {
    proxy = await startTinyproxy({ basicAuth: { user: 'ops', password } });
  });
  after(async () => {
    await proxy.close();
  });

  test('good credentials: the proxy step names it masked, the tunnel opens, exit 0, nothing POSTed', async () => {
    server.requests.length = 0;
    const r = await runCli(['doctor', '--ca-file', certs.caFile], { env: env({ HTTPS_PROXY: `http://ops:${password}@127.0.0.1:${proxy.port}` }) });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`ok\\s+proxy\\s+proxy http://ops:\\*\\*\\*@127\\.0\\.0\\.1:${proxy.port} \\(from HTTPS_PROXY\\)`));
    assert.match(r.stdout, new RegExp(`ok\\s+connection\\s+the proxy http://127\\.0\\.0\\.1:${proxy.port} opened a tunnel to localhost:\\d+ \\(HTTP 200\\)`));
    assert.ok(!r.stdout.includes(password) && !r.stderr.includes(password), 'the proxy password in the output');
    assert.equal(server.requests.length, 1);
    assertNeverPosted(server);
  });

  test('wrong credentials: exit 2, the connection step says how to give them', async () => {
    const r = await runCli(['doctor', '--ca-file', certs.caFile, '--json'], { env: env({ HTTPS_PROXY: `http://ops:nope-${password}@127.0.0.1:${proxy.port}` }) });
    assert.equal(r.code, 2, r.stderr);
    const connect = step(doc(r), 'connect');
    assert.match(connect.detail, /refused the credentials of user "ops"/);
    assert.match(connect.hint ?? '', /percent-encoding/);
    assert.ok(!r.stdout.includes(password) && !r.stderr.includes(password));
  });

  test('NO_PROXY: the proxy step names the entry that bypassed it', async () => {
    const r = await runCli(['doctor', '--ca-file', certs.caFile], { env: env({ HTTPS_PROXY: `http://127.0.0.1:${proxy.port}`, no_proxy: '.localhost' }) });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /ok\s+proxy\s+no proxy: no_proxy entry "\.localhost" matches localhost:\d+/);
  });
});
