// Run identity, "the same message", numbers left out and the runs kept: pure rules, and journals
// written to a temporary folder.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ExitCode, UsageError } from '../../../../src/errors.js';
import type { JournaledTarget, RunHeader } from '../../../../src/bulk/journal/records.js';
import { numberKey } from '../../../../src/bulk/input/number-set.js';
import type { LockProcess } from '../../../../src/files/lock.js';
import { checkResumeTarget, describeTarget, journaledTarget, keyFingerprint, targetDifferences } from '../../../../src/bulk/this-run/where.js';
import { findRun, listRuns, pruneRuns } from '../../../../src/bulk/history/catalogue.js';
import { checkSentRun, loadSentNumbers, withSentIds } from '../../../../src/bulk/earlier/already-sent.js';
import type { SpoolKind } from '../../../../src/bulk/preflight/spool.js';
import { definitionDifferences } from '../../../../src/bulk/compose/definition.js';
import { ensureDir, stateWriteError } from '../../../../src/files/dirs.js';
import { messageDifferences } from '../../../../src/message/same-message.js';
import { parseAge } from '../../../../src/commands/runs/prune/options.js';
import { runHeader } from '../../../support/journal.js';
import { tempDir } from '../../../support/cli.js';

const real: JournaledTarget = { baseUrl: 'https://eu.api.example.com', account: 'ACME01', profile: 'prod', sandbox: false, keyFingerprint: keyFingerprint('key-one') };

function header(runId: string, over: Partial<RunHeader> = {}): RunHeader {
  return runHeader({
    runId,
    createdAt: '2026-11-20T10:00:00.000Z',
    msgr: '0.1.0',
    input: { path: '/data/c.csv', stdin: false, size: 1, mtimeMs: 0, quickHash: 'q', hash: 'h' },
    message: { accountReference: 'ACME01', channel: 'SMS', from: 'Acme', body: { text: 'Hello' }, validity: '2026-11-20T12:00:00.000+00:00' },
    totals: { rows: 4, toSend: 4, requests: 2 },
    target: real,
    ...over,
  });
}

/** This process at `iso`, for prune's age and locks (every other process on this host is gone). */
const at = (iso: string): LockProcess => ({ pid: process.pid, now: () => new Date(iso), isProcessAlive: () => false });

function journal(dir: string, name: string, h: RunHeader, lines: object[]): string {
  const path = join(dir, name);
  writeFileSync(path, [h, ...lines].map((l) => JSON.stringify(l)).join('\n') + '\n');
  return path;
}

describe('run identity', () => {
  test('the key fingerprint is 12 hex characters, stable, domain-separated, never the key', () => {
    const fp = keyFingerprint('secret-key-123');
    assert.match(fp, /^[0-9a-f]{12}$/);
    assert.equal(fp, keyFingerprint('secret-key-123'));
    assert.notEqual(fp, keyFingerprint('secret-key-124'));
    // Not the plain SHA-256 of the key, which anyone could compare against.
    assert.notEqual(fp, createHash('sha256').update('secret-key-123').digest('hex').slice(0, 12));
    assert.doesNotMatch(describeTarget(real), /key-one/);
  });

  test('the sandbox is journaled as such (its port changes every run)', () => {
    const t = journaledTarget({ endpoint: new URL('http://127.0.0.1:40123/v2/messages'), apiKey: 'sandbox-key', sandbox: true, profile: undefined, account: 'SANDBOX' });
    assert.deepEqual([t.baseUrl, t.sandbox, t.profile], ['sandbox', true, null]);
    const r = journaledTarget({ endpoint: new URL('https://eu.api.example.com/v2/messages'), apiKey: 'k', sandbox: false, profile: 'prod', account: 'A' });
    assert.equal(r.baseUrl, 'https://eu.api.example.com');
  });

  test('base URL, account and sandbox decide; the profile and the key do not', () => {
    assert.deepEqual(targetDifferences(real, { ...real, profile: 'other', keyFingerprint: keyFingerprint('key-two') }), []);
    assert.deepEqual(targetDifferences(real, { ...real, baseUrl: 'https://us.api.example.com' }), ['base URL https://eu.api.example.com then, https://us.api.example.com now']);
    assert.deepEqual(targetDifferences(real, { ...real, account: 'ACME02' }), ['account ACME01 then, ACME02 now']);
    assert.deepEqual(targetDifferences({ ...real, sandbox: true, baseUrl: 'sandbox' }, real), ['it ran against the sandbox, this run sends for real']);
  });

  test('a resume against another target is a usage error naming both; no account given means the journal\'s', () => {
    const h = header('r1');
    assert.throws(
      () => checkResumeTarget(h, { ...real, baseUrl: 'https://us.api.example.com' }, true),
      (e: unknown) => e instanceof UsageError && e.exitCode === ExitCode.USAGE && /sent to https:\/\/eu\.api\.example\.com.*would send to https:\/\/us\.api\.example\.com/.test(e.message),
    );
    assert.deepEqual(checkResumeTarget(h, { ...real, account: 'OTHER' }, false), { known: true });
    assert.throws(() => checkResumeTarget(h, { ...real, account: 'OTHER' }, true), /account ACME01 then, OTHER now/);
    assert.match(checkResumeTarget(h, { ...real, keyFingerprint: keyFingerprint('key-two') }, true).note ?? '', /API key differs .*fingerprint [0-9a-f]{12} then, [0-9a-f]{12} now/);
    const { target: _t, ...legacy } = h;
    assert.deepEqual(checkResumeTarget(legacy, real, true), { known: false });
  });
});

