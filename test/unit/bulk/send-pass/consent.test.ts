// Whether a person may be messaged, as send-bulk applies it (docs/optouts.md: "Sending", "Possible
// opt-outs", "Damage and repair"), run in-process against a fake API: a possible opt-out no one
// has decided on stops the run, named with its line, until a person decides; a store with lines
// that are not records stops it too. The e2e suite (optout-replies) goes through the listener.
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ExitCode, type MsgrError } from '../../../../src/errors.js';
import { optOutStorePath, OptOutStore, type StoreWriter } from '../../../../src/optouts/store.js';
import { accept, fakeApi, type FakeApi, type Responder } from '../../../support/fake-api.js';
import { fakeContext, testProcess } from '../../../support/fake-context.js';
import { bulkFiles, sendBulk } from '../../../support/in-process.js';

const writer: StoreWriter = { pid: testProcess.pid, isProcessAlive: testProcess.isProcessAlive, now: () => new Date('2030-01-01T09:00:00.000Z'), command: 'test' };

async function send(env: Record<string, string>, argv: string[], respond: Responder = accept): Promise<{ err: MsgrError | undefined; api: FakeApi; stderr: string }> {
  const api = fakeApi(respond);
  const ctx = fakeContext({ env, http: api.http });
  const err = await sendBulk(ctx, argv);
  return { err, api, stderr: ctx.err() };
}

const sentTo = (api: FakeApi): string[] => api.requests.flatMap((r) => (r.body.recipients ?? []).map((x) => x.msisdn));

