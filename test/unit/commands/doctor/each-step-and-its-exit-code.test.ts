// `msgr doctor`'s steps and exit codes where no process is the point, in-process: against the
// sandbox, and against the scriptable server on plain HTTP (a server clock far off, missing
// settings, a read-only state folder, a setting not set, no server, a host that does not
// resolve). The server records what it received: doctor must never POST. Trust (an HTTPS server's
// CA, NODE_EXTRA_CA_CERTS), proxies and a state folder whose making would hang stay end to end.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir } from '../../../support/cli.js';
import { assertNeverPosted, doc, step } from '../../../support/doctor.js';
import { runInProcess } from '../../../support/in-process.js';
import { useTestServer } from '../../../support/test-server.js';

const KEY = 'doctor-key-123456789';

describe('each step of msgr doctor, and its exit code', () => {
  const server = useTestServer({
    reset: (s) => {
      s.fallback = { status: 404, body: 'not here', headers: { date: new Date().toUTCString() } };
    },
  });

  function env(extra: Record<string, string | undefined> = {}): Record<string, string> {
    return cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: KEY, MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: 'ACME01', ...extra });
  }

  test('doctor --sandbox: every step passes, exit 0, one line per step', async () => {
    const r = await runInProcess(['doctor', '--sandbox'], { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir() }) });
    assert.equal(r.code, 0, r.stderr);
    for (const title of ['settings', 'Node', 'state folder', 'DNS', 'proxy', 'connection', 'TLS', 'HTTP', 'API key']) assert.match(r.stdout, new RegExp(`^  \\S+\\s+${title}\\s`, 'm'), title);
    assert.match(r.stdout, /ok\s+HTTP\s+GET http:\/\/127\.0\.0\.1:\d+\/ → HTTP 404/);
    assert.match(r.stdout, /info\s+API key\s+not checked: the API has no way to check a key without sending a message/);
    assert.match(r.stdout, /every step passed/);
    const json = await runInProcess(['doctor', '--sandbox', '--json'], { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir() }) });
    assert.equal(json.code, 0, json.stderr);
    const d = doc(json);
    assert.equal(d.ok, true);
    assert.deepEqual(d.steps.map((s) => s.id), ['settings', 'node', 'state', 'dns', 'proxy', 'connect', 'tls', 'http', 'api-key']);
    // Every step has every field, null where it has nothing to say, so a script can read them all.
    for (const s of d.steps) assert.deepEqual(Object.keys(s), ['id', 'title', 'status', 'detail', 'hint', 'exitCode', 'data'], s.id);
    assert.equal(step(d, 'api-key').hint, null);
  });

  test('a server clock far off is a warning naming the clock', async () => {
    server.requests.length = 0;
    server.script({ status: 200, body: 'ok', headers: { date: new Date(Date.now() - 3_600_000).toUTCString() } });
    const r = await runInProcess(['doctor', '--json'], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    const http = step(doc(r), 'http');
    assert.equal(http.status, 'warn');
    assert.match(http.detail, /server clock 3\d{3} s behind/);
    assert.match(http.hint ?? '', /clock is off/);
    assertNeverPosted(server);
  });

  test('missing settings and a read-only state folder are configuration problems: exit 2', async () => {
    const r = await runInProcess(['doctor', '--json'], { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir() }) });
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
    const ro = await runInProcess(['doctor', '--json'], { env: env({ MSGR_CONFIG_DIR: folder }) });
    assert.equal(ro.code, 2, ro.stderr);
    const state = step(doc(ro), 'state');
    assert.equal(state.status, 'fail');
    assert.match(state.detail, /is not writable \((permission denied|read-only file system)\)/);
    assert.match(state.hint ?? '', /MSGR_CONFIG_DIR/);
    assert.doesNotMatch(ro.stderr, /internal error|\n\s+at /);
    // The rest of the way is still checked.
    assert.equal(step(doc(ro), 'http').status, 'pass');
    assertNeverPosted(server);
  });

  test('a setting that is not set says so once, with the reason', async () => {
    const r = await runInProcess(['doctor'], { env: env() });
    assert.match(r.stderr + r.stdout, /CA file: not set\n/);
    assert.match(r.stderr + r.stdout, /profile: not set \(no profiles saved\)/);
    assert.doesNotMatch(r.stderr + r.stdout, /\(not set\) \(not set/);
  });

  test('the API unreachable: exit 5 with the connection step saying so', async () => {
    const r = await runInProcess(['doctor', '--json'], { env: env({ MSGR_BASE_URL: 'https://127.0.0.1:1' }) });
    assert.equal(r.code, 5, r.stderr);
    const connect = step(doc(r), 'connect');
    assert.equal(connect.status, 'fail');
    assert.match(connect.detail, /cannot connect to 127\.0\.0\.1:1: connection refused/);
  });

  test('a base URL whose host does not resolve: exit 5 at the DNS step, the rest not checked', async () => {
    const r = await runInProcess(['doctor', '--json'], { env: env({ MSGR_BASE_URL: 'https://api.invalid' }) });
    assert.equal(r.code, 5, r.stderr);
    const d = doc(r);
    assert.equal(step(d, 'dns').status, 'fail');
    assert.match(step(d, 'dns').detail, /api\.invalid does not resolve/);
    assert.equal(step(d, 'connect').status, 'skip');
  });
});
