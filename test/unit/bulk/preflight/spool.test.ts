// The spool: the preflight's verdict per row, kept on disk for the send pass.
import assert from 'node:assert/strict';
import { pbkdf2 } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Journal } from '../../../../src/bulk/journal/writer.js';
import { BatchState } from '../../../../src/bulk/journal/records.js';
import { loadJournal } from '../../../../src/bulk/journal/load.js';
import { readSpool, SpoolWriter } from '../../../../src/bulk/preflight/spool.js';
import { tempDir } from '../../../support/cli.js';

/** A journal of `rows` one-recipient batches, for the tests of how its lines are written. */
function smallJournal(path: string, rows: number, now: () => Date): Journal {
  return Journal.create(path, {
    type: 'run', version: 1, runId: 'r', createdAt: '', msgr: '', input: { path: '/x', stdin: false, size: 0, mtimeMs: 0, quickHash: '', hash: '' },
    shape: { batchSize: 1, encoding: 'utf8', delimiter: ',', msisdnColumn: 'm', varColumns: [], metaColumns: [], defaultCountry: null, allowDuplicates: false, skipInvalid: false, exclude: null },
    message: {}, totals: { rows, toSend: rows, requests: rows },
  }, now);
}

/**
 * 'durable' once `p` resolves, 'waiting' if it has not within `ms`. The timer goes with the
 * answer: one left to run out kept the file's process alive for its 10 s after the last test.
 */
async function stateWithin(p: Promise<unknown>, ms: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p.then(() => 'durable'), new Promise<string>((r) => (timer = setTimeout(() => r('waiting'), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

describe('spool', () => {
  test('rows come back in order with their verdicts, even with tabs and newlines in the input', async () => {
    const path = join(tempDir(), 'run.spool');
    const w = new SpoolWriter(path);
    w.send(2, '+447400900001', '{"msisdn":"+447400900001","variables":{"a":"x\\ty\\nz"}}');
    w.skip('D', 3, '+447400900001');
    w.invalid(4, 'bad\tnumber\r\n', 'msisdn: "bad" is not a "number"');
    w.skip('X', 6, '+447400900002');
    for (let i = 0; i < 20_000; i++) w.send(7 + i, '+447400900003', '{"msisdn":"+447400900003"}');
    // One row longer than the write buffer, full of emoji (surrogate pairs) at every offset.
    const long = `{"msisdn":"+447400900004","variables":{"t":"${'a😀'.repeat(100_000)}"}}`;
    w.send(20_007, '+447400900004', long);
    w.close();
    const got: Array<[string, number, string, string]> = [];
    let chunks = 0;
    await readSpool(path, (kind, line, number, payload) => got.push([kind, line, number, payload]), () => {
      chunks++;
    });
    assert.equal(got.length, 20_005);
    assert.equal(got[20_004]?.[3], long);
    assert.ok(chunks > 1, 'read in several chunks');
    assert.deepEqual(got.slice(0, 4), [
      ['S', 2, '+447400900001', '{"msisdn":"+447400900001","variables":{"a":"x\\ty\\nz"}}'],
      ['D', 3, '+447400900001', ''],
      ['I', 4, 'bad number  ', '"msisdn: \\"bad\\" is not a \\"number\\""'],
      ['X', 6, '+447400900002', ''],
    ]);
    assert.deepEqual(got[20_003], ['S', 20_006, '+447400900003', '{"msisdn":"+447400900003"}']);
  });

  test('a journal record flushed off the main thread is on disk when the promise resolves', async () => {
    const path = join(tempDir(), 'journal.jsonl');
    const j = smallJournal(path, 3, () => new Date());
    await Promise.all([0, 1, 2].map((batch) => j.startedDurably({ batch, first: batch, count: 1, key: `k${batch}` })));
    for (const batch of [0, 1, 2]) j.leaving(batch);
    const loaded = await loadJournal(path);
    assert.deepEqual([...loaded.states], [BatchState.started, BatchState.started, BatchState.started]);
    j.close();
  });

  test('"send" lines journaled ahead wait for their group (commitAt recipients) or for need(); one write carries the turn\'s answers and "out" lines', async () => {
    const path = join(tempDir(), 'journal.jsonl');
    const j = smallJournal(path, 6, () => new Date('2026-11-24T00:00:00.000Z'));
    const turns = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 5));
    };
    const state = (p: Promise<unknown>, ms = 5): Promise<string> => stateWithin(p, ms);
    const linesOf = (): string[] => readFileSync(path, 'utf8').trim().split('\n');
    const before = linesOf().length;
    // Groups of 3 recipients: two lines of one recipient wait (not even written)...
    const a = j.startedDurably({ batch: 0, first: 0, count: 1, key: 'k0', lines: [2], numbers: ['+447400900001'] }, 3);
    const b = j.startedDurably({ batch: 1, first: 1, count: 1, key: 'k1', lines: [3], numbers: ['+447400900002'] }, 3);
    await turns(3);
    assert.equal(await state(a), 'waiting');
    assert.equal(linesOf().length, before);
    // ...until a batch among them is needed (another batch changes nothing).
    j.need(7);
    assert.equal(await state(a, 30), 'waiting');
    j.need(1);
    assert.equal(await state(Promise.all([a, b]), 5_000), 'durable');
    assert.equal(linesOf().length, before + 2);
    // A group that reaches 3 recipients goes by itself.
    const c = j.startedDurably({ batch: 2, first: 2, count: 1, key: 'k2' }, 3);
    const d = j.startedDurably({ batch: 3, first: 3, count: 2, key: 'k3' }, 3);
    assert.equal(await state(Promise.all([c, d]), 5_000), 'durable');
    // The same JSON as the records, and the answers of the turn with the "out" lines in one write.
    j.leavingAll([0, 1]);
    j.answered({ batch: 0, outcome: 'accepted', status: 202, ids: ['m-0', null] });
    j.answered({ batch: 1, outcome: 'rejected', status: 400, error: 'bad "from"' });
    j.leavingAll([2, 3]);
    const tail = linesOf().slice(before).map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(tail.map((r) => `${String(r.type)} ${String(r.batch)}`), ['send 0', 'send 1', 'send 2', 'send 3', 'out 0', 'out 1', 'done 0', 'done 1', 'out 2', 'out 3']);
    assert.deepEqual(tail[0], { type: 'send', batch: 0, first: 0, count: 1, key: 'k0', lines: [2], numbers: ['+447400900001'], at: '2026-11-24T00:00:00.000Z' });
    assert.deepEqual(tail[6], { type: 'done', batch: 0, outcome: 'accepted', status: 202, ids: ['m-0', null], at: '2026-11-24T00:00:00.000Z' });
    assert.deepEqual(tail[7], { type: 'done', batch: 1, outcome: 'rejected', status: 400, error: 'bad "from"', at: '2026-11-24T00:00:00.000Z' });
    j.close();
  });

  test('a batch needed while every flush is busy is committed as soon as one is done, not left waiting for its group', async () => {
    const path = join(tempDir(), 'journal.jsonl');
    const j = smallJournal(path, 4, () => new Date('2026-11-24T00:00:00.000Z'));
    // libuv's thread pool kept busy: the flushes queue behind this work and stay under way.
    const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
    const busy = Array.from({ length: threads * 2 }, () => new Promise<void>((r) => void pbkdf2('x', 's', 400_000, 32, 'sha256', () => r())));
    // Three groups of one recipient, each committed in its own turn: every flush is under way.
    const flushing: Array<Promise<void>> = [];
    for (let batch = 0; batch < 3; batch++) {
      flushing.push(j.startedDurably({ batch, first: batch, count: 1, key: `k${batch}` }, 1));
      await new Promise((r) => setImmediate(r));
    }
    // A fourth line, its group far from full, is needed now: it must go once a flush is free.
    const late = j.startedDurably({ batch: 3, first: 3, count: 1, key: 'k3' }, 1_000);
    j.need(3);
    assert.equal(await stateWithin(late, 5), 'waiting');
    await Promise.all(busy);
    assert.equal(await stateWithin(Promise.all([...flushing, late]), 10_000), 'durable');
    assert.deepEqual(readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; batch?: number }).filter((r) => r.type === 'send').map((r) => r.batch), [0, 1, 2, 3]);
    j.close();
  });
});

