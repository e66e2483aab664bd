// Whether a person may be messaged, as send-bulk applies it (docs/optouts.md: "Sending", "Possible
// opt-outs", "Damage and repair"), run in-process against a fake API: a possible opt-out no one
// has decided on stops the run, named with its line, until a person decides; a store with lines
// that are not records stops it too. The e2e suite (optout-replies) goes through the listener.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ExitCode, type MsgrError } from '../../../../src/errors.js';
import { optOutStorePath, OptOutStore, type StoreWriter } from '../../../../src/optouts/store.js';
import { fakeApi, type FakeApi } from '../../../support/fake-api.js';
import { fakeContext, testProcess } from '../../../support/fake-context.js';
import { bulkFiles, sendBulk } from '../../../support/in-process.js';

const writer: StoreWriter = { pid: testProcess.pid, isProcessAlive: testProcess.isProcessAlive, now: () => new Date('2030-01-01T09:00:00.000Z'), command: 'test' };

async function send(env: Record<string, string>, argv: string[]): Promise<{ err: MsgrError | undefined; api: FakeApi; stderr: string }> {
  const api = fakeApi();
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
