// The opt-out store as a run starts, over a store far larger than the file (docs/optouts.md:
// "Sending"; docs/design.md: "Opt-outs in a run"): a small run asks the store's index for its rows'
// numbers rather than listing the store, keeps beside its journal the numbers of its rows the store
// had, and its resume counts and leaves out only those of its rows opted out since. A copy of the
// whole store, as an earlier msgr kept it, still resumes. In-process, against a fake API.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ExitCode, type MsgrError } from '../../../src/errors.js';
import { optOutStorePath, OptOutStore, type StoreWriter } from '../../../src/optouts/store.js';
import { accept, fakeApi, type FakeApi } from '../../support/fake-api.js';
import { fakeContext, testProcess } from '../../support/fake-context.js';
import { bulkFiles, runInProcess, sendBulk } from '../../support/in-process.js';

const writer: StoreWriter = { pid: testProcess.pid, isProcessAlive: testProcess.isProcessAlive, now: () => new Date(), command: 'test' };

/** Numbers no row of the files has, `n` of them from `from` on. */
function others(n: number, from: number): string[] {
  return Array.from({ length: n }, (_, i) => `+4479222${String(from + i).padStart(5, '0')}`);
}

/** Opts `numbers` out in the account's store (`_all`: the store for every account). */
async function optOut(env: Record<string, string>, numbers: readonly string[], account = 'ACME01'): Promise<void> {
  await OptOutStore.open(optOutStorePath(env.MSGR_CONFIG_DIR as string, account)).add(numbers.map((number) => ({ number, source: 'reply' })), writer);
}

async function send(env: Record<string, string>, argv: string[], stopAfter?: number): Promise<{ err: MsgrError | undefined; api: FakeApi; stderr: string }> {
  const stop = new AbortController();
  const api = fakeApi((r, i) => {
    if (i === stopAfter) stop.abort('SIGINT');
    return accept(r, i);
  });
  const ctx = { ...fakeContext({ env, http: api.http }), interrupt: stop.signal };
  const err = await sendBulk(ctx, argv);
  return { err, api, stderr: ctx.err() };
}

const sentTo = (api: FakeApi): string[][] => api.requests.map((r) => (r.body.recipients ?? []).map((x) => x.msisdn));

/** The run's journal (the state folder's one run). */
function journalOf(env: Record<string, string>): string {
  const runs = join(env.MSGR_CONFIG_DIR as string, 'runs');
  const [folder] = readdirSync(runs);
  return join(runs, folder ?? '', 'journal.jsonl');
}

const snapshot = (journal: string): string[] => readFileSync(`${journal}.optouts-at-start`, 'utf8').split('\n').filter(Boolean).sort();

/** Each row's outcome, and why a suppressed row was left out (up to its first comma, without the time), from `msgr runs report`. */
async function reported(env: Record<string, string>, file: string, dir: string): Promise<string[]> {
  const out = join(dir, 'report.csv');
  const r = await runInProcess(['runs', 'report', file, '--report', out], { env });
  assert.equal(r.code, 0, r.stderr);
  const [head, ...lines] = readFileSync(out, 'utf8').trim().split('\n');
  const cols = (head ?? '').split(',');
  return lines.map((l) => {
    const cells = l.split(',');
    const outcome = cells[cols.indexOf('outcome')] ?? '';
    return outcome === 'suppressed' ? `${outcome}: ${(cells[cols.indexOf('error')] ?? '').replace(/^"/, '').replace(/ \d{4}-\S+Z$/, '')}` : outcome;
  });
}