describe('the same message', () => {
  const m = header('r').message;
  test('equal apart from recipients and validity, whatever the key order', () => {
    assert.deepEqual(messageDifferences(m, { validity: 'later', body: { text: 'Hello' }, from: 'Acme', channel: 'SMS', accountReference: 'ACME01' }), []);
    assert.deepEqual(messageDifferences(m, { ...m, body: { text: 'Hello!' } }), ['body']);
    assert.deepEqual(messageDifferences(m, { ...m, from: 'Other', metaData: { c: '1' } }), ['from', 'metaData']);
  });

  test('with a message per row: the same template and columns, not the same rendered texts', () => {
    const spec = { render: true, textColumn: null, fromColumn: null, maxParts: null };
    const hi = { message: { ...m, body: { text: 'Hi {{name}}' } }, personal: spec };
    // The template is what is compared; --max-parts and the case of a column's name are not.
    assert.deepEqual(definitionDifferences(hi, { ...hi, personal: { ...spec, maxParts: 2 } }), []);
    assert.deepEqual(definitionDifferences(hi, { ...hi, message: { ...m, body: { text: 'Hi {{first}}' } } }), ['body']);
    assert.deepEqual(definitionDifferences(hi, { ...hi, personal: { ...spec, render: false } }), ['--no-render']);
    // Before messages per row (no spec), placeholders were sent as written.
    assert.deepEqual(definitionDifferences(hi, { message: hi.message }), ['--no-render']);
    assert.deepEqual(definitionDifferences({ message: hi.message, personal: { ...spec, render: false } }, { message: hi.message }), []);
    // Without `{{` in the text, rendering changes nothing.
    assert.deepEqual(definitionDifferences({ message: m, personal: spec }, { message: m }), []);
    const { from: _from, ...noFrom } = m;
    const cells = { message: { ...noFrom, body: {} }, personal: { ...spec, textColumn: 'Message', fromColumn: 'sender' } };
    assert.deepEqual(definitionDifferences(cells, { ...cells, personal: { ...cells.personal, textColumn: ' message ' } }), []);
    assert.deepEqual(definitionDifferences(cells, { ...cells, personal: { ...cells.personal, textColumn: 'text2' } }), ['--text-column']);
    assert.deepEqual(definitionDifferences(cells, { message: { ...m, body: {} }, personal: { ...cells.personal, fromColumn: null } }), ['from', '--from-column']);
  });
});

