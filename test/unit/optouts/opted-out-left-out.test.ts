// The opt-out store as sends meet it (docs/optouts.md: "Sending"): a STOP reply from the sandbox,
// through msgr listen --optouts, leaves its sender out of the next send and send-bulk without a
// flag; --include-opted-out takes --yes; a resume leaves out numbers opted out while it was paused.
// In-process (test/support/in-process.ts): msgr through main() with a Context of the test's.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanEnv, tempDir, type RunResult } from '../../support/cli.js';
import { runInProcess } from '../../support/in-process.js';
import { LISTENING, SANDBOX_URL, startMsgr, waitFor } from '../../support/daemon.js';
import { type ReceivedRequest, type ScriptedResponse, useTestServer } from '../../support/test-server.js';

const TOKEN = 'e2e-optout-sending-token-0123';
const MSG = ['--from', 'Acme', '--text', 'Hello there'];

function recorded(file: string): string[][] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text.split('\n').filter(Boolean).map((l) => ((JSON.parse(l) as { request?: { recipients?: Array<{ msisdn: string }> } }).request?.recipients ?? []).map((r) => r.msisdn));
}

function csvRows(path: string): Array<Record<string, string>> {
  const [head, ...lines] = readFileSync(path, 'utf8').trim().split('\n');
  const cols = (head ?? '').split(',');
  // The error column may hold commas (quoted): everything after the fifth comma is it.
  return lines.map((l) => {
    const cells = l.split(',');
    const row = Object.fromEntries(cols.slice(0, 5).map((c, i) => [c, cells[i] ?? '']));
    return { ...row, error: cells.slice(5).join(',').replace(/^"|"$/g, '') };
  });
}

