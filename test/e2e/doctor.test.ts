// `msgr doctor` end to end: against the sandbox, an HTTPS server with a certificate made at test
// time (with and without its CA), through tinyproxy, with a read-only state folder. Every server
// here records what it received: doctor must never POST.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cleanEnv, runCli, tempDir, type RunResult } from '../support/cli.js';
import { useTestServer } from '../support/test-server.js';
import { startTinyproxy, tinyproxySkip, type Tinyproxy } from '../support/tinyproxy.js';
import { makeCerts, type TestCerts } from '../support/tls.js';

const KEY = 'doctor-key-123456789';

interface Doc {
  ok: boolean;
  exitCode: number;
  steps: Array<{ id: string; status: string; detail: string; hint?: string | null; exitCode?: number | null; data?: Record<string, unknown> | null }>;
}

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

function doc(r: RunResult): Doc {
  return JSON.parse(r.stdout) as Doc;
}

const step = (d: Doc, id: string): Doc['steps'][number] => {
  const s = d.steps.find((x) => x.id === id);
  assert.ok(s !== undefined, `no step ${id}`);
  return s;
};

function assertNeverPosted(): void {
  assert.deepEqual(server.requests.filter((r) => r.method !== 'GET'), [], 'doctor sent something other than a GET');
  for (const r of server.requests) assert.equal(r.url, '/', 'doctor asked for something other than the base URL');
}

test('doctor --sandbox: every step passes, exit 0, one line per step', async () => {
  const r = await runCli(['doctor', '--sandbox'], { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir() }) });
  assert.equal(r.code, 0, r.stderr);
  for (const title of ['settings', 'Node', 'state folder', 'DNS', 'proxy', 'connection', 'TLS', 'HTTP', 'API key']) assert.match(r.stdout, new RegExp(`^  \\S+\\s+${title}\\s`, 'm'), title);
  assert.match(r.stdout, /ok\s+HTTP\s+GET http:\/\/127\.0\.0\.1:\d+\/ → HTTP 404/);
  assert.match(r.stdout, /info\s+API key\s+not checked: the API has no way to check a key without sending a message/);
  assert.match(r.stdout, /every step passed/);
  const json = await runCli(['doctor', '--sandbox', '--json'], { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir() }) });
  assert.equal(json.code, 0, json.stderr);
  const d = doc(json);
  assert.equal(d.ok, true);
  assert.deepEqual(d.steps.map((s) => s.id), ['settings', 'node', 'state', 'dns', 'proxy', 'connect', 'tls', 'http', 'api-key']);
  // Every step has every field, null where it has nothing to say, so a script can read them all.
  for (const s of d.steps) assert.deepEqual(Object.keys(s), ['id', 'title', 'status', 'detail', 'hint', 'exitCode', 'data'], s.id);
  assert.equal(step(d, 'api-key').hint, null);
});

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
  assertNeverPosted();
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
  assertNeverPosted();
});

test('a server clock far off is a warning naming the clock', async () => {
  server.requests.length = 0;
  server.script({ status: 200, body: 'ok', headers: { date: new Date(Date.now() - 3_600_000).toUTCString() } });
  const r = await runCli(['doctor', '--ca-file', certs.caFile, '--json'], { env: env() });
  assert.equal(r.code, 0, r.stderr);
  const http = step(doc(r), 'http');
  assert.equal(http.status, 'warn');
  assert.match(http.detail, /server clock 3\d{3} s behind/);
  assert.match(http.hint ?? '', /clock is off/);
  assertNeverPosted();
});

test('missing settings and a read-only state folder are configuration problems: exit 2', async () => {
  const r = await runCli(['doctor', '--json'], { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir() }) });
  assert.equal(r.code, 2, r.stderr);
  const d = doc(r);
  assert.equal(step(d, 'settings').status, 'fail');
  assert.match(step(d, 'settings').hint ?? '', /Not set: base URL .*account .*API key/);

  // Root ignores folder modes; a folder under /sys cannot be created even by root.
  let folder: string;
  if (process.getuid?.() === 0) {
    folder = '/sys/msgr-doctor-test';
  } else {
    folder = join(tempDir(), 'ro');
    mkdirSync(folder);
    chmodSync(folder, 0o500);
  }
  server.requests.length = 0;
  const ro = await runCli(['doctor', '--ca-file', certs.caFile, '--json'], { env: env({ MSGR_CONFIG_DIR: folder }) });
  assert.equal(ro.code, 2, ro.stderr);
  const state = step(doc(ro), 'state');
  assert.equal(state.status, 'fail');
  assert.match(state.detail, /is not writable \((permission denied|read-only file system)\)/);
  assert.match(state.hint ?? '', /MSGR_CONFIG_DIR/);
  assert.doesNotMatch(ro.stderr, /internal error|\n\s+at /);
  // The rest of the way is still checked.
  assert.equal(step(doc(ro), 'http').status, 'pass');
  assertNeverPosted();
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
  assertNeverPosted();
});

test('a setting that is not set says so once, with the reason', async () => {
  const r = await runCli(['doctor'], { env: env() });
  assert.match(r.stderr + r.stdout, /CA file: not set\n/);
  assert.match(r.stderr + r.stdout, /profile: not set \(no profiles saved\)/);
  assert.doesNotMatch(r.stderr + r.stdout, /\(not set\) \(not set/);
});

test('the API unreachable: exit 5 with the connection step saying so', async () => {
  const r = await runCli(['doctor', '--json'], { env: env({ MSGR_BASE_URL: 'https://127.0.0.1:1' }) });
  assert.equal(r.code, 5, r.stderr);
  const connect = step(doc(r), 'connect');
  assert.equal(connect.status, 'fail');
  assert.match(connect.detail, /cannot connect to 127\.0\.0\.1:1: connection refused/);
});

test('a base URL whose host does not resolve: exit 5 at the DNS step, the rest not checked', async () => {
  const r = await runCli(['doctor', '--json'], { env: env({ MSGR_BASE_URL: 'https://api.invalid' }) });
  assert.equal(r.code, 5, r.stderr);
  const d = doc(r);
  assert.equal(step(d, 'dns').status, 'fail');
  assert.match(step(d, 'dns').detail, /api\.invalid does not resolve/);
  assert.equal(step(d, 'connect').status, 'skip');
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
    assertNeverPosted();
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