describe('numbers left out', () => {
  const dir = tempDir('msgr-runs-unit-');
  const a = journal(dir, 'a.jsonl', header('A'), [
    { type: 'send', batch: 0, first: 0, count: 2, key: 'k0', lines: [2, 3], numbers: ['+447911100001', '+447911100002'] },
    { type: 'done', batch: 0, outcome: 'accepted', status: 202, ids: ['m1', null] },
    { type: 'send', batch: 1, first: 2, count: 2, key: 'k1', lines: [4, 5], numbers: ['+447911100003', '+447911100004'] },
  ]);
  const b = journal(dir, 'b.jsonl', header('B', { skipSent: [{ runId: 'A', journal: a, bytes: 1_000_000 }] }), [
    { type: 'send', batch: 0, first: 0, count: 1, key: 'k0', lines: [2], numbers: ['+447911100005'] },
    { type: 'done', batch: 0, outcome: 'accepted', status: 202, ids: ['m5'] },
  ]);

  test('accepted numbers are left out, through the runs a run left out; in-doubt ones are counted, not left out', async () => {
    const sent = await loadSentNumbers([{ journal: b }], { flag: '--skip-sent', wantIds: true });
    assert.deepEqual(['+447911100001', '+447911100002', '+447911100005', '+447911100003'].map((n) => sent.accepted.has(numberKey(n))), [true, true, true, false]);
    assert.equal(sent.inDoubt, 2);
    assert.deepEqual(sent.ids?.get(numberKey('+447911100001')), { runId: 'A', id: 'm1' });
    assert.deepEqual(sent.ids?.get(numberKey('+447911100002')), { runId: 'A', id: null });
    assert.deepEqual(sent.named.map((r) => r.runId), ['B']);
  });

  test('a journal read as it was: only its first bytes', async () => {
    const firstTwo = Buffer.byteLength(readLines(a).slice(0, 2).join('\n') + '\n');
    const sent = await loadSentNumbers([{ journal: a, bytes: firstTwo }], { flag: '--skip-sent', wantIds: false });
    // Then batch 0 was in flight (in doubt), its answer and batch 1 still to come.
    assert.equal(sent.accepted.size, 0);
    assert.equal(sent.inDoubt, 2);
    assert.ok(sent.accepted.has(numberKey('+447911100001')) === false);
  });

  test('the spool: rows the preflight left out as already sent name the run and id', async () => {
    const sent = await loadSentNumbers([{ journal: a }], { flag: '--skip-sent', wantIds: true });
    const rows: Array<[SpoolKind, string, string]> = [];
    await withSentIds(async (onLine) => {
      onLine('A', 2, '+447911100001', '');
      onLine('D', 3, '+447911100001', '');
      onLine('A', 4, '+447911100002', '');
      onLine('S', 5, '+447911100009', '{"msisdn":"+447911100009"}');
      await Promise.resolve();
    }, sent)((kind, _line, number, payload) => rows.push([kind, number, payload]));
    assert.deepEqual(rows, [
      ['A', '+447911100001', '{"runId":"A","id":"m1"}'],
      ['D', '+447911100001', ''],
      ['A', '+447911100002', '{"runId":"A","id":null}'],
      ['S', '+447911100009', '{"msisdn":"+447911100009"}'],
    ]);
  });

  test('another message, or a sandbox run for a real one, is refused', async () => {
    const sent = await loadSentNumbers([{ journal: a }], { flag: '--skip-sent', wantIds: false });
    const run = sent.named[0];
    assert.ok(run !== undefined);
    const message = run.header.message;
    assert.equal(checkSentRun(run, { message: { ...message, validity: 'other' } }, real, '--skip-sent'), undefined);
    assert.throws(() => checkSentRun(run, { message: { ...message, body: { text: 'Bye' } } }, real, '--skip-sent'), /sent another message \(body differs\)/);
    assert.throws(() => checkSentRun(run, { message: { ...message, body: {} }, personal: { render: true, textColumn: 'text', fromColumn: null, maxParts: null } }, real, '--skip-sent'), (e: unknown) => e instanceof UsageError && /sent another message \(body, --text-column differ\)/.test(e.message) && /the same template and columns/.test(e.hint ?? ''));
    assert.throws(() => checkSentRun({ ...run, header: { ...run.header, target: { ...real, sandbox: true } } }, { message }, real, '--skip-sent'), /went to the sandbox/);
    assert.match(checkSentRun(run, { message }, { ...real, baseUrl: 'https://us.api.example.com' }, '--skip-sent') ?? '', /left out all the same/);
  });

  test('a journal of an earlier msgr, without numbers, is named as such', async () => {
    const old = journal(dir, 'old.jsonl', header('OLD'), [{ type: 'send', batch: 0, first: 0, count: 2, key: 'k0' }, { type: 'done', batch: 0, outcome: 'accepted' }]);
    await assert.rejects(loadSentNumbers([{ journal: old }], { flag: '--skip-sent', wantIds: false }), /did not record the numbers of each batch/);
  });
});

