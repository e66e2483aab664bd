// A setting error stops at its first answer (docs/contract.md: "Exit codes", "Retries"): a 404 or 405 from
// the URL msgr built stops send-bulk with its rows unsent (exit 2), a base URL ending in /v2 is
// refused before anything is read or sent, and a connection that was never made stops a run
// within seconds with exit 5, nothing in doubt, and the command that goes on.
// In-process (test/support/in-process.ts): msgr through main() with a Context of the test's.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, offeredCommand, tempDir, type RunOptions, type RunResult } from '../../support/cli.js';
import { runInProcess } from '../../support/in-process.js';
import { startTestServer, useTestServer, type ReceivedRequest, type TestServer } from '../../support/test-server.js';

const KEY = 'sk_test_settings_5678';
/** Generous for a loaded 2-core machine; the run took 88 s. */
const FAST_MS = 20_000;

// The API answers at /v2/messages only, as a real deployment would; any other path is a 404.
const server = useTestServer({
  reset: (s) => {
    s.answer = (req) => (req.url === '/v2/messages' ? { status: 202, body: { id: 'msg-1' } } : { status: 404, body: { title: 'Not Found' } });
  },
});

const ROWS = 200;
function campaign(rows = ROWS): string {
  const file = join(tempDir(), 'list.csv');
  writeFileSync(file, `msisdn,name\n${Array.from({ length: rows }, (_, i) => `+447911${String(100000 + i)},N${i}`).join('\n')}\n`);
  return file;
}

const MESSAGE = ['--from', 'Acme', '--text', 'Your appointment is tomorrow', '--account', 'ACME01'];

async function timed(args: string[], options: RunOptions): Promise<RunResult & { ms: number }> {
  const t0 = performance.now();
  const r = await runInProcess(args, options);
  return { ...r, ms: performance.now() - t0 };
}

function recipients(requests: readonly ReceivedRequest[]): string[] {
  return requests.flatMap((q) => ((q.json as { recipients?: Array<{ msisdn: string }> } | undefined)?.recipients ?? []).map((r) => r.msisdn));
}

function assertEachOnce(numbers: readonly string[], rows = ROWS): void {
  assert.equal(numbers.length, rows, 'every row sent');
  assert.equal(new Set(numbers).size, rows, 'no row sent twice');
}

interface BulkSummary {
  exitCode: number;
  stopped: string | null;
  accepted: number;
  rejected: number;
  notSent: number;
  inDoubt: number;
  inDoubtBatches: unknown[];
  resume: string | null;
}