describe('the opt-out store applies to every send', () => {
  test('a STOP reply (sandbox → listen --optouts) leaves its sender out of the next send-bulk without a flag, counted as suppressed; send to it alone is refused; --include-opted-out needs --yes', async () => {
    const dir = tempDir();
    const record = join(dir, 'requests.jsonl');
    const base = { MSGR_CONFIG_DIR: join(dir, 'state'), MSGR_LISTEN_TOKEN: TOKEN, MSGR_API_KEY: 'k', MSGR_ACCOUNT_REFERENCE: 'ACME' };
    const listen = await startMsgr(['listen', '--port', '0', '--optouts'], cleanEnv(base), LISTENING);
    const sbx = await startMsgr(['sandbox', '--port', '0', '--record', record, '--webhook-url', listen.ready, '--event-delay', '20', '--reply-rate', '1', '--reply-text', 'STOP'], cleanEnv(base), SANDBOX_URL);
    const env = cleanEnv({ ...base, MSGR_BASE_URL: sbx.ready });
    const stop = '+447400900401';
    const others = ['+447400900402', '+447400900403'];
    try {
      const first = await runInProcess(['send', '--to', stop, ...MSG], { env });
      assert.equal(first.code, 0, first.stderr);
      // The listener says "opted out" once the store has it on disk (before its answer).
      await waitFor('the STOP reply in the store', () => new RegExp(`inbound\\s+\\${stop}\\s+\\S+\\s+"STOP"\\s+→ opted out`).test(listen.stdout()));
    } finally {
      await sbx.stop();
      await listen.stop();
    }
    // The sandbox answers again, now without events: what it receives is what the store let through.
    const quiet = await startMsgr(['sandbox', '--port', '0', '--record', record], cleanEnv(base), SANDBOX_URL);
    const env2 = cleanEnv({ ...base, MSGR_BASE_URL: quiet.ready });
    try {
      const csv = join(dir, 'people.csv');
      writeFileSync(csv, `phone\n${[stop, ...others].join('\n')}\n`);
      const dry = await runInProcess(['send-bulk', csv, ...MSG, '--dry-run', '--json'], { env: env2 });
      assert.equal(dry.code, 0, dry.stderr);
      const dryDoc = JSON.parse(dry.stdout) as { suppressed: number; toSend: number; optOuts: { store: string; account: string; numbers: number } };
      assert.deepEqual([dryDoc.suppressed, dryDoc.toSend, dryDoc.optOuts.store, dryDoc.optOuts.account, dryDoc.optOuts.numbers], [1, 2, 'left-out', 'ACME', 1]);
      assert.match(dry.stderr, /opted out: 1 row left out, suppressed \(the opt-out store of account ACME, 1 number; msgr optout list\)/);

      const before = recorded(record).length;
      const report = join(dir, 'report.csv');
      const bulk = await runInProcess(['send-bulk', csv, ...MSG, '--yes', '--report', report, '--json'], { env: env2 });
      assert.equal(bulk.code, 0, bulk.stderr);
      assert.deepEqual(recorded(record).slice(before), [others]);
      const doc = JSON.parse(bulk.stdout) as { suppressed: number; accepted: number; exitCode: number };
      assert.deepEqual([doc.suppressed, doc.accepted, doc.exitCode], [1, 2, 0]);
      assert.match(bulk.stderr, /skipped before sending: 1 opted out \(suppressed\)/);
      const rows = csvRows(report);
      assert.deepEqual(rows.map((r) => [r.number, r.outcome]), [[stop, 'suppressed'], [others[0], 'accepted'], [others[1], 'accepted']]);
      assert.match(rows[0]?.error ?? '', /^opted out since \S+, reply ""STOP""/);

      // One opted-out number alone: refused, with the flag that sends to it named.
      const held = recorded(record).length;
      const one = await runInProcess(['send', '--to', stop, ...MSG], { env: env2 });
      assert.equal(one.code, 2, one.stderr);
      assert.match(one.stderr, new RegExp(`^error: \\${stop} is in the opt-out store \\(opted out since \\S+, reply "STOP"\\); nothing was sent$`, 'm'));
      assert.match(one.stderr, /add --include-opted-out --yes/);
      assert.match(one.stderr, new RegExp(`msgr optout remove \\${stop} --account ACME`));
      // The flag alone is not enough: it takes --yes, on send and send-bulk alike.
      const noYes = await runInProcess(['send', '--to', stop, ...MSG, '--include-opted-out'], { env: env2 });
      assert.equal(noYes.code, 2);
      assert.match(noYes.stderr, /--include-opted-out sends to numbers that opted out: it needs --yes as well; nothing was sent/);
      const csv2 = join(dir, 'more.csv');
      writeFileSync(csv2, `phone\n${stop}\n+447400900404\n`);
      const bulkNoYes = await runInProcess(['send-bulk', csv2, ...MSG, '--include-opted-out'], { env: env2 });
      assert.equal(bulkNoYes.code, 2);
      assert.match(bulkNoYes.stderr, /it needs --yes as well/);
      assert.equal(recorded(record).length, held);
      // With --yes: sent to on purpose, and said.
      const anyway = await runInProcess(['send-bulk', csv2, ...MSG, '--include-opted-out', '--yes', '--json'], { env: env2 });
      assert.equal(anyway.code, 0, anyway.stderr);
      assert.match(anyway.stderr, /warning: --include-opted-out: the numbers in the opt-out store of account ACME, 1 number, are not left out: they are messaged/);
      assert.deepEqual(recorded(record).slice(held), [[stop, '+447400900404']]);
      assert.equal((JSON.parse(anyway.stdout) as { suppressed: number }).suppressed, 0);
    } finally {
      await quiet.stop();
    }
  });
});