function readLines(path: string): string[] {
  return readFileSync(path, 'utf8').trim().split('\n');
}

describe('runs in the state folder', () => {
  test('list, find by id, file or journal, and prune only old finished or abandoned runs not needed by unfinished ones', async () => {
    const state = tempDir('msgr-state-unit-');
    const folder = join(state, 'runs', 'c.csv-abc');
    mkdirSync(folder, { recursive: true });
    const done = journal(folder, 'journal.F1.jsonl', header('20261120T100000Z-aaaaaaaa'), [
      { type: 'send', batch: 0, first: 0, count: 2, key: 'k', numbers: ['+447911100001', '+447911100002'] },
      { type: 'done', batch: 0, outcome: 'accepted' },
      { type: 'send', batch: 1, first: 2, count: 2, key: 'k', numbers: ['+447911100003', '+447911100004'] },
      { type: 'done', batch: 1, outcome: 'accepted' },
    ]);
    const needed = journal(folder, 'journal.F2.jsonl', header('20261120T110000Z-bbbbbbbb'), [
      { type: 'send', batch: 0, first: 0, count: 2, key: 'k', numbers: ['+447911100001', '+447911100002'] },
      { type: 'done', batch: 0, outcome: 'accepted' },
      { type: 'send', batch: 1, first: 2, count: 2, key: 'k', numbers: ['+447911100003', '+447911100004'] },
      { type: 'done', batch: 1, outcome: 'rejected' },
    ]);
    // Abandoned by --restart: one that the unfinished run leaves out the numbers of, one no run needs
    // (it names a finished run of its own, which its abandonment no longer keeps either).
    const replaced = journal(folder, 'journal.20261120T120000Z-dddddddd.abandoned.jsonl', header('20261120T120000Z-dddddddd'), [
      { type: 'send', batch: 0, first: 0, count: 2, key: 'k', numbers: ['+447911100001', '+447911100002'] },
    ]);
    const forgotten = journal(folder, 'journal.20261119T120000Z-eeeeeeee.abandoned.jsonl', header('20261119T120000Z-eeeeeeee', { skipSent: [{ runId: '20261120T100000Z-aaaaaaaa', journal: done, bytes: 10_000 }] }), [
      { type: 'send', batch: 0, first: 0, count: 2, key: 'k', numbers: ['+447911100007', '+447911100008'] },
    ]);
    writeFileSync(join(folder, '20261119T120000Z-eeeeeeee.stdin.csv'), 'msisdn\n+447911100007\n');
    journal(folder, 'journal.jsonl', header('20261121T100000Z-cccccccc', { skipSent: [{ runId: '20261120T110000Z-bbbbbbbb', journal: needed, bytes: 10_000 }, { runId: '20261120T120000Z-dddddddd', journal: replaced, bytes: 10_000 }] }), [
      { type: 'send', batch: 0, first: 0, count: 2, key: 'k', numbers: ['+447911100005', '+447911100006'] },
    ]);
    const runs = await listRuns(state);
    assert.deepEqual(runs.map((r) => [r.runId.slice(-8), r.accepted, r.rejected, r.inDoubt, r.notSent, r.finished, r.abandoned]), [
      ['eeeeeeee', 0, 0, 2, 2, false, true],
      ['aaaaaaaa', 4, 0, 0, 0, true, false],
      ['bbbbbbbb', 2, 2, 0, 0, true, false],
      ['dddddddd', 0, 0, 2, 2, false, true],
      ['cccccccc', 0, 0, 2, 2, false, false],
    ]);
    assert.equal(findRun(state, '/', '20261120T100000Z-aaaaaaaa', 'x'), done);
    assert.throws(() => findRun(state, '/', '20261120', 'x'), /names 3 runs/);
    assert.equal(findRun(state, '/', done, 'x'), done);
    assert.throws(() => findRun(state, '/', 'nope-nope', 'x'), /no run "nope-nope"/);
    // The random part people copy from a summary names its run too; a short prefix says what to give.
    assert.equal(findRun(state, '/', 'aaaaaaaa', 'x'), done);
    assert.throws(() => findRun(state, '/', '2026112', 'x'), (e: unknown) => e instanceof UsageError && /at least the first 8 characters/.test(e.hint ?? ''));

    const old = new Date('2026-01-01T00:00:00Z');
    for (const f of readdirSync(folder)) utimesSync(join(folder, f), old, old);
    const dry = await pruneRuns(state, 30 * 86_400_000, at('2026-11-24T00:00:00Z'), true);
    assert.deepEqual([dry.removed, dry.keptNeeded, dry.keptUnfinished].map((l) => l.map((x) => x.runId.slice(-8))), [['eeeeeeee', 'aaaaaaaa'], ['bbbbbbbb', 'dddddddd'], ['cccccccc']]);
    assert.ok(existsSync(done) && existsSync(forgotten), 'a dry run removes nothing');
    const r = await pruneRuns(state, 30 * 86_400_000, at('2026-11-24T00:00:00Z'), false);
    assert.deepEqual(r.removed.map((x) => x.journal), [forgotten, done]);
    assert.ok(!existsSync(done) && !existsSync(forgotten));
    assert.ok(!existsSync(join(folder, '20261119T120000Z-eeeeeeee.stdin.csv')), "an abandoned stdin run's copy of its data goes with it");
    assert.ok(existsSync(needed) && existsSync(replaced));
  });

  test('prune leaves alone the runs of a file a msgr holds the lock of: a --restart or --skip-sent run reads them before its own journal names them', async () => {
    const state = tempDir('msgr-state-unit-');
    const folder = join(state, 'runs', 'c.csv-abc');
    mkdirSync(folder, { recursive: true });
    // Moved aside by a --restart (and a finished run kept) whose preflight is still going on: no
    // journal.jsonl yet, only its lock.
    const aside = journal(folder, 'journal.20261001T120000Z-dddddddd.abandoned.jsonl', header('20261001T120000Z-dddddddd'), [
      { type: 'send', batch: 0, first: 0, count: 2, key: 'k', numbers: ['+447911100001', '+447911100002'] },
      { type: 'done', batch: 0, outcome: 'accepted' },
    ]);
    const kept = journal(folder, 'journal.20260901T120000Z-aaaaaaaa.jsonl', header('20260901T120000Z-aaaaaaaa'), [
      { type: 'send', batch: 0, first: 0, count: 2, key: 'k', numbers: ['+447911100001', '+447911100002'] },
      { type: 'done', batch: 0, outcome: 'accepted' },
      { type: 'send', batch: 1, first: 2, count: 2, key: 'k', numbers: ['+447911100003', '+447911100004'] },
      { type: 'done', batch: 1, outcome: 'accepted' },
    ]);
    const old = new Date('2026-01-01T00:00:00Z');
    for (const f of readdirSync(folder)) utimesSync(join(folder, f), old, old);
    writeFileSync(join(folder, 'journal.jsonl.lock'), `${JSON.stringify({ pid: process.pid, host: 'here', startedAt: '2026-11-24T00:00:00.000Z', command: 'msgr send-bulk c.csv --restart', token: 't' })}\n`);
    const r = await pruneRuns(state, 30 * 86_400_000, at('2026-11-24T00:00:00Z'), false);
    assert.deepEqual(r.removed, []);
    assert.ok(existsSync(aside) && existsSync(kept));
    // A lock whose process is gone (kill -9 in a preflight) holds nothing: those runs are old ones.
    writeFileSync(join(folder, 'journal.jsonl.lock'), `${JSON.stringify({ pid: 999_999, host: hostname(), startedAt: '2026-11-24T00:00:00.000Z', command: 'msgr send-bulk c.csv --restart', token: 't' })}\n`);
    const after = await pruneRuns(state, 30 * 86_400_000, at('2026-11-24T00:00:00Z'), false);
    assert.deepEqual(after.removed.map((x) => x.journal).sort(), [aside, kept].sort());
  });

  test('prune keeps an old abandoned (or finished) run that a recent run leaves out the numbers of: msgr runs report of that run reads it', async () => {
    const state = tempDir('msgr-state-unit-');
    const folder = join(state, 'runs', 'c.csv-abc');
    mkdirSync(folder, { recursive: true });
    const replaced = journal(folder, 'journal.20261001T120000Z-dddddddd.abandoned.jsonl', header('20261001T120000Z-dddddddd'), [
      { type: 'send', batch: 0, first: 0, count: 2, key: 'k', numbers: ['+447911100001', '+447911100002'] },
      { type: 'done', batch: 0, outcome: 'accepted' },
    ]);
    const old = new Date('2026-01-01T00:00:00Z');
    utimesSync(replaced, old, old);
    // The run --restart started, finished last week: recent, so kept, and it names the abandoned run.
    journal(folder, 'journal.jsonl', header('20261117T100000Z-cccccccc', { totals: { rows: 4, toSend: 2, requests: 1, alreadySent: 2 }, skipSent: [{ runId: '20261001T120000Z-dddddddd', journal: replaced, bytes: 10_000 }] }), [
      { type: 'send', batch: 0, first: 0, count: 2, key: 'k', numbers: ['+447911100003', '+447911100004'] },
      { type: 'done', batch: 0, outcome: 'accepted' },
    ]);
    const r = await pruneRuns(state, 30 * 86_400_000, at('2026-11-24T00:00:00Z'), false);
    assert.deepEqual(r.removed, []);
    assert.deepEqual(r.keptNeeded.map((x) => x.journal), [replaced]);
    assert.ok(existsSync(replaced));
  });

  test('ages', () => {
    assert.deepEqual(['30d', '12h', '2w', '90m', '1 d', 'soon', '5y'].map(parseAge), [30 * 86_400_000, 12 * 3_600_000, 14 * 86_400_000, 90 * 60_000, 86_400_000, undefined, undefined]);
  });
});

