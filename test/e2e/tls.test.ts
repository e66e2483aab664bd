// HTTPS with a private CA made at test time: refused without --ca-file, trusted with it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hasSystemCaSwitch } from '../../src/http/trust.js';
import { cleanEnv, runCli, tempDir } from '../support/cli.js';
import { startTestServer, useTestServer } from '../support/test-server.js';
import { makeCerts, type TestCerts } from '../support/tls.js';

let certs: TestCerts;
const server = useTestServer({ tls: () => (certs = makeCerts()) });

const args = ['send', '--to', '+447911123456', '--from', 'Acme', '--text', 'hi', '--account', 'ACME01'];
const env = (): Record<string, string> => cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: 'tls-key-4321', MSGR_BASE_URL: server.url });

test('an untrusted certificate is refused: exit 5, nothing sent, hint names --ca-file, the profile setting and (where Node has it) NODE_USE_SYSTEM_CA', async () => {
  const r = await runCli(args, { env: env() });
  assert.equal(r.code, 5, r.stderr);
  assert.match(r.stderr, /certificate/i);
  assert.match(r.stderr, /hint: .*--ca-file ROOT\.pem.*msgr profile set NAME ca-file ROOT\.pem.*MSGR_CA_FILE/);
  if (hasSystemCaSwitch(process.versions.node)) assert.match(r.stderr, /NODE_USE_SYSTEM_CA=1/);
  else assert.doesNotMatch(r.stderr, /NODE_USE_SYSTEM_CA/);
  assert.equal(server.requests.length, 0);
});

test('send-bulk with an untrusted certificate stops at its first batch: exit 5, nothing in doubt (not 7 after five batches); the resume with --ca-file sends each row once', async () => {
  server.requests.length = 0;
  const csv = join(tempDir(), 'list.csv');
  writeFileSync(csv, `msisdn\n${Array.from({ length: 100 }, (_, i) => `+447911${100000 + i}`).join('\n')}\n`);
  const e = env();
  const r = await runCli(['send-bulk', csv, '--from', 'Acme', '--text', 'hi', '--account', 'ACME01', '--batch-size', '10', '--json'], { env: e });
  assert.equal(r.code, 5, r.stderr);
  const doc = JSON.parse(r.stdout) as { stopped: string; notSent: number; inDoubt: number; resume: string };
  assert.deepEqual([doc.stopped, doc.notSent, doc.inDoubt], ['unreachable', 100, 0]);
  assert.doesNotMatch(r.stderr, /in a row/);
  assert.match(r.stderr, /hint: .*--ca-file ROOT\.pem/);
  assert.equal(server.requests.length, 0);
  const resumed = await runCli([...doc.resume.split(' ').slice(1), '--ca-file', certs.caFile], { env: e });
  assert.equal(resumed.code, 0, resumed.stderr);
  const sent = server.requests.flatMap((q) => (q.json as { recipients: Array<{ msisdn: string }> }).recipients.map((x) => x.msisdn));
  assert.deepEqual([sent.length, new Set(sent).size], [100, 100]);
});