describe('readSpool', () => {
  test('reads lines longer than its buffer and characters cut by a read, in order', async () => {
    const path = join(tempDir('msgr-spool-'), 'spool');
    const w = new SpoolWriter(path);
    const want: Array<[string, number, string, string]> = [];
    for (let i = 0; i < 3000; i++) {
      // Multi-byte text at every offset, now and then a line of ~200 KiB.
      const json = JSON.stringify({ msisdn: `+4479111${String(i).padStart(5, '0')}`, v: `${'é€😀'.repeat(i % 7)}${i % 1000 === 1 ? 'x'.repeat(200_000) : ''}` });
      if (i % 5 === 0) {
        w.skip('D', i + 2, `+4479111${String(i).padStart(5, '0')}`);
        want.push(['D', i + 2, `+4479111${String(i).padStart(5, '0')}`, '']);
      } else {
        w.send(i + 2, `+4479111${String(i).padStart(5, '0')}`, json);
        want.push(['S', i + 2, `+4479111${String(i).padStart(5, '0')}`, json]);
      }
    }
    w.invalid(9999, 'not\ta number', 'is not a phone number');
    want.push(['I', 9999, 'not a number', JSON.stringify('is not a phone number')]);
    w.close();
    const got: Array<[string, number, string, string]> = [];
    let chunks = 0;
    await readSpool(path, (kind, line, number, payload) => got.push([kind, line, number, payload]), () => {
      chunks++;
    });
    assert.deepEqual(got, want);
    assert.ok(chunks > 10);
  });
});
