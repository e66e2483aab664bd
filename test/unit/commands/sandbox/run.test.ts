// `msgr sandbox` without a child process: argv strings → options, and the run function with a
// fake context (in-memory streams, an AbortController standing in for Ctrl-C).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Context } from '../../../../src/context.js';
import { UsageError } from '../../../../src/errors.js';
import { parseSandboxOptions } from '../../../../src/commands/sandbox/options.js';
import { runSandbox } from '../../../../src/commands/sandbox/run.js';
import { noHttp, testProcess } from '../../../support/fake-context.js';
import { tempDir } from '../../../support/cli.js';

test('flags become server options; numbers parsed, record resolved against the working directory', () => {
  assert.deepEqual(parseSandboxOptions({}, '/w'), { options: { host: '127.0.0.1', port: 4010 }, quiet: false });
  const { options, quiet } = parseSandboxOptions(
    { port: '0', host: '::1', apiKey: 'k', account: 'EX1', record: 'out/r.jsonl', latency: '25', errorRate: '0.25', rateLimit: '2.5', seed: '7', quiet: true },
    '/w',
  );
  assert.deepEqual(options, { host: '::1', port: 0, apiKey: 'k', account: 'EX1', record: '/w/out/r.jsonl', latencyMs: 25, errorRate: 0.25, rateLimit: 2.5, seed: 7 });
  assert.equal(quiet, true);
});

test('each bad flag value is a UsageError naming the flag', () => {
  const bad: Array<[Record<string, unknown>, string]> = [
    [{ port: '65536' }, '--port'],
    [{ port: '1.5' }, '--port'],
    [{ port: '' }, '--port'],
    [{ host: '192.168.1.2' }, '--host'],
    [{ host: '0.0.0.0' }, '--host'],
    [{ errorRate: '-0.1' }, '--error-rate'],
    [{ errorRate: 'half' }, '--error-rate'],
    [{ rateLimit: '0' }, '--rate-limit'],
    [{ latency: '1e9' }, '--latency'],
    [{ seed: '-1' }, '--seed'],
    [{ apiKey: '' }, '--api-key'],
  ];
  for (const [raw, flag] of bad) {
    assert.throws(
      () => parseSandboxOptions(raw, '/w'),
      (err: unknown) => err instanceof UsageError && err.message.includes(flag),
      `${JSON.stringify(raw)} should be refused naming ${flag}`,
    );
  }
});

function fakeContext(cwd: string): { ctx: Context; out: string[]; err: string[]; stop: () => void; graceful: () => boolean } {
  const out: string[] = [];
  const err: string[] = [];
  const controller = new AbortController();
  let graceful = false;
  const ctx: Context = {
    argv: [],
    env: {},
    cwd,
    stdout: { write: (s: string) => out.push(s) > 0 },
    stderr: { write: (s: string) => err.push(s) > 0 },
    stdin: Readable.from([]),
    now: () => new Date(),
    interrupt: controller.signal,
    version: 'test',
    ...testProcess,
    onExit: () => undefined,
    atQuit: () => undefined,
    enableGracefulInterrupt: () => {
      graceful = true;
    },
    onHangup: () => undefined,
    http: noHttp,
  };
  return { ctx, out, err, stop: () => controller.abort('SIGINT'), graceful: () => graceful };
}

async function waitFor(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(cond(), 'timed out');
}

test('runSandbox: URL alone on stdout, banner and request lines on stderr, stops on interrupt', async () => {
  const cwd = tempDir('msgr-sbx-run-');
  const f = fakeContext(cwd);
  const running = runSandbox(f.ctx, parseSandboxOptions({ port: '0', apiKey: 'run-secret-key-42', record: 'rec.jsonl' }, f.ctx.cwd));
  await waitFor(() => f.out.length > 0);
  assert.equal(f.graceful(), true);
  const url = (f.out[0] ?? '').trimEnd();
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const res = await fetch(`${url}/v2/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'run-secret-key-42' },
    body: JSON.stringify({ accountReference: 'EX1', channel: 'SMS', from: 'A', body: { text: 'x' }, recipients: [{ msisdn: '+447400900123' }] }),
  });
  assert.equal(res.status, 202);
  await res.text();
  f.stop();
  await running;
  assert.deepEqual(f.out, [`${url}\n`]);
  const stderr = f.err.join('');
  assert.match(stderr, /^msgr sandbox listening on http:\/\/127\.0\.0\.1:\d+ — nothing sent here is delivered\n/);
  assert.match(stderr, /MSGR_BASE_URL=http:\/\/127\.0\.0\.1:\d+ MSGR_API_KEY=<the --api-key value> msgr send/);
  assert.match(stderr, / POST \/v2\/messages 202 accepted sbx_b_[0-9a-f]+: 1 recipient by SMS/);
  assert.match(stderr, /msgr sandbox stopped: 1 request, 1 accepted, 1 recipient\n$/);
  assert.ok(!stderr.includes('run-secret-key-42'));
  assert.ok(existsSync(join(cwd, 'rec.jsonl')));
  assert.equal(readFileSync(join(cwd, 'rec.jsonl'), 'utf8').split('\n').filter(Boolean).length, 1);
  // The server is closed: nothing listens any more.
  await assert.rejects(fetch(`${url}/v2/messages`, { method: 'POST' }));
});

test('runSandbox -q writes only the URL', async () => {
  const f = fakeContext(tmpdir());
  const running = runSandbox(f.ctx, parseSandboxOptions({ port: '0', quiet: true }, f.ctx.cwd));
  await waitFor(() => f.out.length > 0);
  f.stop();
  await running;
  assert.equal(f.out.length, 1);
  assert.deepEqual(f.err, []);
});