describe('404 and 405 from the messages endpoint stop send-bulk at its first answer', () => {
  test('a 404 (a base URL with a wrong path, from --base-url): exit 2, one request, nothing rejected or in doubt; the hint names the URL msgr built, and its command sends each row once', async () => {
    const file = campaign();
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: KEY });
    const r = await timed(['send-bulk', file, ...MESSAGE, '--base-url', `${server.url}/eu`, '--batch-size', '10', '--concurrency', '1', '--json'], { env });
    assert.equal(r.code, 2, r.stderr);
    assert.ok(r.ms < FAST_MS, `${r.ms} ms`);
    assert.deepEqual(server.requests.map((q) => q.url), ['/eu/v2/messages']);
    const doc = JSON.parse(r.stdout) as BulkSummary;
    assert.deepEqual([doc.exitCode, doc.stopped, doc.accepted, doc.rejected, doc.notSent, doc.inDoubt, doc.inDoubtBatches.length], [2, 'config', 0, 0, ROWS, 0, 0]);
    assert.match(r.stderr, new RegExp(`^error: not sent: HTTP 404: Not Found; the run stopped with 0 of ${ROWS} recipients accepted$`, 'm'));
    const port = new URL(server.url).port;
    assert.ok(
      r.stderr.includes(
        `hint: msgr sent POST http://127.0.0.1:${port}/eu/v2/messages, built as {base_url}/v2/messages from the base URL http://127.0.0.1:${port}/eu (flag --base-url), and got HTTP 404 (nothing there): the API has this one endpoint, so check the base URL`,
      ),
      r.stderr,
    );
    assert.match(r.stderr, /Once the base URL is right, send the rows with: msgr send-bulk .* --base-url URL .*--restart \(this run had none accepted, so each row is sent once\)/);

    server.requests.length = 0;
    const fixed = await runInProcess(offeredCommand(r.stderr, 'send the rows with: ').map((a) => (a === 'URL' ? server.url : a)), { env });
    assert.equal(fixed.code, 0, fixed.stderr);
    assert.ok(server.requests.every((q) => q.url === '/v2/messages'));
    assertEachOnce(recipients(server.requests));
  });

  test('a 405 (the base URL from MSGR_BASE_URL), at the default concurrency: no more requests than were in flight, exit 2; the hint\'s command with the variable fixed sends each row once', async () => {
    server.answer = (req) => (req.url === '/v2/messages' ? { status: 202, body: { id: 'msg-1' } } : { status: 405, headers: { allow: 'GET' }, body: 'Method Not Allowed' });
    const file = campaign();
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: KEY, MSGR_BASE_URL: `${server.url}/static/` });
    const r = await timed(['send-bulk', file, ...MESSAGE, '--batch-size', '10'], { env });
    assert.equal(r.code, 2, r.stderr);
    assert.ok(r.ms < FAST_MS, `${r.ms} ms`);
    // The batches already in flight (4 by default) when the first answer came, and no more.
    assert.ok(server.requests.length >= 1 && server.requests.length <= 4, String(server.requests.length));
    assert.match(r.stderr, /^error: not sent: HTTP 405: Method Not Allowed; the run stopped with 0 of 200 recipients accepted$/m);
    assert.match(r.stderr, /msgr sent POST http:\/\/127\.0\.0\.1:\d+\/static\/v2\/messages, built as \{base_url\}\/v2\/messages from the base URL http:\/\/127\.0\.0\.1:\d+\/static\/ \(env MSGR_BASE_URL\), and got HTTP 405 \(it takes no POST there\): the API has this one endpoint, so check the base URL/);
    assert.match(r.stderr, / {2}not accepted: 200 not sent\n/);

    server.requests.length = 0;
    const offered = offeredCommand(r.stderr, 'send the rows with: MSGR_BASE_URL=URL ');
    const fixed = await runInProcess(offered, { env: { ...env, MSGR_BASE_URL: server.url } });
    assert.equal(fixed.code, 0, fixed.stderr);
    assertEachOnce(recipients(server.requests));
  });

  test('msgr send: a 404 is exit 4 (a rejected request, as the contract has it), the hint naming the URL msgr built; --json has it too', async () => {
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: KEY, MSGR_BASE_URL: `${server.url}/eu` });
    const r = await runInProcess(['send', '--to', '+447911123456', ...MESSAGE, '--json'], { env });
    assert.equal(r.code, 4, r.stderr);
    const doc = JSON.parse(r.stdout) as { error: { exitCode: number; status: number; hint: string } };
    assert.equal(doc.error.exitCode, 4);
    assert.equal(doc.error.status, 404);
    assert.match(doc.error.hint, /^msgr sent POST http:\/\/127\.0\.0\.1:\d+\/eu\/v2\/messages, built as \{base_url\}\/v2\/messages from the base URL http:\/\/127\.0\.0\.1:\d+\/eu \(env MSGR_BASE_URL\), and got HTTP 404 \(nothing there\): the API has this one endpoint, so check the base URL .*Nothing was sent\.$/);
    assert.equal(server.requests.length, 1);
  });

  test('msgr api: a 405 names the URL it built from the base URL and the path', async () => {
    server.answer = () => ({ status: 405, body: { title: 'Method Not Allowed' } });
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: KEY, MSGR_ACCOUNT_REFERENCE: 'ACME01' });
    const r = await runInProcess(['api', 'DELETE', '/v2/messages/m-1', '--base-url', server.url, '--yes'], { env });
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stderr, /^hint: msgr sent DELETE http:\/\/127\.0\.0\.1:\d+\/v2\/messages\/m-1, built as \{base_url\}\{path\} from the base URL http:\/\/127\.0\.0\.1:\d+ \(flag --base-url\), and got HTTP 405 \(it takes no DELETE there\): check the path and the base URL/m);
  });
});

