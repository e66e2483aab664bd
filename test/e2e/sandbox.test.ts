// `msgr sandbox` as users run it: the built CLI in a child process, the URL read from stdout,
// real requests, then Ctrl-C (SIGINT).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, cleanEnv, msgrCommand, runCli, tempDir } from '../support/cli.js';

const KEY = 'e2e-sandbox-secret-9f8e7d';

interface Sandbox {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stderr: () => string;
  stdout: () => string;
  exit: Promise<number | null>;
}

function startCli(args: string[], env: Record<string, string> = {}): Promise<Sandbox> {
  return new Promise((resolve, reject) => {
    const child = spawn(...msgrCommand(['sandbox', '--port', '0', ...args]), {
      env: cleanEnv({ MSGR_CONFIG_DIR: tempDir(), ...env }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const exit = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no URL on stdout in time; stderr: ${stderr}`));
    }, 10_000);
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const nl = stdout.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve({ child, url: stdout.slice(0, nl), stderr: () => stderr, stdout: () => stdout, exit });
      }
    });
    void exit.then((code) => {
      clearTimeout(timer);
      reject(new Error(`sandbox exited (${code}) before printing its URL; stderr: ${stderr}`));
    });
  });
}

async function post(url: string, body: unknown, key: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${url}/v2/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const request = {
  accountReference: 'EX0000000',
  channel: 'RCS',
  from: 'Acme',
  body: { text: 'Hello' },
  recipients: [{ msisdn: '+447400900123', variables: { name: 'Ann' } }, { msisdn: '+447400900124' }],
};

test('msgr sandbox: URL on stdout, one stderr line per request, record file, clean stop on SIGINT', async () => {
  const record = join(tempDir(), 'sent.jsonl');
  const sbx = await startCli(['--api-key', KEY, '--account', 'EX0000000', '--record', record]);
  assert.match(sbx.url, /^http:\/\/127\.0\.0\.1:\d+$/);

  const ok = await post(sbx.url, request, KEY);
  assert.equal(ok.status, 202);
  const messages = ok.json.messages as Array<{ channel: string; fallback: boolean }>;
  assert.deepEqual(messages.map((m) => [m.channel, m.fallback]), [['SMS', true], ['RCS', false]]);
  assert.equal((await post(sbx.url, request, 'wrong-key-123456')).status, 401);
  assert.equal((await post(sbx.url, { ...request, accountReference: 'EX1111111' }, KEY)).status, 403);
  const bad = await post(sbx.url, { ...request, recipients: [{ msisdn: '+44 7700' }] }, KEY);
  assert.equal(bad.status, 422);

  // The record line is there as soon as the 202 came back.
  const lines = readFileSync(record, 'utf8').split('\n').filter(Boolean);
  assert.equal(lines.length, 1);
  assert.deepEqual((JSON.parse(lines[0] ?? '') as { request: unknown }).request, request);

  sbx.child.kill('SIGINT');
  const code = await sbx.exit;
  const stderr = sbx.stderr();
  // main.ts reports a run that ended on a signal as 130 ("interrupted"); a graceful stop is
  // proven by the summary line, which the immediate-exit path never prints.
  assert.ok(code === 130 || code === 0, `exit code ${code}`);
  assert.match(stderr, /msgr sandbox stopped: 4 requests, 1 accepted, 2 recipients/);
  assert.equal(sbx.stdout(), `${sbx.url}\n`);
  assert.ok(stderr.includes(`msgr sandbox listening on ${sbx.url} — nothing sent here is delivered`), stderr);
  assert.ok(stderr.includes(`MSGR_BASE_URL=${sbx.url}`), stderr);
  const requestLines = stderr.split('\n').filter((l) => l.includes(' POST /v2/messages '));
  assert.deepEqual(requestLines.map((l) => / POST \/v2\/messages (\d{3}) /.exec(l)?.[1]), ['202', '401', '403', '422']);
  assert.match(requestLines[3] ?? '', /recipients\[0\]\.msisdn/);
  assert.ok(!stderr.includes(KEY), 'the API key must never be printed');
  assert.ok(!stderr.includes('wrong-key-123456'), 'a presented key must never be printed');
});

test('msgr sandbox -q prints only the URL', async () => {
  const sbx = await startCli(['-q']);
  assert.equal((await post(sbx.url, request, 'any')).status, 202);
  sbx.child.kill('SIGTERM');
  await sbx.exit;
  assert.equal(sbx.stderr(), '');
  assert.equal(sbx.stdout(), `${sbx.url}\n`);
});

for (const [how, stop] of [
  ['three SIGTERMs 10 ms apart', async (c: ChildProcessWithoutNullStreams): Promise<void> => {
    for (let i = 0; i < 3; i++) {
      c.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 10));
    }
  }],
  ['SIGHUP after the reader closed stdout and stderr', async (c: ChildProcessWithoutNullStreams): Promise<void> => {
    c.stdout.destroy();
    c.stderr.destroy();
    c.kill('SIGHUP');
    await Promise.resolve();
  }],
] as const) {
  test(`msgr sandbox stopped by ${how}: the request in flight is answered, then exit 0`, async () => {
    const record = join(tempDir(), 'sent.jsonl');
    const sbx = await startCli(['--latency', '700', '--record', record]);
    const answer = post(sbx.url, request, 'any');
    // The request is in, waiting out its latency.
    await new Promise((r) => setTimeout(r, 300));
    await stop(sbx.child);
    assert.equal((await answer).status, 202);
    assert.equal(await sbx.exit, 0);
    assert.equal(readFileSync(record, 'utf8').split('\n').filter(Boolean).length, 1);
  });
}

test('msgr sandbox stopped under a send-bulk: every request it took in is answered; only a request it never took in can be in doubt', async () => {
  const dir = tempDir();
  const record = join(dir, 'sent.jsonl');
  const sbx = await startCli(['--latency', '150', '--record', record]);
  const csv = join(dir, 'c.csv');
  writeFileSync(csv, `msisdn\n${Array.from({ length: 400 }, (_, i) => `+4479111${String(i).padStart(5, '0')}`).join('\n')}\n`);
  const env = cleanEnv({ MSGR_CONFIG_DIR: join(dir, 'state'), MSGR_API_KEY: KEY, MSGR_BASE_URL: sbx.url, MSGR_ACCOUNT_REFERENCE: 'EX0000000' });
  const bulk = spawn(...msgrCommand(['send-bulk', csv, '--from', 'Acme', '--text', 'Hi', '--batch-size', '2', '--json']), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  bulk.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  bulk.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const code = new Promise<number | null>((r) => bulk.on('close', (c) => r(c)));
  const killer = setTimeout(() => bulk.kill('SIGKILL'), 30_000);
  let exit: number | null = null;
  try {
    // Stopped while the run keeps its connections busy: those in flight are answered, and their
    // answers close the connections, so no new request is taken in only to be cut off.
    for (let i = 0; i < 100 && !sbx.stderr().includes('202 accepted'); i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    sbx.child.kill('SIGTERM');
    assert.equal(await sbx.exit, 0);
    // The rest would wait out its retries against a closed port: stopped, it drains.
    bulk.kill('SIGTERM');
    exit = await code;
  } finally {
    clearTimeout(killer);
  }
  const summary = JSON.parse(stdout) as { accepted: number; inDoubt: number; notSent: number };
  const recorded = readFileSync(record, 'utf8').split('\n').filter(Boolean).length;
  assert.equal(summary.accepted, recorded * 2);
  assert.equal(summary.accepted + summary.notSent + summary.inDoubt, 400);
  const stats = /msgr sandbox stopped: (\d+) requests?, (\d+) accepted/.exec(sbx.stderr());
  assert.ok(stats !== null, sbx.stderr());
  assert.equal(stats[1], stats[2], 'a request the sandbox took in went unanswered');
  assert.equal(Number(stats[2]) * 2, summary.accepted, 'the sandbox accepted a request whose answer the run did not get');
  // A request written onto a kept-alive connection just as the stopping sandbox closed it never
  // reached it (counted above), but the client cannot tell: in doubt, exit 7. Any server has that
  // race; the answers that close their connections make it rare, not impossible.
  assert.equal(exit, summary.inDoubt > 0 ? 7 : 130, stderr);
});

test('msgr sandbox refuses bad flag values with exit 2, naming the flag', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['--port', '70000'], /--port/],
    [['--port', 'abc'], /--port/],
    [['--error-rate', '1.5'], /--error-rate/],
    [['--host', '0.0.0.0'], /--host.*loopback/],
    [['--rate-limit', '0'], /--rate-limit/],
    [['--latency', '-5'], /--latency/],
  ];
  const results = await Promise.all(cases.map(([args]) => runCli(['sandbox', ...args], { timeoutMs: 10_000 })));
  results.forEach((r, i) => {
    const [args, pattern] = cases[i] ?? [[], /$^/];
    assert.equal(r.code, 2, `${args.join(' ')}: exit ${r.code}, stderr ${r.stderr}`);
    assert.match(r.stderr, pattern);
    assert.equal(r.stdout, '');
  });
});

test('msgr send against msgr sandbox: the fixture arrives whole, fallback shown, wrong key is exit 3', async () => {
  const record = join(tempDir(), 'sent.jsonl');
  // The key from the environment this time (MSGR_SANDBOX_API_KEY), as scripts should pass it.
  const sbx = await startCli(['--record', record, '-q'], { MSGR_SANDBOX_API_KEY: KEY });
  try {
    const fixture = join(ROOT, 'fixtures', 'sandbox', 'request-rcs.json');
    const env = (key: string): Record<string, string> => cleanEnv({ MSGR_CONFIG_DIR: tempDir(), MSGR_BASE_URL: sbx.url, MSGR_API_KEY: key });
    const sent = await runCli(['send', '--input', fixture, '--json'], { env: env(KEY) });
    assert.equal(sent.code, 0, sent.stderr);
    const answer = JSON.parse(sent.stdout) as { messages: Array<{ fallback: boolean }>; contacts: Array<{ contactId: string; fallback: boolean }> };
    assert.deepEqual(answer.messages.map((m) => m.fallback), [true, false]);
    assert.deepEqual(answer.contacts.map((c) => [c.contactId, c.fallback]), [['c-10', false], ['c-11', true]]);
    const lines = readFileSync(record, 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.length, 1);
    assert.deepEqual((JSON.parse(lines[0] ?? '') as { request: unknown }).request, JSON.parse(readFileSync(fixture, 'utf8')));

    const refused = await runCli(['send', '--input', fixture], { env: env('not-the-sandbox-key') });
    assert.equal(refused.code, 3, refused.stderr);
    assert.match(refused.stderr, /401/);
    assert.equal(readFileSync(record, 'utf8').split('\n').filter(Boolean).length, 1);
  } finally {
    sbx.child.kill('SIGTERM');
    await sbx.exit;
  }
});
