// The runs' index (src/bulk/history/run-index.ts): the runs that read the same data, and whether a
// run finished, without reading every journal. Journals written to a temporary folder.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { RunHeader } from '../../../../src/bulk/journal/records.js';
import { journalState, journalsWithData, noteRunData } from '../../../../src/bulk/history/run-index.js';
import { runHeader } from '../../../support/journal.js';
import { tempDir } from '../../../support/cli.js';

function header(runId: string, size: number, quickHash: string, path = `/data/${runId}.csv`): RunHeader {
  return runHeader({ runId, createdAt: '2026-11-20T10:00:00.000Z', msgr: '0.1.0', input: { path, stdin: false, size, mtimeMs: 0, quickHash, hash: quickHash }, totals: { rows: 1, toSend: 1, requests: 1 } });
}

const send = { type: 'send', batch: 0, first: 0, count: 1, key: 'k', lines: [2], numbers: ['+447911123456'], at: '2026-11-20T10:00:01.000Z' };
const done = { type: 'done', batch: 0, outcome: 'accepted', status: 202, ids: ['m1'], at: '2026-11-20T10:00:02.000Z' };

/** A run folder with a journal holding `h` and `lines`; returns the journal's path. */
function run(state: string, folder: string, h: RunHeader, lines: object[] = [send, done], name = 'journal.jsonl'): string {
  const dir = join(state, 'runs', folder);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, [h, ...lines].map((l) => `${JSON.stringify(l)}\n`).join(''));
  return path;
}

const ids = (found: ReadonlyArray<{ header: RunHeader }>): string[] => found.map((f) => f.header.runId).sort();

describe("the runs' index", () => {
  test('a state folder without one: every journal is read once, the index made, then only the runs of the same data', () => {
    const state = tempDir('msgr-run-index-');
    run(state, 'a', header('a', 10, 'qa'));
    run(state, 'b', header('b', 10, 'qb'));
    run(state, 'c', header('c', 10, 'qa', '/data/other-name.csv'));
    assert.deepEqual(ids(journalsWithData(state, false, { size: 10, quickHash: 'qa' })), ['a', 'c']);
    assert.ok(existsSync(join(state, 'runs.index', 'complete')));
    // From the index now: a journal it does not know of (one an older msgr wrote) is not read.
    run(state, 'd', header('d', 10, 'qa'));
    assert.deepEqual(ids(journalsWithData(state, false, { size: 10, quickHash: 'qa' })), ['a', 'c']);
    // One noted before its header was written is found.
    const e = run(state, 'e', header('e', 10, 'qa'));
    noteRunData(state, false, { size: 10, quickHash: 'qa' }, e);
    assert.deepEqual(ids(journalsWithData(state, false, { size: 10, quickHash: 'qa' })), ['a', 'c', 'e']);
    // Without its marker the index is read whole again, and finds the older msgr's run.
    rmSync(join(state, 'runs.index', 'complete'));
    assert.deepEqual(ids(journalsWithData(state, false, { size: 10, quickHash: 'qa' })), ['a', 'c', 'd', 'e']);
    assert.deepEqual(ids(journalsWithData(state, false, { size: 11, quickHash: 'qa' })), []);
  });

  test('a journal kept under its run id when its file ran again is still found; one gone or never written is passed over', () => {
    const state = tempDir('msgr-run-index-');
    const a = run(state, 'f', header('a', 10, 'qa'));
    assert.deepEqual(ids(journalsWithData(state, false, { size: 10, quickHash: 'qa' })), ['a']);
    renameSync(a, a.replace(/\.jsonl$/, '.a.jsonl'));
    run(state, 'f', header('b', 20, 'qb'));
    noteRunData(state, false, { size: 20, quickHash: 'qb' }, a);
    assert.deepEqual(ids(journalsWithData(state, false, { size: 10, quickHash: 'qa' })), ['a']);
    assert.deepEqual(ids(journalsWithData(state, false, { size: 20, quickHash: 'qb' })), ['b']);
    noteRunData(state, false, { size: 30, quickHash: 'qc' }, join(state, 'runs', 'gone', 'journal.jsonl'));
    assert.deepEqual(ids(journalsWithData(state, false, { size: 30, quickHash: 'qc' })), []);
  });

  test("a finished journal's state is kept; a journal that changed since is read again; an unfinished one is never kept", async () => {
    const state = tempDir('msgr-run-index-');
    const a = run(state, 'a', header('a', 10, 'qa'));
    assert.deepEqual(await journalState(state, false, a), { finished: true, finishedAt: '2026-11-20T10:00:02.000Z' });
    assert.equal(readdirSync(join(state, 'runs.index', 'runs')).length, 1);
    // Changed by hand after it was noted (its answer taken out): the kept state does not hold for it any more.
    writeFileSync(a, [header('a', 10, 'qa'), send].map((l) => `${JSON.stringify(l)}\n`).join(''));
    assert.deepEqual(await journalState(state, false, a), { finished: false, finishedAt: undefined });
    const b = run(state, 'b', header('b', 10, 'qb'), [send]);
    assert.equal((await journalState(state, false, b))?.finished, false);
    assert.equal(readdirSync(join(state, 'runs.index', 'runs')).length, 1);
    assert.equal(await journalState(state, false, join(state, 'runs', 'none', 'journal.jsonl')), undefined);
  });
});