describe('a base URL that already ends in /v2 is refused, whatever its source, with the command that fixes it', () => {
  test('--base-url …/v2 on send-bulk reading stdin: exit 2 before anything is read or sent, no journal; the command offered sends', async () => {
    const config = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: config, MSGR_API_KEY: KEY });
    const csv = readFileSync(campaign(20), 'utf8');
    const r = await runInProcess(['send-bulk', '-', ...MESSAGE, '--base-url', `${server.url}/v2`, '--json'], { env, input: csv });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(server.requests.length, 0);
    assert.deepEqual(readdirSync(config).filter((n) => n !== 'config.json'), [], 'no run folder, journal or spool');
    const doc = JSON.parse(r.stdout) as { error: { message: string; hint: string; exitCode: number } };
    assert.equal(doc.error.exitCode, 2);
    assert.equal(doc.error.message, `flag --base-url: the base URL ${server.url}/v2 ends in /v2, which msgr appends itself: it would post to ${server.url}/v2/v2/messages`);
    assert.match(doc.error.hint, new RegExp(`^Run it as: msgr send-bulk - .*--base-url http://127\\.0\\.0\\.1:\\d+ --json$`));
    const fixed = await runInProcess(offeredCommand(doc.error.hint, 'Run it as: '), { env, input: csv });
    assert.equal(fixed.code, 0, fixed.stderr);
    assertEachOnce(recipients(server.requests), 20);
  });

  test('/v2/, /v2/messages, in MSGR_BASE_URL: send, send --dry-run, api and doctor refuse it (exit 2), saying how to set the variable', async () => {
    for (const suffix of ['/v2/', '/v2/messages', '/V2']) {
      const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: KEY, MSGR_ACCOUNT_REFERENCE: 'ACME01', MSGR_BASE_URL: `${server.url}${suffix}` });
      const send = await runInProcess(['send', '--to', '+447911123456', '--from', 'Acme', '--text', 'hi'], { env });
      assert.equal(send.code, 2, send.stderr);
      assert.match(send.stderr, new RegExp(`^error: env MSGR_BASE_URL: the base URL http://127\\.0\\.0\\.1:\\d+${suffix} ends in ${suffix.replace(/\/$/, '')}, which msgr appends itself`, 'm'));
      assert.match(send.stderr, /^hint: Set MSGR_BASE_URL=http:\/\/127\.0\.0\.1:\d+ where it is set \(or run: MSGR_BASE_URL=http:\/\/127\.0\.0\.1:\d+ msgr send --to \+447911123456 --from Acme --text hi\)$/m);
      for (const args of [['send', '--to', '+447911123456', '--from', 'Acme', '--text', 'hi', '--dry-run'], ['api', '/v2/messages', '-f', 'a=b', '--yes'], ['doctor']]) {
        const r = await runInProcess(args, { env });
        assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stdout + r.stderr, /which msgr appends itself/, args.join(' '));
      }
    }
    assert.equal(server.requests.length, 0);
  });

  test('profile add and set refuse to save it (exit 2, nothing saved), offering the command that saves it right; a profile saved with it before is refused with `msgr profile set`', async () => {
    const config = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: config });
    const add = await runInProcess(['profile', 'add', 'prod', '--api-key-stdin', '--account', 'ACME01', '--base-url', `${server.url}/v2`], { env, input: `${KEY}\n` });
    assert.equal(add.code, 2, add.stderr);
    assert.ok(!existsSync(join(config, 'config.json')) || !readFileSync(join(config, 'config.json'), 'utf8').includes('prod'), 'nothing saved');
    const addFixed = await runInProcess(offeredCommand(add.stderr, 'Save it without /v2: '), { env, input: `${KEY}\n` });
    assert.equal(addFixed.code, 0, addFixed.stderr);

    const set = await runInProcess(['profile', 'set', 'prod', 'base-url', `${server.url}/v2/messages`], { env });
    assert.equal(set.code, 2, set.stderr);
    assert.match(set.stderr, new RegExp(`^hint: Save it without /v2/messages: msgr profile set prod base-url http://127\\.0\\.0\\.1:\\d+$`, 'm'));
    const shown = JSON.parse((await runInProcess(['profile', 'show', '--json'], { env })).stdout) as { baseUrl: { value: string } };
    assert.equal(shown.baseUrl.value, server.url, 'the profile kept its base URL');

    // A profile written by an earlier msgr, which took such a base URL.
    const file = join(config, 'config.json');
    const data = JSON.parse(readFileSync(file, 'utf8')) as { profiles: Record<string, { baseUrl: string }> };
    (data.profiles.prod as { baseUrl: string }).baseUrl = `${server.url}/v2`;
    writeFileSync(file, JSON.stringify(data));
    const bulk = await runInProcess(['send-bulk', campaign(20), '--from', 'Acme', '--text', 'hi', '--yes'], { env });
    assert.equal(bulk.code, 2, bulk.stderr);
    assert.match(bulk.stderr, /^error: profile prod: the base URL http:\/\/127\.0\.0\.1:\d+\/v2 ends in \/v2/m);
    const fix = offeredCommand(bulk.stderr, 'Fix the profile: ');
    assert.equal((await runInProcess(fix, { env })).code, 0);
    const again = await runInProcess(['send-bulk', campaign(20), '--from', 'Acme', '--text', 'hi', '--yes'], { env });
    assert.equal(again.code, 0, again.stderr);
    assertEachOnce(recipients(server.requests), 20);
  });
});

