// HTTPS with a private CA made at test time: refused without --ca-file, trusted with it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { cleanEnv, runCli, tempDir } from '../support/cli.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { makeCerts, type TestCerts } from '../support/tls.js';

let certs: TestCerts;
let server: TestServer;
before(async () => {
  certs = makeCerts();
  server = await startTestServer({ tls: { key: certs.key, cert: certs.cert } });
});
after(async () => {
  await server.close();
});

const args = ['send', '--to', '+447911123456', '--from', 'Acme', '--text', 'hi', '--account', 'ACME01'];
const env = (): Record<string, string> => cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: 'tls-key-4321', MSGR_BASE_URL: server.url });

test('an untrusted certificate is refused: exit 5, nothing sent, hint names --ca-file', async () => {
  const r = await runCli(args, { env: env() });
  assert.equal(r.code, 5, r.stderr);
  assert.match(r.stderr, /certificate/i);
  assert.match(r.stderr, /--ca-file/);
  assert.equal(server.requests.length, 0);
});

test('--ca-file adds the private CA and the send succeeds', async () => {
  const r = await runCli([...args, '--ca-file', certs.caFile], { env: env() });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(server.requests.length, 1);
  assert.equal(server.requests[0]!.headers['x-api-key'], 'tls-key-4321');
});

test('--ca-file with a file that is not PEM is a usage error', async () => {
  const r = await runCli([...args, '--ca-file', '/etc/hostname'], { env: env() });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--ca-file: \/etc\/hostname holds no PEM certificate/);
});

test('HTTPS_PROXY tunnels the request through the proxy; NO_PROXY bypasses it', async () => {
  const { startProxy } = await import('../support/proxy.js');
  const proxy = await startProxy();
  try {
    server.requests.length = 0;
    const viaProxy = await runCli([...args, '--ca-file', certs.caFile], { env: { ...env(), HTTPS_PROXY: proxy.url } });
    assert.equal(viaProxy.code, 0, viaProxy.stderr);
    assert.equal(proxy.tunnels.length, 1);
    assert.match(proxy.tunnels[0]!, /^localhost:\d+$/);
    assert.equal(server.requests.length, 1);
    const bypass = await runCli([...args, '--ca-file', certs.caFile], { env: { ...env(), HTTPS_PROXY: proxy.url, NO_PROXY: 'localhost' } });
    assert.equal(bypass.code, 0, bypass.stderr);
    assert.equal(proxy.tunnels.length, 1, 'NO_PROXY host went through the proxy');
    assert.equal(server.requests.length, 2);
  } finally {
    await proxy.close();
  }
});
