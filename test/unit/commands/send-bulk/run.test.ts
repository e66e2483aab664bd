// send-bulk run in-process against a fake API (test/support/fake-api.ts), as gh's commands run
// against httpmock: argv through the real Commander wiring, then runSendBulk with a Context whose
// HTTP provider is the fake. Every request that would have left is asserted: its body, its
// Idempotency-Key, the client it went through. The e2e suite spawns the CLI for the same rules.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ExitCode } from '../../../../src/errors.js';
import { accept, fakeApi, type FakeRequest } from '../../../support/fake-api.js';
import { fakeContext } from '../../../support/fake-context.js';
import { bulkFiles, FAKE_KEY as KEY, sendBulk as run } from '../../../support/in-process.js';

const campaign = (n: number): ReturnType<typeof bulkFiles> => bulkFiles(n, 'msgr-run-unit-');

const numbersOf = (r: FakeRequest): string[] => (r.body.recipients ?? []).map((x) => x.msisdn);

describe('send-bulk in-process, against a fake API', () => {
  test('every row once, in batches under their Idempotency-Keys, through one client for the base URL; the report has each id', async () => {
    const c = campaign(5);
    const api = fakeApi();
    const ctx = fakeContext({ env: c.env, http: api.http });
    const report = join(c.dir, 'report.csv');
    const err = await run(ctx, [c.file, '--from', 'Acme', '--text', 'Hello', '--batch-size', '2', '--report', report, '--json']);
    assert.equal(err, undefined, err?.message);

    assert.deepEqual(api.requests.map(numbersOf), [c.numbers.slice(0, 2), c.numbers.slice(2, 4), c.numbers.slice(4)]);
    const doc = JSON.parse(ctx.out()) as { runId: string; accepted: number; toSend: number; requests: number; exitCode: number };
    assert.deepEqual([doc.accepted, doc.toSend, doc.requests, doc.exitCode], [5, 5, 3, ExitCode.OK]);
    assert.deepEqual(api.requests.map((r) => r.idempotencyKey), [0, 1, 2].map((b) => `msgr-${doc.runId}-${b}`));
    for (const r of api.requests) {
      assert.equal(r.body.from, 'Acme');
      assert.deepEqual(r.body.body, { text: 'Hello' });
      assert.equal(r.body.accountReference, 'ACME01');
    }
    // The campaign's client (message ids are read for the report), made once, for where it sends.
    assert.equal(api.clients.length, 1);
    assert.equal(api.clients[0]?.endpoint.href, 'https://api.example.test/v2/messages');
    assert.equal(api.clients[0]?.apiKey, KEY);
    assert.equal(api.clients[0]?.readSuccessBody, true);
    const lines = readFileSync(report, 'utf8').trim().split('\n');
    assert.deepEqual(lines.slice(1), c.numbers.map((m, i) => `${i + 2},${m},accepted,202,id-${m},,msisdn`));
    // The key never reaches the output.
    assert.doesNotMatch(ctx.out() + ctx.err(), new RegExp(KEY));
  });

  test('a dry run asks for no client at all', async () => {
    const c = campaign(3);
    // No http given: asking for a client would fail the run.
    const ctx = fakeContext({ env: c.env });
    const err = await run(ctx, [c.file, '--from', 'Acme', '--text', 'Hello', '--dry-run']);
    assert.equal(err, undefined, err?.message);
    assert.match(ctx.err(), /dry run: 3 recipients in 1 request would be sent; nothing was sent/);
  });

  test('a batch the API did not take is sent by the resume alone, under its first key', async () => {
    const c = campaign(6);
    const argv = [c.file, '--from', 'Acme', '--text', 'Hello', '--batch-size', '2'];
    const busy = fakeApi((r, i) => (i === 1 ? { kind: 'not-sent', status: 503, message: '503 Service Unavailable', attempts: 8 } : accept(r, i)));
    const first = fakeContext({ env: c.env, http: busy.http });
    const err = await run(first, argv);
    assert.equal(err?.exitCode, ExitCode.PARTIAL, err?.message);
    assert.match(err?.hint ?? '', /Resume with: msgr send-bulk .*list\.csv --resume/);
    assert.equal(busy.requests.length, 3);

    const again = fakeApi();
    const second = fakeContext({ env: c.env, http: again.http });
    assert.equal(await run(second, [...argv, '--resume']), undefined);
    assert.deepEqual(again.requests.map(numbersOf), [c.numbers.slice(2, 4)]);
    assert.equal(again.requests[0]?.idempotencyKey, busy.requests[1]?.idempotencyKey);
  });
});
