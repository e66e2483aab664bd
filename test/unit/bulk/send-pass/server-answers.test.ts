// What the API's answers do to a bulk run: a rejected batch reported per row (exit 7), batches
// without an answer, a server that keeps failing, a 429 with Retry-After pausing every worker.
// Run in-process (test/support/in-process.ts) through the real HTTP client against the scriptable
// server on 127.0.0.1 (a free port).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { tempDir, type RunResult } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';
import { useTestServer } from '../../../support/test-server.js';
import { env, numbersCsv, MSG } from '../../../support/bulk-inputs.js';

function bulk(args: string[], e: Record<string, string>, input?: string): Promise<RunResult> {
  return runInProcess(['send-bulk', ...args], { env: e, timeoutMs: 30_000, ...(input !== undefined ? { input } : {}) });
}

describe('send-bulk against a scripted server', () => {
  const server = useTestServer();

  test('a rejected batch is reported per row and the run ends with exit 7', async () => {
    server.requests.length = 0;
    server.fallback = { status: 202, body: { ok: true } };
    server.script({ status: 202, body: { messages: [{ id: 'm-a' }, { id: 'm-b' }] } }, { status: 422, body: { title: 'Unprocessable', detail: 'bad template' } });
    const { path } = numbersCsv(5);
    const report = join(tempDir(), 'r.jsonl');
    const r = await bulk([path, ...MSG, '--batch-size', '2', '--concurrency', '1', '--report', report], env(server.url));
    assert.equal(r.code, 7, r.stderr);
    assert.match(r.stderr, /2 of 5 recipients were not accepted \(2 rejected\)/);
    const rows = readFileSync(report, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { line: number; outcome: string; status: number | null; messageId: string | null; error: string | null });
    assert.deepEqual(rows.map((x) => [x.line, x.outcome, x.status, x.messageId]), [
      [2, 'accepted', 202, 'm-a'],
      [3, 'accepted', 202, 'm-b'],
      [4, 'rejected', 422, null],
      [5, 'rejected', 422, null],
      [6, 'accepted', 202, null],
    ]);
    assert.match(rows[2]?.error ?? '', /bad template/);
    assert.equal(server.requests.length, 3);
  });

  test('batches that got no answer, too few to stop the run: the summary says why, not only the report', async () => {
    server.requests.length = 0;
    server.fallback = { status: 202, body: {} };
    server.script({ status: 500, body: { title: 'boom' } }, { status: 500, body: { title: 'boom' } });
    const { path } = numbersCsv(6);
    const r = await bulk([path, ...MSG, '--batch-size', '2', '--concurrency', '1'], env(server.url));
    assert.equal(r.code, 7, r.stderr);
    assert.match(r.stderr, /4 of 6 recipients were not accepted \(4 in doubt; last: HTTP 500: boom\)/);
  });

  test('a server that keeps failing stops the run early with a resumable journal', async () => {
    server.requests.length = 0;
    server.fallback = { status: 500, body: { title: 'boom' } };
    const { path } = numbersCsv(40);
    const r = await bulk([path, ...MSG, '--batch-size', '2', '--concurrency', '1'], env(server.url));
    assert.equal(r.code, 7, r.stderr);
    assert.match(r.stderr, /stopped early: 5 batches in a row got no answer \(last: HTTP 500/);
    assert.equal(server.requests.length, 5);
    assert.match(r.stderr, /Resume with: msgr send-bulk \S+ --resume/);
    assert.match(r.stderr, /--resend-in-doubt/);
  });

  test('429 with Retry-After pauses every worker, not just the one request', async () => {
    server.requests.length = 0;
    server.fallback = { status: 202, body: {} };
    server.script({ status: 429, headers: { 'retry-after': '1' }, body: { title: 'slow down' } });
    const { path } = numbersCsv(12);
    const t0 = Date.now();
    const r = await bulk([path, ...MSG, '--batch-size', '1', '--concurrency', '4'], env(server.url));
    assert.equal(r.code, 0, r.stderr);
    // 12 batches plus one retry; with the gate, the batches after the 429 waited ~1 s.
    assert.equal(server.requests.length, 13);
    assert.ok(Date.now() - t0 >= 1000);
    assert.match(r.stderr, /asked to slow down \(HTTP 429\)|throttled 1 time/);
  });

});
