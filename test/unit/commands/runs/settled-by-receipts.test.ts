// `msgr runs show` and `msgr runs report` of a run whose batch in doubt the receipts settled
// (docs/reruns.md: "In doubt meets consent"): its rows count as accepted, and their receipts in the
// delivery line, by the message ids the receipts carry; no line of the output contradicts another.
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ExitCode } from '../../../../src/errors.js';
import { accept, fakeApi, type Responder } from '../../../support/fake-api.js';
import { fakeContext } from '../../../support/fake-context.js';
import { bulkFiles, runInProcess, sendBulk } from '../../../support/in-process.js';

const firstInDoubt: Responder = (r, i) => (i === 0 ? { kind: 'unknown', message: 'timed out', attempts: 1 } : accept(r, i));

/** A receipt as msgr listen keeps it, in the account's events file. */
function receipt(env: Record<string, string>, number: string, at: Date, status: string, n: number): void {
  const dir = join(env.MSGR_CONFIG_DIR as string, 'events');
  mkdirSync(dir, { recursive: true });
  const body = JSON.stringify({ type: 'message.status', id: `e${n}`, messageId: `m-${number}`, msisdn: number, status, final: true });
  appendFileSync(join(dir, 'ACME01.jsonl'), `${JSON.stringify({ v: 1, id: `ev_${n}`, receivedAt: at.toISOString(), key: `id:e${n}`, method: 'POST', path: '/', body })}\n`);
}

async function settledRun(): Promise<ReturnType<typeof bulkFiles>> {
  const c = bulkFiles(4, 'msgr-runs-settled-');
  const ctx = fakeContext({ env: c.env, http: fakeApi(firstInDoubt).http });
  const err = await sendBulk(ctx, [c.file, '--from', 'Acme', '--text', 'Hi', '--batch-size', '2', '--concurrency', '1', '--yes']);
  assert.equal(err?.exitCode, ExitCode.PARTIAL, err?.message);
  // The batch in doubt (the first two numbers): a receipt for each, one delivered, one failed.
  const at = new Date(Date.now() + 1000);
  receipt(c.env, c.numbers[0] as string, at, 'delivered', 1);
  receipt(c.env, c.numbers[1] as string, at, 'failed', 2);
  return c;
}

describe('rows settled by receipts, as runs show and runs report tell them', () => {
  test('runs show: 4 accepted (2 of them settled by receipts), and the delivery line counts the settled ones: 1 delivered, 1 failed, 2 pending', async () => {
    const c = await settledRun();
    const r = await runInProcess(['runs', 'show', c.file], { env: c.env, http: null });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^accepted +4 \(2 of them left in doubt, but the receipts show every one/m);
    assert.match(r.stdout, /^in doubt +0$/m);
    assert.match(r.stdout, /^delivery +1 delivered, 1 failed, 2 pending \(no final receipt yet\), 0 unknown/m);
    const json = await runInProcess(['runs', 'show', c.file, '--json'], { env: c.env, http: null });
    const doc = JSON.parse(json.stdout) as { accepted: number; inDoubt: number; delivery: { delivered: number; failed: number; pending: number; withoutId: number } };
    assert.deepEqual([doc.accepted, doc.inDoubt, doc.delivery.delivered, doc.delivery.failed, doc.delivery.pending, doc.delivery.withoutId], [4, 0, 1, 1, 2, 0]);
  });

  test('runs report: the settled rows are accepted with the message ids of their receipts, and what those say', async () => {
    const c = await settledRun();
    const out = join(c.dir, 'report.csv');
    const r = await runInProcess(['runs', 'report', c.file, '--report', out], { env: c.env, http: null });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /wrote 4 rows to .* \(4 with a message id\)/);
    assert.match(r.stderr, /delivery: 1 delivered, 1 failed, 2 pending/);
    const rows = readFileSync(out, 'utf8').trim().split('\n');
    assert.equal(rows.length, 5, rows.join('\n'));
    assert.match(rows[1] ?? '', new RegExp(`\\${c.numbers[0] as string}.*accepted.*m-\\${c.numbers[0] as string}.*delivered`));
    assert.match(rows[2] ?? '', new RegExp(`\\${c.numbers[1] as string}.*accepted.*m-\\${c.numbers[1] as string}.*failed`));
  });
});