// Each test here has servers, a port and a state folder of its own, and waits out msgr's backoff
// between connection attempts (docs/contract.md: "Retries"): run side by side, the file waits
// for the longest of them rather than for their sum.
describe('a connection that was never made is "not sent": the run stops within seconds, exit 5, nothing in doubt', { concurrency: true }, () => {
  test('send-bulk to a closed port (a cron line with -q --json): exit 5 fast, the resume command; once the API listens there, the resume sends each row once', async () => {
    const api = await startTestServer();
    const port = Number(new URL(api.url).port);
    await api.close();
    const file = campaign();
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: KEY });
    const args = ['send-bulk', file, ...MESSAGE, '--base-url', `http://127.0.0.1:${port}`, '--batch-size', '10', '--yes'];
    const cron = await timed([...args, '-q', '--json'], { env });
    assert.equal(cron.code, 5, cron.stderr);
    assert.ok(cron.ms < FAST_MS, `${cron.ms} ms`);
    const doc = JSON.parse(cron.stdout) as BulkSummary;
    assert.deepEqual([doc.exitCode, doc.stopped, doc.accepted, doc.notSent, doc.inDoubt, doc.inDoubtBatches.length], [5, 'unreachable', 0, ROWS, 0, 0]);
    assert.match(doc.resume ?? '', / --resume /);
    // -q: the error and its hint, nothing else.
    assert.match(cron.stderr, new RegExp(`^error: not sent: cannot reach 127\\.0\\.0\\.1:${port}: connection refused; the run stopped with 0 of ${ROWS} recipients accepted, none in doubt\\nhint: Nothing accepts connections at 127\\.0\\.0\\.1:${port}: check the base URL's host and port`));
    assert.match(cron.stderr, /^ {6}Once the API can be reached, resume with: msgr send-bulk .* --resume /m);
    assert.doesNotMatch(cron.stderr, /in a row|check first|trying again/);

    // At a terminal (or in a log without -q), the retry is said rather than waited out in silence.
    const loud = await timed([...args.filter((a) => a !== '--yes'), '--restart', '--yes'], { env });
    assert.equal(loud.code, 5, loud.stderr);
    assert.match(loud.stderr, new RegExp(`^cannot reach 127\\.0\\.0\\.1:${port}: connection refused; trying again in \\d+\\.\\d s$`, 'm'));

    const back = await startTestServer({ port });
    try {
      const resumed = await runInProcess([...offeredCommand(loud.stderr, 'resume with: '), '--json'], { env });
      assert.equal(resumed.code, 0, resumed.stderr);
      assertEachOnce(recipients(back.requests));
    } finally {
      await back.close();
    }
  });

  test('msgr send to a closed port: exit 5 fast, naming host and port', async () => {
    const api = await startTestServer();
    const port = new URL(api.url).port;
    await api.close();
    const r = await timed(['send', '--to', '+447911123456', ...MESSAGE, '--base-url', `http://localhost:${port}`], { env: cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: KEY }) });
    assert.equal(r.code, 5, r.stderr);
    assert.ok(r.ms < FAST_MS, `${r.ms} ms`);
    assert.match(r.stderr, new RegExp(`^retrying in \\d+\\.\\d s \\(cannot reach localhost:${port}: connection refused\\)$`, 'm'));
    assert.match(r.stderr, new RegExp(`^error: not sent: cannot reach localhost:${port}: connection refused \\(after 3 attempts\\)$`, 'm'));
  });

  test('a host name that does not exist is not retried: send and send-bulk exit 5 at once, naming the host and port', async () => {
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: KEY });
    const base = 'https://api.msgr-test.invalid';
    const send = await timed(['send', '--to', '+447911123456', ...MESSAGE, '--base-url', base], { env });
    assert.equal(send.code, 5, send.stderr);
    assert.ok(send.ms < FAST_MS, `${send.ms} ms`);
    assert.doesNotMatch(send.stderr, /retrying/);
    assert.match(send.stderr, /^error: not sent: cannot reach api\.msgr-test\.invalid:443: host name not found \(DNS\)$/m);
    // Where to fix it: the flag it came from, not `msgr profile show` (no profile gave it).
    assert.match(send.stderr, /^hint: The host name api\.msgr-test\.invalid does not exist: check the base URL for a typo \(it came from flag --base-url\);/m);
    assert.doesNotMatch(send.stderr, /profile show/);
    const fromEnv = await timed(['send', '--to', '+447911123456', ...MESSAGE], { env: { ...env, MSGR_BASE_URL: base } });
    assert.match(fromEnv.stderr, /^hint: The host name api\.msgr-test\.invalid does not exist: check the base URL for a typo \(it came from env MSGR_BASE_URL\);/m);

    const bulk = await timed(['send-bulk', campaign(), ...MESSAGE, '--base-url', base, '--batch-size', '10', '--yes', '--json', '--verbose'], { env });
    assert.equal(bulk.code, 5, bulk.stderr);
    assert.ok(bulk.ms < FAST_MS, `${bulk.ms} ms`);
    const doc = JSON.parse(bulk.stdout) as BulkSummary;
    assert.deepEqual([doc.stopped, doc.notSent, doc.inDoubt], ['unreachable', ROWS, 0]);
    // One lookup per batch in flight, none again.
    const lookups = bulk.stderr.split('\n').filter((l) => l.includes('< network error ENOTFOUND'));
    assert.ok(lookups.length >= 1 && lookups.length <= 4, lookups.join('\n'));
    assert.doesNotMatch(bulk.stderr, /retrying a batch|trying again/);
    assert.match(bulk.stderr, /check the base URL for a typo \(it came from flag --base-url\)/);
  });

  test('the API stopped mid-campaign: the run stops at once with the rows accepted so far, exit 5, nothing in doubt; the resume sends each row once', async () => {
    const api: TestServer = await startTestServer();
    const port = Number(new URL(api.url).port);
    let answered = 0;
    api.answer = () => {
      answered++;
      // The fifth answer is the last: the API shuts down (its connection closed after it).
      if (answered === 5) {
        api.stopListening();
        return { status: 202, headers: { connection: 'close' }, body: { id: `msg-${answered}` } };
      }
      return { status: 202, body: { id: `msg-${answered}` } };
    };
    const env = cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_API_KEY: KEY });
    const first = await timed(['send-bulk', campaign(), ...MESSAGE, '--base-url', api.url, '--batch-size', '10', '--concurrency', '1', '--json'], { env });
    await api.close();
    assert.equal(first.code, 5, first.stderr);
    assert.ok(first.ms < FAST_MS, `${first.ms} ms`);
    const doc = JSON.parse(first.stdout) as BulkSummary;
    assert.deepEqual([doc.exitCode, doc.stopped, doc.accepted, doc.notSent, doc.inDoubt], [5, 'unreachable', 50, 150, 0]);
    assert.match(first.stderr, /the run stopped with 50 of 200 recipients accepted, none in doubt/);

    const back = await startTestServer({ port });
    try {
      const resumed = await runInProcess([...(doc.resume ?? '').split(' ').slice(1), '--json'], { env });
      assert.equal(resumed.code, 0, resumed.stderr);
      assertEachOnce([...recipients(api.requests), ...recipients(back.requests)]);
    } finally {
      await back.close();
    }
  });
});
