// Delivery in runs (docs/events.md: "Delivery in runs"), in-process: the API (the scriptable
// server on 127.0.0.1) answers with message ids, msgr listen saves the receipts msgr trigger
// posts, and `msgr runs show` / `runs report` join them to a resumed run by message id; a receipt
// that came before its message was sent is matched once it is; an events file saved elsewhere, in
// another shape, is read with --events and the field flags.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { DeliveryCounts } from '../../../../src/bulk/runs-door.js';
import { LISTENING, waitFor } from '../../../support/daemon.js';
import { runInProcess, startInProcess } from '../../../support/in-process.js';
import { runForReceipts } from '../../../support/listener.js';
import { acceptedWithIds, useTestServer } from '../../../support/test-server.js';

const MSG = ['--from', 'Acme', '--text', 'Hello there'];

function csv(path: string): Array<Record<string, string>> {
  const [head, ...lines] = readFileSync(path, 'utf8').trim().split('\n');
  const cols = (head ?? '').split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i] ?? '', v])));
}

/** The delivery of `runs show --json` and `runs report --json`. */
type Delivery = DeliveryCounts & { events: string[] };

describe('receipts joined to a run by message id, as runs show and runs report tell them', () => {
  const server = useTestServer();

  test('runs show and runs report join the saved receipts to a resumed run by message id; a receipt that came early is matched once its message is sent; --events reads a file saved elsewhere, its fields named', async () => {
    const { dir, env, file, n } = runForReceipts(server, 'ACME03', 6, 900);
    server.script(acceptedWithIds(n.slice(0, 2)), acceptedWithIds(n.slice(2, 4)), { status: 401, body: { title: 'Unauthorized' } });
    const first = await runInProcess(['send-bulk', file, ...MSG, '--batch-size', '2', '--concurrency', '1', '--yes'], { env });
    assert.equal(first.code, 3, first.stderr);

    const listen = await startInProcess(['listen', '--port', '0'], env, LISTENING);
    try {
      const trigger = async (kind: string, id: string, number: string): Promise<void> => {
        const r = await runInProcess(['trigger', kind, '--url', listen.ready, '--message-id', id, '--number', number], { env });
        assert.equal(r.code, 0, r.stderr);
      };
      await trigger('delivered', `m-${n[0]}`, n[0] ?? '');
      await trigger('failed', `m-${n[1]}`, n[1] ?? '');
      // A receipt for a message of the batch not sent yet, and one of no run at all.
      await trigger('delivered', `m-${n[4]}`, n[4] ?? '');
      await trigger('delivered', 'm-someone-else', '+447400900999');
      await waitFor('4 receipts shown', () => listen.stdout().split('\n').filter((l) => /delivered|failed/.test(l)).length === 4);
    } finally {
      await listen.stop();
    }
    const shown = await runInProcess(['runs', 'show', file, '--json'], { env });
    assert.equal(shown.code, 0, shown.stderr);
    const before = (JSON.parse(shown.stdout) as { delivery: Delivery }).delivery;
    assert.deepEqual([before.delivered, before.failed, before.pending, before.unknown, before.withoutId], [1, 1, 2, 0, 0]);
    assert.deepEqual(before.events, [join(dir, 'state', 'events', 'ACME03.jsonl')]);

    const resumed = await runInProcess(['send-bulk', file, '--resume'], { env });
    assert.equal(resumed.code, 0, resumed.stderr);
    const text = await runInProcess(['runs', 'show', file], { env });
    assert.match(text.stdout, /^delivery {2}2 delivered, 1 failed, 3 pending \(no final receipt yet\), 0 unknown \(no final receipt in 72 h\); receipts from \S+ACME03\.jsonl$/m);

    const report = join(dir, 'report.csv');
    const written = await runInProcess(['runs', 'report', file, '--report', report, '--json'], { env });
    assert.equal(written.code, 0, written.stderr);
    assert.match(written.stderr, /delivery: 2 delivered, 1 failed, 3 pending/);
    const rows = csv(report);
    assert.deepEqual(rows.map((r) => [r.number, r.outcome, r.message_id, r.delivery, r.delivery_error]), [
      [n[0], 'accepted', `m-${n[0]}`, 'delivered', ''],
      [n[1], 'accepted', `m-${n[1]}`, 'failed', 'unknown-subscriber'],
      [n[2], 'accepted', `m-${n[2]}`, 'pending', ''],
      [n[3], 'accepted', `m-${n[3]}`, 'pending', ''],
      [n[4], 'accepted', `m-${n[4]}`, 'delivered', ''],
      [n[5], 'accepted', `m-${n[5]}`, 'pending', ''],
    ]);
    assert.match(rows[0]?.delivery_at ?? '', /^\d{4}-\d\d-\d\dT/);
    assert.equal(rows[2]?.delivery_at, '');
    assert.equal((JSON.parse(written.stdout) as { delivery: Delivery }).delivery.delivered, 2);

    // Receipts saved elsewhere, in a shape the usual names miss: read with --events and the field flags.
    const elsewhere = join(dir, 'receipts.jsonl');
    const other = await startInProcess(['listen', '--port', '0', '--out', elsewhere], env, LISTENING);
    try {
      for (const i of [2, 3]) {
        const r = await fetch(other.ready, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ data: { ref: `m-${n[i]}`, outcome: i === 2 ? 'delivered' : 'undelivered' } }) });
        assert.equal(r.status, 200);
      }
    } finally {
      await other.stop();
    }
    const unnamed = await runInProcess(['runs', 'show', file, '--json', '--events', elsewhere], { env });
    const plain = (JSON.parse(unnamed.stdout) as { delivery: Delivery }).delivery;
    assert.deepEqual([plain.delivered, plain.failed, plain.pending, plain.events], [0, 0, 6, [elsewhere]]);
    const named = join(dir, 'named.jsonl');
    const r2 = await runInProcess(['runs', 'report', file, '--report', named, '--events', elsewhere, '--message-id-field', 'data.ref', '--status-field', 'data.outcome'], { env });
    assert.equal(r2.code, 0, r2.stderr);
    const lines = readFileSync(named, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { number: string; delivery: string | null });
    assert.deepEqual(lines.map((l) => l.delivery), ['pending', 'pending', 'delivered', 'failed', 'pending', 'pending']);
    const missing = await runInProcess(['runs', 'report', file, '--report', named, '--events', join(dir, 'nope.jsonl')], { env });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--events: cannot read the events file \S+nope\.jsonl/);
  });
});