describe('a small run over a large opt-out store', () => {
  test('a dry run asks the store for its rows, never lists it (a damaged slot of a number no row has goes unread); one that may run in worker threads lists it', async () => {
    const c = bulkFiles(20, 'msgr-store-at-start-');
    await optOut(c.env, [...others(2_000, 0), c.numbers[3] as string, c.numbers[9] as string]);
    // The store for every account: one number the account's has too (counted once), one more.
    await optOut(c.env, [...others(1, 0), ...others(1, 7_000)], '_all');
    // A slot of a number no row has, made to fail its checksum: listing the store reads every
    // slot, finds it, and makes the index again from the store; asking for the rows' numbers does not.
    const index = `${optOutStorePath(c.env.MSGR_CONFIG_DIR as string, 'ACME01')}.index`;
    const bytes = readFileSync(index);
    const rows = new Set(c.numbers);
    let slot = 4096;
    while (bytes.readUIntLE(slot, 6) === 0 || ((bytes[slot + 7] as number) & 1) === 0 || rows.has(`+${bytes.readUIntLE(slot, 6) + (bytes[slot + 6] as number) * 2 ** 48}`)) slot += 32;
    bytes[slot + 12] = (bytes[slot + 12] as number) ^ 0xff;
    writeFileSync(index, bytes);

    const r = await send(c.env, [c.file, '--from', 'Acme', '--text', 'Hi', '--dry-run']);
    assert.equal(r.err, undefined, r.err?.message);
    assert.match(r.stderr, /20 rows, 20 valid, 2 opted out/);
    assert.match(r.stderr, /opted out: 2 rows left out, suppressed \(the opt-out store of account ACME01, 2,003 numbers/);
    assert.ok(readFileSync(index).equals(bytes), 'the index was made again: the store was listed');
    // A pass that may run in worker threads is given the store listed (the index made again on
    // the way), and leaves out the same rows.
    const listed = await send({ ...c.env, MSGR_BULK_PARALLEL_MIN_BYTES: '0' }, [c.file, '--from', 'Acme', '--text', 'Hi', '--dry-run']);
    assert.equal(listed.err, undefined, listed.err?.message);
    assert.match(listed.stderr, /20 rows, 20 valid, 2 opted out/);
    assert.ok(!readFileSync(index).equals(bytes));
  });

  test('a run keeps the numbers of its rows the store had; its resume leaves out those opted out while it was paused, counts only those, and still leaves out one taken off the store', async () => {
    const c = bulkFiles(8, 'msgr-store-at-start-');
    const n = c.numbers;
    await optOut(c.env, [...others(2_000, 0), n[7] as string]);
    const argv = [c.file, '--from', 'Acme', '--text', 'Hi', '--batch-size', '2', '--concurrency', '1', '--yes'];
    // Stopped after its first batch: [n0, n1] accepted; [n2, n3], [n4, n5], [n6] not sent.
    const first = await send(c.env, argv, 0);
    assert.equal(first.err?.exitCode, ExitCode.INTERRUPTED, first.err?.message);
    assert.deepEqual(sentTo(first.api), [[n[0], n[1]]]);
    const journal = journalOf(c.env);
    assert.deepEqual(snapshot(journal), [n[7]]);

    // While it is paused: STOP from one it messaged, one it has not, and 300 numbers no row has;
    // the one left out at the start opts in again (taken off the store).
    await optOut(c.env, [n[1] as string, n[4] as string, ...others(300, 5_000)]);
    assert.equal((await runInProcess(['optout', 'remove', '--account', 'ACME01', n[7] as string], { env: c.env })).code, 0);
    const resumed = await send(c.env, [c.file, '--resume', '--yes', '--json']);
    assert.equal(resumed.err, undefined, resumed.err?.message);
    // Of the two, n1 had the message before it opted out: only n4's row is left out.
    assert.match(resumed.stderr, /^2 numbers opted out since run \S+ started: 1 row of theirs left out of the batches not sent yet$/m);
    assert.match(resumed.stderr, new RegExp(`^ {2}1 of them had been sent the message by this run before they opted out: \\${n[1]}$`, 'm'));
    // n4's row is left out: not counted as left to send.
    assert.match(resumed.stderr, /^ {2}left to send by this resume: 4 recipients \(earlier: 2 accepted\)$/m);
    assert.deepEqual(sentTo(resumed.api), [[n[2], n[3]], [n[5]], [n[6]]]);
    assert.deepEqual(await reported(c.env, c.file, c.dir), ['accepted', 'accepted', 'accepted', 'accepted', 'suppressed: opted out since the run started: opted out since', 'accepted', 'accepted', 'suppressed: opted out since']);
  });

  test('a copy of the whole store, as an earlier msgr kept it, still resumes and reports as it did; a copy gone refuses the resume', async () => {
    const c = bulkFiles(6, 'msgr-store-at-start-');
    const n = c.numbers;
    const unrelated = others(50, 0);
    await optOut(c.env, [...unrelated, n[5] as string]);
    const argv = [c.file, '--from', 'Acme', '--text', 'Hi', '--batch-size', '2', '--concurrency', '1', '--yes'];
    const first = await send(c.env, argv, 0);
    assert.equal(first.err?.exitCode, ExitCode.INTERRUPTED, first.err?.message);
    const journal = journalOf(c.env);
    // The copy an earlier msgr kept: every number of the store as the run started.
    writeFileSync(`${journal}.optouts-at-start`, [...unrelated, n[5]].map((x) => `${x}\n`).join(''));
    // Its header, without the digest of the copy that msgr did not keep.
    const [head, ...rest] = readFileSync(journal, 'utf8').split('\n');
    const header = JSON.parse(head ?? '') as { optOuts: { copy?: string } };
    assert.equal(typeof header.optOuts.copy, 'string');
    delete header.optOuts.copy;
    writeFileSync(journal, [JSON.stringify(header), ...rest].join('\n'));

    await optOut(c.env, [n[3] as string, ...others(10, 9_000)]);
    assert.equal((await runInProcess(['optout', 'remove', '--account', 'ACME01', n[5] as string, unrelated[0] as string], { env: c.env })).code, 0);
    const resumed = await send(c.env, [c.file, '--resume', '--yes']);
    assert.equal(resumed.err, undefined, resumed.err?.message);
    assert.match(resumed.stderr, /^1 number opted out since run \S+ started: 1 row of theirs left out of the batches not sent yet$/m);
    assert.doesNotMatch(resumed.stderr, /had been sent the message/);
    assert.deepEqual(sentTo(resumed.api), [[n[2]], [n[4]]]);
    assert.deepEqual(await reported(c.env, c.file, c.dir), ['accepted', 'accepted', 'accepted', 'suppressed: opted out since the run started: opted out since', 'accepted', 'suppressed: opted out since']);

    // A run paused again, its copy gone: its batches cannot be rebuilt, and the resume says so.
    const d = bulkFiles(4, 'msgr-store-at-start-');
    await optOut(d.env, [...others(50, 0), d.numbers[3] as string]);
    assert.equal((await send(d.env, [d.file, '--from', 'Acme', '--text', 'Hi', '--batch-size', '1', '--concurrency', '1', '--yes'], 0)).err?.exitCode, ExitCode.INTERRUPTED);
    rmSync(`${journalOf(d.env)}.optouts-at-start`);
    const refused = await send(d.env, [d.file, '--resume', '--yes']);
    assert.equal(refused.err?.exitCode, ExitCode.USAGE);
    assert.match(refused.err?.message ?? '', /^--resume: the copy of the opt-out store that run \S+ started with \(.*journal\.jsonl\.optouts-at-start\) is gone, so its batches cannot be rebuilt; nothing was sent$/);
    assert.match(refused.err?.hint ?? '', /^Restore that file from a backup and resume again, or start a new run with --restart/);
    assert.deepEqual(refused.api.requests, []);
  });

  test('a copy changed since the run kept it (one number swapped for another, or cut short) refuses the resume: the number swapped out was opted in again while it was paused, and is not sent', async () => {
    const c = bulkFiles(6, 'msgr-store-at-start-');
    const n = c.numbers;
    await optOut(c.env, [...others(50, 0), n[3] as string]);
    const argv = [c.file, '--from', 'Acme', '--text', 'Hi', '--batch-size', '1', '--concurrency', '1', '--yes'];
    assert.equal((await send(c.env, argv, 0)).err?.exitCode, ExitCode.INTERRUPTED);
    const copy = `${journalOf(c.env)}.optouts-at-start`;
    assert.deepEqual(snapshot(journalOf(c.env)), [n[3]]);
    // Opted in again while paused; the copy now names another of its rows instead (as many lines).
    assert.equal((await runInProcess(['optout', 'remove', '--account', 'ACME01', n[3] as string], { env: c.env })).code, 0);
    for (const text of [`${n[4]}\n`, '']) {
      writeFileSync(copy, text);
      const refused = await send(c.env, [c.file, '--resume', '--yes']);
      assert.equal(refused.err?.exitCode, ExitCode.USAGE, refused.err?.message);
      assert.match(refused.err?.message ?? '', /^--resume: the copy of the opt-out store that run \S+ started with \(.*journal\.jsonl\.optouts-at-start\) was changed since the run kept it, so its batches cannot be rebuilt; nothing was sent$/);
      assert.match(refused.err?.hint ?? '', /^Restore that file from a backup and resume again, or start a new run with --restart/);
      assert.deepEqual(refused.api.requests, []);
      const report = await runInProcess(['runs', 'report', c.file, '--report', join(c.dir, 'r.csv')], { env: c.env });
      assert.match(report.stderr, /the copy of the opt-out store it started with was changed since/);
    }
    // The copy as it was kept: the resume sends the rest, and still leaves out the one opted in again.
    writeFileSync(copy, `${n[3]}\n`);
    const resumed = await send(c.env, [c.file, '--resume', '--yes']);
    assert.equal(resumed.err, undefined, resumed.err?.message);
    assert.deepEqual(sentTo(resumed.api), [[n[1]], [n[2]], [n[4]], [n[5]]]);
  });
});