describe('state folder errors', () => {
  test('read-only, vanished and blocked folders are usage errors naming the path; a full disk is left to send-bulk', () => {
    const err = (code: string): NodeJS.ErrnoException => Object.assign(new Error(code), { code, path: '/state/runs/x/journal.jsonl.lock' });
    const ro = stateWriteError(err('EROFS'), '/state');
    assert.ok(ro instanceof UsageError);
    assert.match(ro.message, /cannot write the run state in \/state\/runs\/x: the file system is read-only \(EROFS\); nothing was sent/);
    assert.match((stateWriteError(err('ENOENT'), '/state') as Error).message, /the folder vanished/);
    const full = err('ENOSPC');
    assert.equal(stateWriteError(full, '/state'), full);
    const bug = new TypeError('x');
    assert.equal(stateWriteError(bug, '/state'), bug);
  });

  test('a folder that cannot be made where its parent stands (under /proc) names that parent, not a folder that vanished', (t) => {
    if (!existsSync('/proc/self')) return t.skip('no /proc here');
    assert.throws(() => ensureDir('/proc/msgr-no-such/sub'), (err: unknown) => {
      assert.ok(err instanceof UsageError);
      assert.match(err.message, /^cannot create the folder \/proc\/msgr-no-such \(\/proc does not let a folder be made in it, or was just removed, ENOENT\); nothing was sent$/);
      return true;
    });
  });
});
