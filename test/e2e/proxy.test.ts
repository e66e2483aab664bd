// Sending through a proxy, end to end: Debian's tinyproxy on 127.0.0.1 (started here with a
// config written at test time; skipped with a note where it is not installed), and the
// scriptable CONNECT proxy in test/support/proxy.ts for what tinyproxy cannot be made to do.
// A tunnel the proxy did not open never sent anything: exit 2 or 5, never "outcome unknown".
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cleanEnv, runCli, tempDir, type RunResult } from '../support/cli.js';
import { startProxy, type TestProxy } from '../support/proxy.js';
import { type TestServer, useTestServer } from '../support/test-server.js';
import { startTinyproxy, tinyproxySkip, type Tinyproxy } from '../support/tinyproxy.js';
import { makeCerts, type TestCerts } from '../support/tls.js';

const KEY = 'proxy-test-key-98765';
const PASSWORD = 's3cretPw';
const SEND = ['send', '--to', '+447911123456', '--from', 'Acme', '--text', 'hi', '--account', 'ACME01'];

let certs: TestCerts;
before(() => {
  certs = makeCerts();
});

/**
 * The API over TLS and over plain HTTP, for one describe block: the blocks run side by side (the
 * retries' backoff of one overlaps another's), and each counts the requests that reach its own.
 */
function apiServers(): { tls: TestServer; plain: TestServer } {
  return { tls: useTestServer({ tls: () => certs }), plain: useTestServer() };
}

function env(baseUrl: string, extra: Record<string, string | undefined> = {}, configDir = tempDir()): Record<string, string> {
  return cleanEnv({ MSGR_CONFIG_DIR: configDir, MSGR_API_KEY: KEY, MSGR_BASE_URL: baseUrl, ...extra });
}

/** No secret of the test in anything msgr printed. */
function assertNoSecrets(r: RunResult, ...secrets: string[]): void {
  for (const s of [PASSWORD, KEY, ...secrets]) {
    assert.ok(!r.stdout.includes(s), `stdout shows a secret: ${s}`);
    assert.ok(!r.stderr.includes(s), `stderr shows a secret: ${s}`);
  }
  assert.doesNotMatch(r.stderr, /\n\s+at .+:\d+:\d+/, 'stack trace without --verbose');
  assert.doesNotMatch(r.stderr, /internal error|outcome unknown/);
}

const closedPort = async (): Promise<number> => {
  const p = await startProxy();
  const port = p.port;
  await p.close();
  return port;
};

