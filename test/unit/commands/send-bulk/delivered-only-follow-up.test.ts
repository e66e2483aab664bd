// A follow-up to those a run did not reach (docs/events.md: "Delivery in runs"), in-process:
// `send-bulk --skip-sent --delivered-only` reads the receipts msgr listen saved (posted by msgr
// trigger), is refused while receipts are pending, says what becomes of each number not
// delivered, and a resume keeps what counted as delivered at its start.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { DeliveryCounts } from '../../../../src/bulk/runs-door.js';
import { LISTENING, waitFor } from '../../../support/daemon.js';
import { runInProcess, startInProcess } from '../../../support/in-process.js';
import { runForReceipts } from '../../../support/listener.js';
import { acceptedWithIds, recipientsOf, useTestServer } from '../../../support/test-server.js';

const MSG = ['--from', 'Acme', '--text', 'Hello there'];

describe('send-bulk --delivered-only: a follow-up to those not reached', () => {
  const server = useTestServer();

  test('send-bulk --skip-sent --delivered-only: a follow-up to those the first run did not reach, refused while receipts are pending; a resume keeps what counted as delivered at its start', async () => {
    const { dir, env, file, n } = runForReceipts(server, 'ACME04', 5, 950);
    assert.equal((await runInProcess(['send-bulk', file, ...MSG, '--yes'], { env })).code, 0);
    const alone = await runInProcess(['send-bulk', file, ...MSG, '--delivered-only', '--yes'], { env });
    assert.equal(alone.code, 2);
    assert.match(alone.stderr, /--delivered-only needs --skip-sent/);

    const follow = [file, ...MSG, '--skip-sent', '--delivered-only', '--yes', '--batch-size', '1', '--concurrency', '1'];
    // No receipt at all (no listener ran): msgr cannot tell who was reached, and sends nothing.
    const blind = await runInProcess(['send-bulk', ...follow], { env });
    assert.equal(blind.code, 2, blind.stderr);
    assert.match(blind.stderr, /^error: --delivered-only: not one of the 5 messages of run \S+ has a receipt in the state folder \(no events file for the run's account\), so msgr cannot tell which were delivered; nothing was sent$/m);
    assert.match(blind.stderr, /--skip-sent without --delivered-only/);

    const listen = await startInProcess(['listen', '--port', '0'], env, LISTENING);
    const trigger = async (kind: string, i: number, extra: string[] = []): Promise<void> => {
      const r = await runInProcess(['trigger', kind, '--url', listen.ready, '--message-id', `m-${n[i]}`, '--number', n[i] ?? '', ...extra], { env });
      assert.equal(r.code, 0, r.stderr);
    };
    try {
      await trigger('delivered', 0);
      await trigger('failed', 1);
      await trigger('delivered', 2);
      // n[3] and n[4]: no receipt yet.
      const held = server.requests.length;
      const early = await runInProcess(['send-bulk', ...follow], { env });
      assert.equal(early.code, 2, early.stderr);
      assert.match(early.stderr, /^error: --delivered-only: 2 messages of run \S+ have no final receipt yet; sending now could message again people whose message is still on its way; nothing was sent$/m);
      assert.equal(server.requests.length, held);
      await trigger('expired', 3);
      await trigger('delivered', 4);
      await waitFor('5 receipts shown', () => listen.stdout().split('\n').filter((l) => /delivered|failed|expired/.test(l)).length === 5);

      // What becomes of the numbers not delivered is said in the line that counts them: one opted
      // out since, then one on the --exclude list too; the others are sent again.
      assert.equal((await runInProcess(['optout', 'add', n[1] ?? '', '--account', 'ACME04'], { env })).code, 0);
      const optedOut = await runInProcess(['send-bulk', ...follow, '--dry-run'], { env });
      assert.equal(optedOut.code, 0, optedOut.stderr);
      assert.match(optedOut.stderr, /3 rows delivered by run \S+: left out; 2 not delivered \(failed, expired, or no final receipt in 72 h\): 1 sent again, 1 opted out\n/);
      const list = join(dir, 'excluded.txt');
      writeFileSync(list, `${n[3] ?? ''}\n`);
      const both = await runInProcess(['send-bulk', ...follow, '--dry-run', '--exclude', list], { env });
      assert.match(both.stderr, /2 not delivered \(failed, expired, or no final receipt in 72 h\): 0 sent again, 1 opted out, 1 on the --exclude list\n/);
      assert.equal((await runInProcess(['optout', 'remove', n[1] ?? '', '--account', 'ACME04'], { env })).code, 0);

      // The follow-up sends to n[1] and n[3]; it stops after the first (401), and meanwhile a late
      // receipt says n[3]'s first message was delivered after all: the resume still sends it, as the run started.
      server.answer = (req) => acceptedWithIds(recipientsOf(req), 'f-');
      server.script({ status: 202, body: { messages: [{ id: `f-${n[1]}`, msisdn: n[1] }] } }, { status: 401, body: { title: 'Unauthorized' } });
      const before = server.requests.length;
      const first = await runInProcess(['send-bulk', ...follow], { env });
      assert.equal(first.code, 3, first.stderr);
      assert.match(first.stderr, /3 rows delivered by run \S+: left out; 2 not delivered \(failed, expired, or no final receipt in 72 h\): 2 sent again\n/);
      await trigger('delivered', 3, ['--set', 'timestamp=2099-01-01T00:00:00Z']);
      await waitFor('the late receipt shown', () => listen.stdout().split('\n').filter((l) => /delivered|failed|expired/.test(l)).length === 6);
      const runs = (JSON.parse((await runInProcess(['runs', 'list', '--json'], { env })).stdout) as { runs: Array<{ runId: string }> }).runs;
      const now = JSON.parse((await runInProcess(['runs', 'show', runs[0]?.runId ?? '', '--json'], { env })).stdout) as { delivery: DeliveryCounts };
      assert.deepEqual([now.delivery.delivered, now.delivery.failed, now.delivery.expired], [4, 1, 0]);
      const resumed = await runInProcess(['send-bulk', file, '--resume'], { env });
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.deepEqual(server.requests.slice(before).map(recipientsOf), [[n[1]], [n[3]], [n[3]]]);
    } finally {
      await listen.stop();
    }
  });
});