describe('possible opt-outs in send-bulk', () => {
  test('a row whose number has one stops the run before anything is sent, naming it and its line, until a person decides', async () => {
    const c = bulkFiles(4, 'msgr-consent-');
    const store = OptOutStore.open(optOutStorePath(c.env.MSGR_CONFIG_DIR as string, 'ACME01'));
    await store.possible([{ number: c.numbers[2] as string, source: 'reply', evidence: { text: 'please remove me', matched: 'remove me', why: 'an informal request' } }], writer);
    const argv = [c.file, '--from', 'Acme', '--text', 'Hi', '--batch-size', '2', '--yes'];
    for (const trial of [[], ['--dry-run'], ['--preview']]) {
      const r = await send(c.env, [...argv, ...trial, '--json']);
      assert.equal(r.err?.exitCode, ExitCode.USAGE, `${trial.join(' ')}: ${r.err?.message ?? 'no error'}`);
      assert.match(r.err?.message ?? '', new RegExp(`1 row of .*list\\.csv whose number has a possible opt-out no one has decided on; nothing was sent:\\n  \\${c.numbers[2] as string} \\(line 4\\): "please remove me"`));
      assert.match(r.err?.hint ?? '', /msgr optout possible --accept \+447911100002 --account ACME01 \(an opt-out/);
      assert.deepEqual(r.api.requests, []);
      const doc = r.err?.toJson() as { stopped: string; possibleOptOuts: Array<{ number: string; lines: number[] }> };
      assert.equal(doc.stopped, 'possible-opt-outs');
      assert.deepEqual(doc.possibleOptOuts.map((p) => [p.number, p.lines]), [[c.numbers[2], [4]]]);
    }
    // --include-opted-out --yes is no decision on it: the run stops all the same.
    assert.equal((await send(c.env, [...argv, '--include-opted-out'])).err?.exitCode, ExitCode.USAGE);
    // Accepted: an opt-out like any other, left out; the rest are sent.
    await store.decide([c.numbers[2] as string], 'accept', writer);
    const r = await send(c.env, argv);
    assert.equal(r.err, undefined, r.err?.message);
    assert.deepEqual(sentTo(r.api), [c.numbers[0], c.numbers[1], c.numbers[3]]);
  });

  test('one that comes while a run is paused stops its resume when a batch still to send holds the number; not when only a batch sent has it', async () => {
    const c = bulkFiles(4, 'msgr-consent-');
    const argv = [c.file, '--from', 'Acme', '--text', 'Hi', '--batch-size', '2', '--concurrency', '1', '--yes'];
    const stop = new AbortController();
    const api = fakeApi((r, i) => {
      if (i === 0) stop.abort('SIGINT');
      return accept(r, i);
    });
    const err = await sendBulk({ ...fakeContext({ env: c.env, http: api.http }), interrupt: stop.signal }, argv);
    assert.equal(err?.exitCode, ExitCode.INTERRUPTED, err?.message);
    const store = OptOutStore.open(optOutStorePath(c.env.MSGR_CONFIG_DIR as string, 'ACME01'));
    // A number of the batch already accepted: no reason to stop.
    await store.possible([{ number: c.numbers[0] as string, source: 'reply', evidence: { text: 'no more texts' } }], writer);
    // One of a batch still to send: the resume stops, naming it.
    await store.possible([{ number: c.numbers[3] as string, source: 'reply', evidence: { text: 'unsub' } }], writer);
    const stopped = await send(c.env, [c.file, '--resume', '--yes']);
    assert.equal(stopped.err?.exitCode, ExitCode.USAGE, stopped.err?.message);
    assert.match(stopped.err?.message ?? '', /^the batches this resume would send hold 1 row whose number has a possible opt-out no one has decided on; nothing was sent:\n {2}\+447911100003: "unsub"/);
    assert.deepEqual(stopped.api.requests, []);
    await store.decide([c.numbers[3] as string], 'dismiss', writer);
    const resumed = await send(c.env, [c.file, '--resume', '--yes']);
    assert.equal(resumed.err, undefined, resumed.err?.message);
    assert.deepEqual(sentTo(resumed.api), [c.numbers[2], c.numbers[3]]);
  });

  test('dismissed, the number is sent to', async () => {
    const c = bulkFiles(2, 'msgr-consent-');
    const store = OptOutStore.open(optOutStorePath(c.env.MSGR_CONFIG_DIR as string, 'ACME01'));
    await store.possible([{ number: c.numbers[0] as string, source: 'reply', evidence: { text: "don't stop" } }], writer);
    assert.equal((await send(c.env, [c.file, '--from', 'Acme', '--text', 'Hi', '--yes'])).err?.exitCode, ExitCode.USAGE);
    await store.decide([c.numbers[0] as string], 'dismiss', writer);
    const r = await send(c.env, [c.file, '--from', 'Acme', '--text', 'Hi', '--yes']);
    assert.equal(r.err, undefined, r.err?.message);
    assert.deepEqual(sentTo(r.api), c.numbers);
  });
});

describe('a damaged opt-out store', () => {
  test('lines that are not records stop every run (exit 2, naming them and the repair); a last record without its newline counts', async () => {
    const c = bulkFiles(3, 'msgr-consent-');
    const path = optOutStorePath(c.env.MSGR_CONFIG_DIR as string, 'ACME01');
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, `${c.numbers[1] as string}\n`);
    const argv = [c.file, '--from', 'Acme', '--text', 'Hi', '--yes'];
    for (const trial of [[], ['--dry-run']]) {
      const r = await send(c.env, [...argv, ...trial]);
      assert.equal(r.err?.exitCode, ExitCode.USAGE);
      assert.match(r.err?.message ?? '', /ACME01\.jsonl has 1 line that is not a record \(line 1: "\+447911100001"\)/);
      assert.match(r.err?.hint ?? '', /msgr optout repair --account ACME01/);
      assert.deepEqual(r.api.requests, []);
    }
    // A record without its newline (a hand edit) is honoured.
    writeFileSync(path, `{"v":1,"op":"add","number":"${c.numbers[1] as string}","at":"2030-01-01T00:00:00Z","source":"manual"}`);
    const r = await send(c.env, argv);
    assert.equal(r.err, undefined, r.err?.message);
    assert.deepEqual(sentTo(r.api), [c.numbers[0], c.numbers[2]]);
  });
});

/** No answer to the first request (a timeout after it left): its batch is in doubt. */
const firstInDoubt: Responder = (r, i) => (i === 0 ? { kind: 'unknown', message: 'timed out', attempts: 1 } : accept(r, i));

/** A receipt as msgr listen keeps it, in the account's events file. */
function receipt(env: Record<string, string>, number: string, at: Date, n: number): void {
  const dir = join(env.MSGR_CONFIG_DIR as string, 'events');
  mkdirSync(dir, { recursive: true });
  const body = JSON.stringify({ type: 'message.status', id: `e${n}`, messageId: `m-${number}`, msisdn: number, status: 'delivered', final: true });
  appendFileSync(join(dir, 'ACME01.jsonl'), `${JSON.stringify({ v: 1, id: `ev_${n}`, receivedAt: at.toISOString(), key: `id:e${n}`, method: 'POST', path: '/', body })}\n`);
}