describe('sending through a proxy', { concurrency: true }, () => {
  describe('through tinyproxy', { skip: tinyproxySkip(), concurrency: false }, () => {
    const { tls, plain } = apiServers();

    let proxy: Tinyproxy;
    before(async () => {
      proxy = await startTinyproxy({ basicAuth: { user: 'ops', password: PASSWORD } });
    });
    after(async () => {
      await proxy.close();
    });
    const good = (): string => `http://ops:${PASSWORD}@127.0.0.1:${proxy.port}`;

    test('good credentials: send goes through the tunnel', async () => {
      tls.requests.length = 0;
      const r = await runCli([...SEND, '--ca-file', certs.caFile, '--verbose'], { env: env(tls.url, { HTTPS_PROXY: good() }) });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(tls.requests.length, 1);
      assert.match(r.stderr, new RegExp(`route: proxy http://ops:\\*\\*\\*@127\\.0\\.0\\.1:${proxy.port} \\(from HTTPS_PROXY\\)`));
      assert.match(proxy.log(), new RegExp(`CONNECT localhost:${new URL(tls.url).port}`));
      assertNoSecrets(r);
    });

    test('wrong credentials: send exits 2, names the proxy and HTTPS_PROXY, nothing sent', async () => {
      tls.requests.length = 0;
      const r = await runCli([...SEND, '--ca-file', certs.caFile, '--json'], { env: env(tls.url, { HTTPS_PROXY: `http://ops:wrong-${PASSWORD}@127.0.0.1:${proxy.port}` }) });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, new RegExp(`error: not sent: the proxy http://127\\.0\\.0\\.1:${proxy.port} \\(from HTTPS_PROXY\\) refused the credentials of user "ops" \\(HTTP 40[17]`));
      assert.match(r.stderr, /hint: Put the proxy's user and password in HTTPS_PROXY as http:\/\/USER:PASSWORD@.*percent-encoding/);
      assert.equal((JSON.parse(r.stdout) as { error: { exitCode: number } }).error.exitCode, 2);
      assert.equal(tls.requests.length, 0);
      assertNoSecrets(r, `wrong-${PASSWORD}`);
    });

    test('no credentials: exit 2, says the proxy asks for them', async () => {
      const r = await runCli([...SEND, '--ca-file', certs.caFile], { env: env(tls.url, { https_proxy: `127.0.0.1:${proxy.port}` }) });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, new RegExp(`the proxy http://127\\.0\\.0\\.1:${proxy.port} \\(from https_proxy\\) asks for credentials, and none were given \\(HTTP 407`));
    });

    test('the proxy\'s policy (tinyproxy allowing CONNECT to port 443 only): 403, exit 2, nothing sent', async () => {
      const strict = await startTinyproxy({ extra: ['ConnectPort 443'] });
      try {
        tls.requests.length = 0;
        const r = await runCli([...SEND, '--ca-file', certs.caFile], { env: env(tls.url, { HTTPS_PROXY: strict.url }) });
        assert.equal(r.code, 2, r.stderr);
        assert.match(r.stderr, new RegExp(`the proxy http://127\\.0\\.0\\.1:${strict.port} \\(from HTTPS_PROXY\\) refused the tunnel to localhost:\\d+ \\(HTTP 403 .*\\): its policy does not allow it`));
        assert.equal(tls.requests.length, 0);
      } finally {
        await strict.close();
      }
    });

    test('the API unreachable behind the proxy: exit 5 after retries, not "outcome unknown"', async () => {
      const port = await closedPort();
      const r = await runCli([...SEND, '--ca-file', certs.caFile], { env: env(`https://localhost:${port}`, { HTTPS_PROXY: good() }), timeoutMs: 40_000 });
      assert.equal(r.code, 5, r.stderr);
      assert.match(r.stderr, new RegExp(`not sent: the proxy http://127\\.0\\.0\\.1:${proxy.port} \\(from HTTPS_PROXY\\) could not open a tunnel to localhost:${port} \\(HTTP 5\\d\\d`));
      assert.match(r.stderr, /after 3 attempts/);
      assert.match(r.stderr, /safe to run the same command again/);
      assertNoSecrets(r);
    });

    test('each NO_PROXY form bypasses the proxy (which would refuse: no credentials); others do not', async () => {
      const tlsPort = new URL(tls.url).port;
      const plainPort = new URL(plain.url).port;
      const viaProxy = `http://127.0.0.1:${proxy.port}`;
      const cases: Array<[string, string, Record<string, string>, 0 | 2]> = [
        ['host name', tls.url, { NO_PROXY: 'localhost' }, 0],
        ['.domain suffix', tls.url, { NO_PROXY: '.localhost' }, 0],
        ['*.domain', tls.url, { NO_PROXY: 'example.com, *.localhost' }, 0],
        ['upper case host', tls.url, { NO_PROXY: 'LOCALHOST' }, 0],
        ['host:port', tls.url, { NO_PROXY: `localhost:${tlsPort}` }, 0],
        ['host:other port', tls.url, { NO_PROXY: 'localhost:1' }, 2],
        ['*', tls.url, { no_proxy: '*' }, 0],
        ['lower-case variable', tls.url, { no_proxy: 'localhost' }, 0],
        ['another domain', tls.url, { NO_PROXY: 'example.com,.corp.example' }, 2],
        ['IP address', plain.url, { NO_PROXY: '127.0.0.1' }, 0],
        ['IP:port', plain.url, { NO_PROXY: `127.0.0.1:${plainPort}` }, 0],
        ['CIDR', plain.url, { NO_PROXY: '10.0.0.0/8 127.0.0.0/8' }, 0],
        ['a suffix is not an IP', plain.url, { NO_PROXY: '.0.0.1' }, 2],
      ];
      for (const [name, url, extra, code] of cases) {
        const r = await runCli([...SEND, '--ca-file', certs.caFile, '--verbose'], { env: env(url, { HTTPS_PROXY: viaProxy, HTTP_PROXY: viaProxy, ...extra }) });
        assert.equal(r.code, code, `${name}: ${r.stderr}`);
        if (code === 0) assert.match(r.stderr, /route: no proxy: (NO_PROXY|no_proxy) entry "[^"]+" matches/, name);
        else assert.match(r.stderr, /route: proxy http:\/\/127\.0\.0\.1/, name);
      }
    });

    test('send-bulk of 3,000 rows: good credentials send every row once through the proxy', async () => {
      tls.requests.length = 0;
      const file = numbersCsv(3000);
      // The CA from MSGR_CA_FILE this time: send-bulk resolves it as send does.
      const r = await runCli(['send-bulk', file, '--from', 'Acme', '--text', 'hi', '--account', 'ACME01', '--json'], { env: env(tls.url, { HTTPS_PROXY: good(), MSGR_CA_FILE: certs.caFile }), timeoutMs: 60_000 });
      assert.equal(r.code, 0, r.stderr);
      assertExactlyOnce(tls, 3000);
    });

    test('send-bulk with wrong credentials stops at once (exit 2) with nothing in doubt; --resume with the right ones sends every row once', async () => {
      tls.requests.length = 0;
      const config = tempDir();
      const file = numbersCsv(3000);
      const args = ['send-bulk', file, '--from', 'Acme', '--text', 'hi', '--account', 'ACME01', '--ca-file', certs.caFile, '--json'];
      const bad = await runCli(args, { env: env(tls.url, { HTTPS_PROXY: `http://ops:bad@127.0.0.1:${proxy.port}` }, config), timeoutMs: 60_000 });
      assert.equal(bad.code, 2, bad.stderr);
      assert.doesNotMatch(bad.stderr, /in a row/, 'a refusal only a fix can change stops the run at the first batch');
      const summary = JSON.parse(bad.stdout) as { inDoubt: number; notSent: number; accepted: number };
      assert.deepEqual([summary.accepted, summary.inDoubt, summary.notSent], [0, 0, 3000]);
      assert.match(bad.stderr, /refused the credentials of user "ops"/);
      assert.match(bad.stderr, /hint: Put the proxy's user and password in HTTPS_PROXY as http:\/\/USER:PASSWORD@/);
      assert.match(bad.stderr, /Resume with: msgr send-bulk .* --resume/);
      assert.doesNotMatch(bad.stderr, /in doubt|resend-in-doubt/);
      assert.equal(tls.requests.length, 0);
      const runs = join(config, 'runs');
      const journal = readFileSync(join(runs, readdirSync(runs)[0]!, 'journal.jsonl'), 'utf8');
      assert.doesNotMatch(journal, /in-doubt/);
      assert.ok(!journal.includes(PASSWORD) && !journal.includes(':bad@'), 'a proxy credential in the journal');

      const resumed = await runCli([...args, '--resume'], { env: env(tls.url, { HTTPS_PROXY: good() }, config), timeoutMs: 60_000 });
      assert.equal(resumed.code, 0, resumed.stderr);
      const done = JSON.parse(resumed.stdout) as { inDoubt: number; accepted: number };
      assert.deepEqual([done.accepted, done.inDoubt], [3000, 0]);
      assertExactlyOnce(tls, 3000);
      assertNoSecrets(resumed);
    });
  });

  describe('the proxy down or unresolvable', { concurrency: false }, () => {
    const { tls } = apiServers();

    test('a proxy that refuses connections: exit 5, names the proxy and its variable', async () => {
      const port = await closedPort();
      const r = await runCli([...SEND, '--ca-file', certs.caFile], { env: env(tls.url, { HTTPS_PROXY: `http://ops:${PASSWORD}@127.0.0.1:${port}` }), timeoutMs: 40_000 });
      assert.equal(r.code, 5, r.stderr);
      assert.match(r.stderr, new RegExp(`not sent: cannot reach the proxy http://127\\.0\\.0\\.1:${port} \\(from HTTPS_PROXY\\): connection refused \\(after 3 attempts\\)`));
      assertNoSecrets(r);
    });

    test('a proxy host that does not resolve: exit 5, names the host', async () => {
      const r = await runCli([...SEND, '--ca-file', certs.caFile], { env: env(tls.url, { HTTPS_PROXY: 'http://proxy.invalid:3128' }), timeoutMs: 40_000 });
      assert.equal(r.code, 5, r.stderr);
      assert.match(r.stderr, /cannot reach the proxy http:\/\/proxy\.invalid:3128 \(from HTTPS_PROXY\): its host name "proxy\.invalid" was not found/);
    });
  });

  describe('through the scriptable proxy', { concurrency: false }, () => {
    const { tls, plain } = apiServers();

    let proxy: TestProxy;
    before(async () => {
      proxy = await startProxy();
    });
    after(async () => {
      await proxy.close();
    });

    test('407 with Proxy-Authenticate: Basic: exit 2 with the percent-encoding hint', async () => {
      proxy.script = { auth: { user: 'ops', password: PASSWORD } };
      const r = await runCli([...SEND, '--ca-file', certs.caFile], { env: env(tls.url, { HTTPS_PROXY: proxy.url }) });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /asks for credentials, and none were given \(HTTP 407/);
      assert.match(r.stderr, /%40/);
    });

    test('407 asking for Negotiate: the hint says msgr sends Basic only', async () => {
      proxy.script = { auth: { user: 'ops', password: PASSWORD }, authenticate: 'Negotiate' };
      const r = await runCli([...SEND, '--ca-file', certs.caFile], { env: env(tls.url, { HTTPS_PROXY: proxy.url }) });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /asks for Negotiate authentication; msgr sends Basic only/);
    });

    test('credentials holding @ : % work percent-encoded, and never show', async () => {
      const password = 'p@ss:w%rd';
      proxy.script = { auth: { user: 'ops@corp', password } };
      proxy.credentials.length = 0;
      tls.requests.length = 0;
      const url = `http://ops%40corp:${encodeURIComponent(password)}@127.0.0.1:${proxy.port}`;
      const r = await runCli([...SEND, '--ca-file', certs.caFile, '--verbose'], { env: env(tls.url, { HTTPS_PROXY: url }) });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(proxy.credentials, [`ops@corp:${password}`]);
      assert.equal(tls.requests.length, 1);
      assert.equal(tls.requests[0]!.headers['proxy-authorization'], undefined, 'proxy credentials reached the API');
      assert.match(r.stderr, /route: proxy http:\/\/ops%40corp:\*\*\*@127\.0\.0\.1/);
      assertNoSecrets(r, password, encodeURIComponent(password));
    });

    test('a bare % in the password is a usage error naming the variable, without its value', async () => {
      const r = await runCli([...SEND, '--ca-file', certs.caFile], { env: env(tls.url, { HTTPS_PROXY: `http://ops:50%zz${PASSWORD}@127.0.0.1:${proxy.port}` }) });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /HTTPS_PROXY: the proxy password has a "%" that does not start a percent-encoded character/);
      assertNoSecrets(r);
    });

    test('a password with a / or ? not percent-encoded (4711/pw) is a usage error, without dialling or showing the part read as host and port', async () => {
      for (const password of ['4711/pw', '4711?pw']) {
        proxy.connects.length = 0;
        const r = await runCli([...SEND, '--ca-file', certs.caFile, '--verbose'], { env: env(tls.url, { HTTPS_PROXY: `http://ops:${password}@127.0.0.1:${proxy.port}` }) });
        assert.equal(r.code, 2, r.stderr);
        assert.match(r.stderr, /^error: HTTPS_PROXY: not a proxy URL \(its value is not shown: it may hold a password\)$/m);
        assert.doesNotMatch(r.stdout + r.stderr, /4711|retrying/);
        assert.equal(proxy.connects.length, 0);
      }
    });

    test('HTTPS_PROXY in quotes (a docker --env-file line keeps them): a usage error saying so, nothing dialled or shown', async () => {
      proxy.connects.length = 0;
      const r = await runCli([...SEND, '--ca-file', certs.caFile], { env: env(tls.url, { HTTPS_PROXY: `"http://ops:${PASSWORD}@127.0.0.1:${proxy.port}"` }) });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /^error: HTTPS_PROXY: the proxy URL is in quotes \(its value is not shown: it may hold a password\)$/m);
      assert.match(r.stderr, /^hint: Remove the quotes/m);
      assert.doesNotMatch(r.stderr, /retrying/);
      assert.equal(proxy.connects.length, 0);
      assertNoSecrets(r);
    });

    test('403 (policy) exits 2; 502 (upstream) exits 5 after retries; a drop before the tunnel exits 5', async () => {
      const e = env(tls.url, { HTTPS_PROXY: proxy.url });
      tls.requests.length = 0;
      proxy.script = { status: 403 };
      const forbidden = await runCli([...SEND, '--ca-file', certs.caFile], { env: e });
      assert.equal(forbidden.code, 2, forbidden.stderr);
      assert.match(forbidden.stderr, /refused the tunnel to localhost:\d+ \(HTTP 403 Scripted\): its policy does not allow it/);
      proxy.script = { status: 502 };
      proxy.connects.length = 0;
      const upstream = await runCli([...SEND, '--ca-file', certs.caFile], { env: e, timeoutMs: 40_000 });
      assert.equal(upstream.code, 5, upstream.stderr);
      assert.equal(proxy.connects.length, 3, 'retried as a connection failure (briefly: docs/contract.md: "Retries")');
      proxy.script = { dropBeforeTunnel: true };
      const dropped = await runCli([...SEND, '--ca-file', certs.caFile], { env: e, timeoutMs: 40_000 });
      assert.equal(dropped.code, 5, dropped.stderr);
      assert.match(dropped.stderr, /closed the connection before opening the tunnel/);
      assert.equal(tls.requests.length, 0);
    });

    test('an https:// proxy: TLS to the proxy, then TLS to the API inside the tunnel', async () => {
      const secure = await startProxy({ auth: { user: 'ops', password: PASSWORD } }, { tls: { key: certs.key, cert: certs.cert } });
      try {
        tls.requests.length = 0;
        const url = `https://ops:${PASSWORD}@localhost:${secure.port}`;
        const r = await runCli([...SEND, '--ca-file', certs.caFile, '--verbose'], { env: env(tls.url, { HTTPS_PROXY: url }) });
        assert.equal(r.code, 0, r.stderr);
        assert.deepEqual(secure.credentials, [`ops:${PASSWORD}`]);
        assert.equal(secure.tunnels.length, 1);
        assert.equal(tls.requests.length, 1);
        assert.match(r.stderr, new RegExp(`route: proxy https://ops:\\*\\*\\*@localhost:${secure.port} \\(from HTTPS_PROXY\\)`));
        assertNoSecrets(r);
      } finally {
        await secure.close();
      }
    });

    test('https:// in HTTPS_PROXY for a proxy that takes plain HTTP: exit 2 at once (not retried), the hint says to write http://, nothing in doubt in send-bulk', async () => {
      proxy.script = {};
      proxy.connects.length = 0;
      tls.requests.length = 0;
      const url = `https://ops:${PASSWORD}@127.0.0.1:${proxy.port}`;
      const r = await runCli([...SEND, '--ca-file', certs.caFile, '--json'], { env: env(tls.url, { HTTPS_PROXY: url }) });
      assert.equal(r.code, 2, r.stderr);
      const e = (JSON.parse(r.stdout) as { error: { message: string; hint: string; exitCode: number } }).error;
      assert.equal(e.message, `not sent: cannot reach the proxy https://127.0.0.1:${proxy.port} (from HTTPS_PROXY): TLS with the proxy failed (ERR_SSL_WRONG_VERSION_NUMBER)`);
      assert.match(e.hint, new RegExp(`write HTTPS_PROXY=http://127\\.0\\.0\\.1:${proxy.port} \\(with its user and password, if any\\)`));
      assert.doesNotMatch(r.stderr, /retrying/);
      assertNoSecrets(r);
      const csv = numbersCsv(30);
      const bulk = await runCli(['send-bulk', csv, '--from', 'Acme', '--text', 'hi', '--account', 'ACME01', '--ca-file', certs.caFile, '--batch-size', '10', '--json'], { env: env(tls.url, { HTTPS_PROXY: url }) });
      assert.equal(bulk.code, 2, bulk.stderr);
      const summary = JSON.parse(bulk.stdout) as { inDoubt: number; notSent: number; exitCode: number };
      assert.deepEqual([summary.inDoubt, summary.notSent, summary.exitCode], [0, 30, 2]);
      assert.match(bulk.stderr, /write HTTPS_PROXY=http:\/\//);
      assertNoSecrets(bulk);
      assert.equal(proxy.connects.length, 0);
      assert.equal(tls.requests.length, 0);
      // An https:// proxy whose certificate is not trusted: not retried either, and the hint is how to trust its root.
      const secure = await startProxy({}, { tls: { key: certs.key, cert: certs.cert } });
      try {
        const untrusted = await runCli(SEND, { env: env(tls.url, { HTTPS_PROXY: `https://localhost:${secure.port}` }) });
        assert.equal(untrusted.code, 5, untrusted.stderr);
        assert.match(untrusted.stderr, /cannot reach the proxy https:\/\/localhost:\d+ \(from HTTPS_PROXY\): TLS with the proxy failed \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/);
        assert.match(untrusted.stderr, /^hint: .*--ca-file ROOT\.pem/m);
        assert.doesNotMatch(untrusted.stderr, /retrying/);
        assert.equal(secure.connects.length, 0);
      } finally {
        await secure.close();
      }
    });

    test('dropped after the tunnel is up and the request forwarded: still "outcome unknown" (exit 6)', async () => {
      proxy.script = { dropAfterForward: true };
      plain.requests.length = 0;
      plain.fallback = { status: 202, body: { id: 'x' }, delayMs: 2000 };
      try {
        const r = await runCli(SEND, { env: env(plain.url, { HTTP_PROXY: proxy.url }) });
        assert.equal(r.code, 6, r.stderr);
        assert.match(r.stderr, /outcome unknown: .*through the proxy http:\/\/127\.0\.0\.1/);
        assert.match(r.stderr, /Check whether the message arrived/);
        assert.equal(plain.requests.length, 1, 'the request reached the API');
      } finally {
        plain.fallback = { status: 202, body: { id: 'msg-1', status: 'accepted' } };
      }
    });
  });
});

function numbersCsv(n: number): string {
  const path = join(tempDir('msgr-proxy-csv-'), 'in.csv');
  const rows = Array.from({ length: n }, (_, i) => `+4479111${String(i).padStart(5, '0')},N${i}`);
  writeFileSync(path, `msisdn,name\n${rows.join('\n')}\n`);
  return path;
}

function assertExactlyOnce(server: TestServer, n: number): void {
  const got = server.requests.flatMap((r) => ((r.json as { recipients?: Array<{ msisdn: string }> }).recipients ?? []).map((x) => x.msisdn));
  assert.equal(new Set(got).size, n, 'distinct recipients at the server');
  assert.equal(got.length, n, 'a recipient arrived twice');
}