test('ca-file as a profile setting and MSGR_CA_FILE; flag > env > profile; a missing file names where it came from', async () => {
  const config = tempDir();
  const base = cleanEnv({ MSGR_CONFIG_DIR: config, MSGR_API_KEY: 'tls-key-4321', MSGR_BASE_URL: server.url });
  const add = await runCli(['profile', 'add', 'corp', '--api-key-stdin', '--account', 'ACME01', '--ca-file', certs.caFile], { env: base, input: 'tls-key-4321\n' });
  assert.equal(add.code, 0, add.stderr);
  const show = await runCli(['profile', 'show', '--json'], { env: base });
  assert.deepEqual((JSON.parse(show.stdout) as { caFile: unknown }).caFile, { value: certs.caFile, source: 'profile', origin: 'corp' });
  server.requests.length = 0;
  const viaProfile = await runCli(args, { env: base });
  assert.equal(viaProfile.code, 0, viaProfile.stderr);
  const envBeatsProfile = await runCli(args, { env: { ...base, MSGR_CA_FILE: '/etc/hostname' } });
  assert.equal(envBeatsProfile.code, 2, envBeatsProfile.stderr);
  assert.match(envBeatsProfile.stderr, /MSGR_CA_FILE: \/etc\/hostname holds no PEM certificate/);
  const flagBeatsEnv = await runCli([...args, '--ca-file', certs.caFile], { env: { ...base, MSGR_CA_FILE: '/etc/hostname' } });
  assert.equal(flagBeatsEnv.code, 0, flagBeatsEnv.stderr);
  const viaEnv = await runCli(args, { env: { ...env(), MSGR_CA_FILE: certs.caFile } });
  assert.equal(viaEnv.code, 0, viaEnv.stderr);
  assert.equal(server.requests.length, 3);
  // send-bulk resolves it the same way.
  const csv = join(tempDir(), 'few.csv');
  writeFileSync(csv, 'msisdn\n+447911123401\n+447911123402\n');
  const bulk = await runCli(['send-bulk', csv, '--from', 'Acme', '--text', 'hi'], { env: base });
  assert.equal(bulk.code, 0, bulk.stderr);
  assert.equal(server.requests.length, 4);
  const bulkBad = await runCli(['send-bulk', csv, '--from', 'Acme', '--text', 'hi', '--restart', '--again'], { env: { ...base, MSGR_CA_FILE: '/etc/hostname' } });
  assert.equal(bulkBad.code, 2, bulkBad.stderr);
  assert.match(bulkBad.stderr, /MSGR_CA_FILE: \/etc\/hostname holds no PEM certificate/);
  const moved = join(tempDir(), 'gone.pem');
  const set = await runCli(['profile', 'set', 'corp', 'ca-file', certs.caFile], { env: base });
  assert.equal(set.code, 0, set.stderr);
  const setBad = await runCli(['profile', 'set', 'corp', 'ca-file', moved], { env: base });
  assert.equal(setBad.code, 2);
  assert.match(setBad.stderr, /ca-file: cannot read .*gone\.pem \(no such file\)/);
});

test('--ca-file adds the private CA and the send succeeds', async () => {
  server.requests.length = 0;
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

test('TLS failures a root cannot fix say so: https:// to a plain-http port, and a certificate for another name (with its CA trusted); exit 5, nothing sent, no --ca-file hint', async () => {
  const plain = await startTestServer();
  const onlyLocalhost = makeCerts('DNS:localhost');
  const named = await startTestServer({ tls: { key: onlyLocalhost.key, cert: onlyLocalhost.cert } });
  try {
    const port = (url: string): string => new URL(url).port;
    const handshake = await runCli([...args, '--json'], { env: { ...env(), MSGR_BASE_URL: `https://localhost:${port(plain.url)}` } });
    assert.equal(handshake.code, 5, handshake.stderr);
    const h = (JSON.parse(handshake.stdout) as { error: { message: string; hint: string } }).error;
    assert.equal(h.message, 'not sent: the TLS handshake failed (ERR_SSL_WRONG_VERSION_NUMBER): wrong version number');
    assert.match(h.hint, /check the base URL and port \(`https:\/\/` to a plain-http port fails this way\)/);
    assert.doesNotMatch(handshake.stdout + handshake.stderr, /not trusted|--ca-file|ssl3_get_record/);
    assert.equal(plain.requests.length, 0);

    const name = await runCli([...args, '--ca-file', onlyLocalhost.caFile], { env: { ...env(), MSGR_BASE_URL: `https://127.0.0.1:${port(named.url)}` } });
    assert.equal(name.code, 5, name.stderr);
    assert.match(name.stderr, /^error: not sent: the TLS certificate does not name the host \(ERR_TLS_CERT_ALTNAME_INVALID\): IP: 127\.0\.0\.1 is not in the cert's list$/m);
    assert.match(name.stderr, /^hint: Check the base URL's host/m);
    assert.doesNotMatch(name.stderr, /not trusted|--ca-file/);
    assert.equal(named.requests.length, 0);
  } finally {
    await plain.close();
    await named.close();
  }
});