describe('in doubt meets consent', () => {
  test('a resend of a batch in doubt leaves out, and names, whoever opted out since the run started; under the same key', async () => {
    const c = bulkFiles(4, 'msgr-consent-');
    const argv = [c.file, '--from', 'Acme', '--text', 'Hi', '--batch-size', '2', '--concurrency', '1', '--yes'];
    const first = await send(c.env, argv, firstInDoubt);
    assert.equal(first.err?.exitCode, ExitCode.PARTIAL, first.err?.message);
    const key = first.api.requests[0]?.idempotencyKey;
    // A STOP from one of the batch in doubt's numbers while the run is paused.
    await OptOutStore.open(optOutStorePath(c.env.MSGR_CONFIG_DIR as string, 'ACME01')).add([{ number: c.numbers[1] as string, source: 'reply', evidence: { text: 'STOP', word: 'stop' } }], { ...writer, now: () => new Date() });
    const resend = await send(c.env, [c.file, '--resume', '--resend-in-doubt', '--yes']);
    assert.equal(resend.err, undefined, resend.err?.message);
    assert.deepEqual(resend.api.requests.map((r) => [r.idempotencyKey, (r.body.recipients ?? []).map((x) => x.msisdn)]), [[key, [c.numbers[0]]]]);
    assert.match(resend.stderr, new RegExp(`warning: 1 number in the batches in doubt opted out \\(or went on the --exclude list\\) since run \\S+ started, and is left out of their resend \\(the first request may have reached it\\): \\${c.numbers[1] as string}`));
  });

  test("a resend without a number that opted out, answered 422 (the key holds the first request's body), stays in doubt: the first request reached the API", async () => {
    const c = bulkFiles(2, 'msgr-consent-');
    const argv = [c.file, '--from', 'Acme', '--text', 'Hi', '--batch-size', '2', '--yes'];
    assert.equal((await send(c.env, argv, firstInDoubt)).err?.exitCode, ExitCode.PARTIAL);
    await OptOutStore.open(optOutStorePath(c.env.MSGR_CONFIG_DIR as string, 'ACME01')).add([{ number: c.numbers[1] as string, source: 'reply' }], { ...writer, now: () => new Date() });
    const conflict: Responder = () => ({ kind: 'rejected', status: 422, body: {}, message: 'Idempotency-Key reused with another body', attempts: 1 });
    const resend = await send(c.env, [c.file, '--resume', '--resend-in-doubt', '--yes', '--json'], conflict);
    assert.equal(resend.err?.exitCode, ExitCode.PARTIAL, resend.err?.message);
    const doc = resend.err?.toJson() as { rejected: number; inDoubt: number };
    assert.deepEqual([doc.rejected, doc.inDoubt], [0, 1]);
    assert.deepEqual(resend.api.requests.map((r) => (r.body.recipients ?? []).map((x) => x.msisdn)), [[c.numbers[0]]]);
  });

  test('receipts settle doubt: a resume records the batch as accepted and sends nothing; the exit-7 hint and a restart say what the receipts show', async () => {
    const c = bulkFiles(4, 'msgr-consent-');
    const argv = [c.file, '--from', 'Acme', '--text', 'Hi', '--batch-size', '2', '--concurrency', '1', '--yes'];
    const first = await send(c.env, argv, firstInDoubt);
    assert.equal(first.err?.exitCode, ExitCode.PARTIAL);
    // No receipt yet: the hint says to check, and offers the resend.
    assert.match(first.err?.hint ?? '', /Check first whether the 2 recipients in doubt got the message \(`msgr runs show \S+` lists them\); send them again under their original Idempotency-Keys .*--resend-in-doubt/);
    // A restart offers only the resend: no receipt shows they got it.
    const restart = await send(c.env, [...argv, '--restart']);
    assert.equal(restart.err?.exitCode, ExitCode.USAGE);
    assert.match(restart.err?.hint ?? '', /^No receipt shows that they got it: check them first .*then add --resend-in-doubt/);
    assert.doesNotMatch(restart.err?.hint ?? '', /--skip-in-doubt/);
    // One receipt of two: still in doubt, and said so.
    const sentAt = new Date(Date.now() + 1000);
    receipt(c.env, c.numbers[0] as string, sentAt, 1);
    const { showRun } = await import('../../../../src/bulk/runs-door.js');
    const ctx = fakeContext({ env: c.env });
    let view = await showRun(ctx, c.file);
    assert.deepEqual(view.inDoubt.map((b) => [b.batch, b.withReceipt, b.settled]), [[0, 1, false]]);
    assert.equal(view.settledByReceipts, 0);
    // Both: settled. runs show counts them accepted; a restart offers --skip-in-doubt; a resume records them.
    receipt(c.env, c.numbers[1] as string, sentAt, 2);
    view = await showRun(ctx, c.file);
    assert.deepEqual(view.inDoubt.map((b) => [b.batch, b.withReceipt, b.settled]), [[0, 2, true]]);
    assert.equal(view.settledByReceipts, 2);
    const restart2 = await send(c.env, [...argv, '--restart']);
    assert.match(restart2.err?.hint ?? '', /^The receipts show every one of them .* Add --skip-in-doubt to leave them out as accepted, or --resend-in-doubt/);
    const resumed = await send(c.env, [c.file, '--resume', '--yes']);
    assert.equal(resumed.err, undefined, resumed.err?.message);
    assert.deepEqual(resumed.api.requests, []);
    assert.match(resumed.stderr, /the receipts show every recipient of 1 batch left in doubt \(2 rows\): recorded as accepted, not sent again/);
    const journal = readFileSync(view.journal, 'utf8');
    assert.match(journal, /"type":"done","batch":0,"outcome":"accepted","ids":\["m-\+447911100000","m-\+447911100001"\],"settledBy":"receipts"/);
  });

  test('a receipt of another message of the run, or one from before the batch left, settles nothing', async () => {
    const c = bulkFiles(2, 'msgr-consent-');
    const first = await send(c.env, [c.file, '--from', 'Acme', '--text', 'Hi', '--batch-size', '1', '--concurrency', '1', '--yes'], firstInDoubt);
    assert.equal(first.err?.exitCode, ExitCode.PARTIAL);
    receipt(c.env, c.numbers[0] as string, new Date(Date.now() - 3_600_000), 1);
    const { showRun } = await import('../../../../src/bulk/runs-door.js');
    const view = await showRun(fakeContext({ env: c.env }), c.file);
    assert.deepEqual(view.inDoubt.map((b) => [b.numbers, b.withReceipt]), [[[c.numbers[0]], 0]]);
  });

  test('optout violations tells a resend under the same Idempotency-Key of a batch first sent before the opt-out from a new message', async () => {
    const c = bulkFiles(4, 'msgr-consent-');
    // A run told to send to opted-out numbers too: its resend keeps them (the journal says it was told).
    const argv = [c.file, '--from', 'Acme', '--text', 'Hi', '--batch-size', '2', '--concurrency', '1', '--yes', '--include-opted-out'];
    assert.equal((await send(c.env, argv, firstInDoubt)).err?.exitCode, ExitCode.PARTIAL);
    await new Promise((r) => setTimeout(r, 20));
    const store = OptOutStore.open(optOutStorePath(c.env.MSGR_CONFIG_DIR as string, 'ACME01'));
    await store.add([{ number: c.numbers[1] as string, source: 'reply', evidence: { text: 'STOP' } }, { number: c.numbers[3] as string, source: 'reply', evidence: { text: 'STOP' } }], { ...writer, now: () => new Date() });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal((await send(c.env, [c.file, '--resume', '--resend-in-doubt', '--yes'])).err, undefined);
    // A new run to the number that opted out after the first: a new message.
    writeFileSync(join(c.dir, 'other.csv'), `msisdn\n${c.numbers[3] as string}\n`);
    assert.equal((await send(c.env, [join(c.dir, 'other.csv'), '--from', 'Acme', '--text', 'Other', '--yes', '--include-opted-out'])).err, undefined);
    const { runViolations } = await import('../../../../src/commands/optout/violations/run.js');
    const { createUi } = await import('../../../../src/output/ui.js');
    const ctx = fakeContext({ env: c.env });
    await runViolations(ctx, createUi(ctx, {}), { account: undefined, sandbox: false, json: true });
    const doc = JSON.parse(ctx.out()) as { violations: Array<{ number: string; resend: { firstSentAt: string; idempotencyKey: string } | null }> };
    assert.deepEqual(doc.violations.map((v) => [v.number, v.resend !== null]), [[c.numbers[1], true], [c.numbers[3], false]]);
    assert.match(doc.violations[0]?.resend?.idempotencyKey ?? '', /^msgr-\S+-0$/);
    const text = fakeContext({ env: c.env });
    await runViolations(text, createUi(text, {}), { account: undefined, sandbox: false, json: false });
    assert.match(text.out(), new RegExp(`^\\${c.numbers[1] as string}  messaged \\S+ by run \\S+ line 3 \\(--include-opted-out\\), message id \\S+ \\(a resend, under the same Idempotency-Key, of a request first sent \\S+, before the opt-out: possibly the API's replay of that one, not a new message\\): opted out`, 'm'));
    assert.match(text.err(), /2 messages were sent to numbers that had opted out \(1 of them resends of requests first sent before the opt-out, under the same Idempotency-Key: possibly replays\)/);
  });
});
