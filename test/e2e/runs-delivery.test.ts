// Delivery in runs (docs/events.md: "Delivery in runs"), with real processes on 127.0.0.1: the
// API (the scriptable server) answers with message ids, msgr listen saves the receipts msgr
// trigger posts, and `msgr runs show` / `runs report` join them to a resumed run by message id; a
// receipt that came before its message was sent is matched once it is; an events file saved
// elsewhere, in another shape, is read with --events and the field flags.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, runCli, tempDir } from '../support/cli.js';
import { LISTENING, startMsgr, waitFor } from '../support/daemon.js';
import { type ReceivedRequest, type ScriptedResponse, useTestServer } from '../support/test-server.js';

const TOKEN = 'e2e-runs-delivery-token-0123';
const MSG = ['--from', 'Acme', '--text', 'Hello there'];

const recipients = (r: ReceivedRequest): string[] => ((r.json as { recipients?: Array<{ msisdn: string }> } | undefined)?.recipients ?? []).map((x) => x.msisdn);
const withIds = (numbers: readonly string[]): ScriptedResponse => ({ status: 202, body: { messages: numbers.map((m) => ({ id: `m-${m}`, msisdn: m })) } });

function csv(path: string): Array<Record<string, string>> {
  const [head, ...lines] = readFileSync(path, 'utf8').trim().split('\n');
  const cols = (head ?? '').split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i] ?? '', v])));
}

interface Delivery {
  delivered: number;
  failed: number;
  expired: number;
  pending: number;
  unknown: number;
  withoutId: number;
  events: string[];
}