describe('a store that grows while a run is paused', () => {
  const server = useTestServer();
  const ACCEPT: ScriptedResponse = { status: 202, body: { status: 'accepted' } };
  const REFUSE: ScriptedResponse = { status: 401, body: { title: 'Unauthorized' } };
  const recipients = (r: ReceivedRequest): string[] => ((r.json as { recipients?: Array<{ msisdn: string }> } | undefined)?.recipients ?? []).map((x) => x.msisdn);
  const bulk = (args: string[], e: Record<string, string>): Promise<RunResult> => runInProcess(['send-bulk', ...args], { env: e, timeoutMs: 60_000 });

  test('numbers opted out since the run started are left out of the batches not sent yet (suppressed since the start); one taken off the store meanwhile stays left out', async () => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: join(dir, 'state'), MSGR_API_KEY: 'k', MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: 'ACME01' });
    const n = Array.from({ length: 10 }, (_, i) => `+4479112${String(700 + i).padStart(5, '0')}`);
    const file = join(dir, 'c.csv');
    writeFileSync(file, `msisdn\n${n.join('\n')}\n`);
    assert.equal((await runInProcess(['optout', 'add', '--account', 'ACME01', n[9] ?? ''], { env })).code, 0);
    server.script(ACCEPT, ACCEPT, REFUSE);
    const first = await bulk([file, ...MSG, '--batch-size', '2', '--concurrency', '1'], env);
    assert.equal(first.code, 3, first.stderr);
    assert.match(first.stderr, /1 opted out/);
    assert.deepEqual(server.requests.flatMap(recipients), n.slice(0, 6));

    // While it is paused: one who already had it, and two whose batches were never sent, reply STOP;
    // the one left out at the start is taken off the store (the run still leaves it out).
    assert.equal((await runInProcess(['optout', 'add', '--account', 'ACME01', n[1] ?? '', n[5] ?? '', n[6] ?? ''], { env })).code, 0);
    assert.equal((await runInProcess(['optout', 'remove', '--account', 'ACME01', n[9] ?? ''], { env })).code, 0);
    // Its batches were made without the store's numbers: a resume cannot be told to send to them.
    const held = server.requests.length;
    const include = await bulk([file, '--resume', '--include-opted-out', '--yes'], env);
    assert.equal(include.code, 2);
    assert.match(include.stderr, /^error: --include-opted-out: run \S+ was started leaving out the numbers in the opt-out store, and a resume sends what its run started with; nothing was sent$/m);
    assert.match(include.stderr, /--restart --include-opted-out --yes/);
    assert.equal(server.requests.length, held);
    server.fallback = ACCEPT;
    const before = server.requests.length;
    const report = join(dir, 'r.csv');
    const resumed = await bulk([file, '--resume', '--report', report, '--json'], env);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /3 numbers opted out since run \S+ started: 2 rows of theirs left out of the batches not sent yet/);
    assert.match(resumed.stderr, /^ {2}1 of them had been sent the message by this run before they opted out: \+447911200701$/m);
    assert.match(resumed.stderr, /skipped before sending: 1 opted out \(suppressed\), 2 opted out since the run started/);
    assert.deepEqual(server.requests.slice(before).map(recipients), [[n[4]], [n[7]], [n[8]]]);
    const doc = JSON.parse(resumed.stdout) as { suppressedAfterStart: number; suppressed: number; accepted: number; notSent: number; exitCode: number };
    assert.deepEqual([doc.suppressedAfterStart, doc.suppressed, doc.accepted, doc.notSent, doc.exitCode], [2, 1, 7, 0, 0]);
    const rows = csvRows(report);
    assert.deepEqual(rows.map((r) => r.outcome), ['accepted', 'accepted', 'accepted', 'accepted', 'accepted', 'suppressed', 'suppressed', 'accepted', 'accepted', 'suppressed']);
    assert.match(rows[5]?.error ?? '', /^opted out since the run started: opted out since \S+, manual/);

    // msgr runs report says the same of every row, from the journal and the copy of the store.
    const again = join(dir, 'again.csv');
    const written = await runInProcess(['runs', 'report', file, '--report', again], { env });
    assert.equal(written.code, 0, written.stderr);
    const why = (r: Record<string, string>): string[] => [r.outcome ?? '', r.outcome === 'suppressed' ? (r.error ?? '').split(',')[0] ?? '' : ''];
    assert.deepEqual(csvRows(again).map(why), rows.map(why));

    const shown = await runInProcess(['runs', 'show', file], { env });
    assert.match(shown.stdout, /^rows {6}10, 9 to send, 1 suppressed \(opt-out store\), 2 opted out since it started$/m);
    assert.deepEqual((JSON.parse((await runInProcess(['runs', 'show', file, '--json'], { env })).stdout) as { suppressed: unknown }).suppressed, { atStart: 1, sinceStart: 2 });

    // The copy of the store stays with the run (for runs report) and goes with it when pruned.
    const runsDir = join(dir, 'state', 'runs');
    const [folder] = readdirSync(runsDir);
    assert.deepEqual(readdirSync(join(runsDir, folder ?? '')).filter((f) => f.startsWith('journal')).sort(), ['journal.jsonl', 'journal.jsonl.optouts-at-start']);
    const old = new Date(Date.now() - 40 * 86_400_000);
    utimesSync(join(runsDir, folder ?? '', 'journal.jsonl'), old, old);
    assert.equal((await runInProcess(['runs', 'prune', '--older-than', '30d'], { env })).code, 0);
    assert.deepEqual(readdirSync(runsDir), []);
  });

  test('a run started with an empty store keeps no copy of it, and its resume still leaves out numbers opted out while it was paused', async () => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: join(dir, 'state'), MSGR_API_KEY: 'k', MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: 'ACME05' });
    const n = Array.from({ length: 4 }, (_, i) => `+4479112${String(600 + i).padStart(5, '0')}`);
    const file = join(dir, 'c.csv');
    writeFileSync(file, `msisdn\n${n.join('\n')}\n`);
    server.script(ACCEPT, REFUSE);
    assert.equal((await bulk([file, ...MSG, '--batch-size', '2', '--concurrency', '1', '--yes'], env)).code, 3);
    const folder = readdirSync(join(dir, 'state', 'runs')).map((d) => join(dir, 'state', 'runs', d))[0] ?? '';
    assert.deepEqual(readdirSync(folder).filter((f) => f.startsWith('journal')), ['journal.jsonl']);
    assert.equal((await runInProcess(['optout', 'add', n[3] ?? ''], { env })).code, 0);
    server.fallback = ACCEPT;
    const before = server.requests.length;
    const resumed = await bulk([file, '--resume', '--json'], env);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(server.requests.slice(before).map(recipients), [[n[2]]]);
    assert.equal((JSON.parse(resumed.stdout) as { suppressedAfterStart: number }).suppressedAfterStart, 1);
  });

  test('optout violations: anyone messaged after their opt-out, by a run or send --once, against the store as it was when the message left; exit 0 either way', async () => {
    const dir = tempDir();
    const env = cleanEnv({ MSGR_CONFIG_DIR: join(dir, 'state'), MSGR_API_KEY: 'k', MSGR_BASE_URL: server.url, MSGR_ACCOUNT_REFERENCE: 'ACME02' });
    server.fallback = ACCEPT;
    const [early, late, back, other] = ['+447911200801', '+447911200802', '+447911200803', '+447911200804'];
    const first = join(dir, 'first.csv');
    writeFileSync(first, `msisdn\n${early}\n${back}\n`);
    assert.equal((await bulk([first, ...MSG, '--yes'], env)).code, 0);
    // Messaged before opting out: no violation. Opted out, then in again, then messaged: none either.
    assert.equal((await runInProcess(['optout', 'add', early, late, back], { env })).code, 0);
    assert.equal((await runInProcess(['optout', 'remove', back], { env })).code, 0);
    const none = await runInProcess(['optout', 'violations'], { env });
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, '');
    assert.match(none.stderr, /^no one was messaged after opting out \(checked 1 run and 0 --once messages of account ACME02\)$/m);

    const second = join(dir, 'second.csv');
    writeFileSync(second, `msisdn\n${late}\n${back}\n${other}\n`);
    const anyway = await bulk([second, ...MSG, '--include-opted-out', '--yes'], env);
    assert.equal(anyway.code, 0, anyway.stderr);
    server.answer = (req) => ({ status: 202, body: { messages: recipients(req).map((m) => ({ id: `once-${m}`, msisdn: m })) } });
    const once = await runInProcess(['send', '--to', early, ...MSG, '--once', 'welcome', '--include-opted-out', '--yes'], { env });
    server.answer = undefined;
    assert.equal(once.code, 0, once.stderr);

    const found = await runInProcess(['optout', 'violations'], { env });
    assert.equal(found.code, 0, found.stderr);
    const lines = found.stdout.trim().split('\n');
    assert.equal(lines.length, 2, found.stdout);
    assert.match(lines[0] ?? '', new RegExp(`^\\${late}  messaged \\S+ by run \\S+ line 2 \\(--include-opted-out\\): opted out since \\S+, manual$`));
    assert.match(lines[1] ?? '', new RegExp(`^\\${early}  messaged \\S+ by --once welcome, message id once-\\${early}: opted out since \\S+, manual$`));
    assert.match(found.stderr, /warning: 2 messages were sent to numbers that had opted out \(checked 2 runs and 1 --once message of account ACME02\)/);
    const doc = JSON.parse((await runInProcess(['optout', 'violations', '--json'], { env })).stdout) as { violations: Array<{ number: string; run: { includedOptedOut: boolean } | null; once: { key: string } | null; account: string }> };
    assert.deepEqual(doc.violations.map((v) => [v.number, v.account, v.run?.includedOptedOut ?? null, v.once?.key ?? null]), [[late, 'ACME02', true, null], [early, 'ACME02', null, 'welcome']]);
    // Another account's sends are not this store's business.
    const elsewhere = await runInProcess(['optout', 'violations', '--account', 'OTHER', '--json'], { env });
    assert.deepEqual((JSON.parse(elsewhere.stdout) as { violations: unknown[] }).violations, []);
  });
});