describe('delivery in runs', () => {
  const server = useTestServer();

  test('runs show and runs report join the saved receipts to a resumed run by message id; a receipt that came early is matched once its message is sent; --events reads a file saved elsewhere, its fields named', async () => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: join(dir, 'state'), MSGR_LISTEN_TOKEN: TOKEN, MSGR_API_KEY: 'k', MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: 'ACME03' });
    const n = Array.from({ length: 6 }, (_, i) => `+4479112${String(900 + i).padStart(5, '0')}`);
    const file = join(dir, 'c.csv');
    writeFileSync(file, `msisdn\n${n.join('\n')}\n`);
    server.answer = (req) => withIds(recipients(req));
    server.script(withIds(n.slice(0, 2)), withIds(n.slice(2, 4)), { status: 401, body: { title: 'Unauthorized' } });
    const first = await runCli(['send-bulk', file, ...MSG, '--batch-size', '2', '--concurrency', '1', '--yes'], { env });
    assert.equal(first.code, 3, first.stderr);

    const listen = await startMsgr(['listen', '--port', '0'], env, LISTENING);
    try {
      const trigger = async (kind: string, id: string, number: string): Promise<void> => {
        const r = await runCli(['trigger', kind, '--url', listen.ready, '--message-id', id, '--number', number], { env });
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
    const shown = await runCli(['runs', 'show', file, '--json'], { env });
    assert.equal(shown.code, 0, shown.stderr);
    const before = (JSON.parse(shown.stdout) as { delivery: Delivery }).delivery;
    assert.deepEqual([before.delivered, before.failed, before.pending, before.unknown, before.withoutId], [1, 1, 2, 0, 0]);
    assert.deepEqual(before.events, [join(dir, 'state', 'events', 'ACME03.jsonl')]);

    const resumed = await runCli(['send-bulk', file, '--resume'], { env });
    assert.equal(resumed.code, 0, resumed.stderr);
    const text = await runCli(['runs', 'show', file], { env });
    assert.match(text.stdout, /^delivery {2}2 delivered, 1 failed, 3 pending \(no final receipt yet\), 0 unknown \(no final receipt in 72 h\); receipts from \S+ACME03\.jsonl$/m);

    const report = join(dir, 'report.csv');
    const written = await runCli(['runs', 'report', file, '--report', report, '--json'], { env });
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
    const other = await startMsgr(['listen', '--port', '0', '--out', elsewhere], env, LISTENING);
    try {
      for (const i of [2, 3]) {
        const r = await fetch(other.ready, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ data: { ref: `m-${n[i]}`, outcome: i === 2 ? 'delivered' : 'undelivered' } }) });
        assert.equal(r.status, 200);
      }
    } finally {
      await other.stop();
    }
    const unnamed = await runCli(['runs', 'show', file, '--json', '--events', elsewhere], { env });
    const plain = (JSON.parse(unnamed.stdout) as { delivery: Delivery }).delivery;
    assert.deepEqual([plain.delivered, plain.failed, plain.pending, plain.events], [0, 0, 6, [elsewhere]]);
    const named = join(dir, 'named.jsonl');
    const r2 = await runCli(['runs', 'report', file, '--report', named, '--events', elsewhere, '--message-id-field', 'data.ref', '--status-field', 'data.outcome'], { env });
    assert.equal(r2.code, 0, r2.stderr);
    const lines = readFileSync(named, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { number: string; delivery: string | null });
    assert.deepEqual(lines.map((l) => l.delivery), ['pending', 'pending', 'delivered', 'failed', 'pending', 'pending']);
    const missing = await runCli(['runs', 'report', file, '--report', named, '--events', join(dir, 'nope.jsonl')], { env });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--events: cannot read the events file \S+nope\.jsonl/);
  });

  test('send-bulk --skip-sent --delivered-only: a follow-up to those the first run did not reach, refused while receipts are pending; a resume keeps what counted as delivered at its start', async () => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: join(dir, 'state'), MSGR_LISTEN_TOKEN: TOKEN, MSGR_API_KEY: 'k', MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: 'ACME04' });
    const n = Array.from({ length: 5 }, (_, i) => `+4479112${String(950 + i).padStart(5, '0')}`);
    const file = join(dir, 'c.csv');
    writeFileSync(file, `msisdn\n${n.join('\n')}\n`);
    server.answer = (req) => withIds(recipients(req));
    assert.equal((await runCli(['send-bulk', file, ...MSG, '--yes'], { env })).code, 0);
    const alone = await runCli(['send-bulk', file, ...MSG, '--delivered-only', '--yes'], { env });
    assert.equal(alone.code, 2);
    assert.match(alone.stderr, /--delivered-only needs --skip-sent/);

    const follow = [file, ...MSG, '--skip-sent', '--delivered-only', '--yes', '--batch-size', '1', '--concurrency', '1'];
    // No receipt at all (no listener ran): msgr cannot tell who was reached, and sends nothing.
    const blind = await runCli(['send-bulk', ...follow], { env });
    assert.equal(blind.code, 2, blind.stderr);
    assert.match(blind.stderr, /^error: --delivered-only: not one of the 5 messages of run \S+ has a receipt in the state folder \(no events file for the run's account\), so msgr cannot tell which were delivered; nothing was sent$/m);
    assert.match(blind.stderr, /--skip-sent without --delivered-only/);

    const listen = await startMsgr(['listen', '--port', '0'], env, LISTENING);
    const trigger = async (kind: string, i: number, extra: string[] = []): Promise<void> => {
      const r = await runCli(['trigger', kind, '--url', listen.ready, '--message-id', `m-${n[i]}`, '--number', n[i] ?? '', ...extra], { env });
      assert.equal(r.code, 0, r.stderr);
    };
    try {
      await trigger('delivered', 0);
      await trigger('failed', 1);
      await trigger('delivered', 2);
      // n[3] and n[4]: no receipt yet.
      const held = server.requests.length;
      const early = await runCli(['send-bulk', ...follow], { env });
      assert.equal(early.code, 2, early.stderr);
      assert.match(early.stderr, /^error: --delivered-only: 2 messages of run \S+ have no final receipt yet; sending now could message again people whose message is still on its way; nothing was sent$/m);
      assert.equal(server.requests.length, held);
      await trigger('expired', 3);
      await trigger('delivered', 4);
      await waitFor('5 receipts shown', () => listen.stdout().split('\n').filter((l) => /delivered|failed|expired/.test(l)).length === 5);

      // What becomes of the numbers not delivered is said in the line that counts them: one opted
      // out since, then one on the --exclude list too; the others are sent again.
      assert.equal((await runCli(['optout', 'add', n[1] ?? '', '--account', 'ACME04'], { env })).code, 0);
      const optedOut = await runCli(['send-bulk', ...follow, '--dry-run'], { env });
      assert.equal(optedOut.code, 0, optedOut.stderr);
      assert.match(optedOut.stderr, /3 rows delivered by run \S+: left out; 2 not delivered \(failed, expired, or no final receipt in 72 h\): 1 sent again, 1 opted out\n/);
      const list = join(dir, 'excluded.txt');
      writeFileSync(list, `${n[3] ?? ''}\n`);
      const both = await runCli(['send-bulk', ...follow, '--dry-run', '--exclude', list], { env });
      assert.match(both.stderr, /2 not delivered \(failed, expired, or no final receipt in 72 h\): 0 sent again, 1 opted out, 1 on the --exclude list\n/);
      assert.equal((await runCli(['optout', 'remove', n[1] ?? '', '--account', 'ACME04'], { env })).code, 0);

      // The follow-up sends to n[1] and n[3]; it stops after the first (401), and meanwhile a late
      // receipt says n[3]'s first message was delivered after all: the resume still sends it, as the run started.
      server.answer = (req) => ({ status: 202, body: { messages: recipients(req).map((m) => ({ id: `f-${m}`, msisdn: m })) } });
      server.script({ status: 202, body: { messages: [{ id: `f-${n[1]}`, msisdn: n[1] }] } }, { status: 401, body: { title: 'Unauthorized' } });
      const before = server.requests.length;
      const first = await runCli(['send-bulk', ...follow], { env });
      assert.equal(first.code, 3, first.stderr);
      assert.match(first.stderr, /3 rows delivered by run \S+: left out; 2 not delivered \(failed, expired, or no final receipt in 72 h\): 2 sent again\n/);
      await trigger('delivered', 3, ['--set', 'timestamp=2099-01-01T00:00:00Z']);
      await waitFor('the late receipt shown', () => listen.stdout().split('\n').filter((l) => /delivered|failed|expired/.test(l)).length === 6);
      const runs = (JSON.parse((await runCli(['runs', 'list', '--json'], { env })).stdout) as { runs: Array<{ runId: string }> }).runs;
      const now = JSON.parse((await runCli(['runs', 'show', runs[0]?.runId ?? '', '--json'], { env })).stdout) as { delivery: Delivery };
      assert.deepEqual([now.delivery.delivered, now.delivery.failed, now.delivery.expired], [4, 1, 0]);
      const resumed = await runCli(['send-bulk', file, '--resume'], { env });
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.deepEqual(server.requests.slice(before).map(recipients), [[n[1]], [n[3]], [n[3]]]);
    } finally {
      await listen.stop();
    }
  });
});
