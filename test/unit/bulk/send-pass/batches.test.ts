// The send pass's batches as read from the spool (bulk/send-pass/batches.ts): the same batches,
// numbered the same way, as the preflight counted; the rows set aside kept for the report.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readBatches, type Batch, type BatchSource } from '../../../../src/bulk/send-pass/batches.js';
import type { ReportRow } from '../../../../src/bulk/report/report-file.js';
import type { SpoolKind, SpoolSource } from '../../../../src/bulk/preflight/spool.js';

type Line = [SpoolKind, string, string];

/** A spool of these rows (lines from 2), a chunk every `chunk` rows. */
function spoolOf(rows: readonly Line[], chunk = 2): SpoolSource {
  return async (onLine, afterChunk) => {
    for (let i = 0; i < rows.length; i++) {
      const [kind, number, payload] = rows[i] as Line;
      onLine(kind, i + 2, number, payload);
      if (i % chunk === chunk - 1) await afterChunk?.();
    }
  };
}

async function read(rows: readonly Line[], over: Partial<BatchSource> = {}): Promise<{ batches: Batch[]; leftover: Batch[]; skipped: Array<[number, ReportRow]>; chunks: number }> {
  const batches: Batch[] = [];
  const leftover: Batch[] = [];
  const skipped: Array<[number, ReportRow]> = [];
  let chunks = 0;
  await readBatches({
    spool: spoolOf(rows),
    batchSize: 2,
    grouped: false,
    withReport: true,
    sendable: () => true,
    onBatch: (b) => void batches.push(b),
    onRows: (b) => void leftover.push(b),
    onRow: (seq, row) => void skipped.push([seq, row]),
    afterChunk: () => Promise.resolve(++chunks > 0),
    ...over,
  });
  return { batches, leftover, skipped, chunks };
}

const send = (n: number): Line => ['S', `+4479111000${n}`, `{"msisdn":"+4479111000${n}"}`];

describe('readBatches, one shared message', () => {
  test('each batch is the rows set aside before it, then batchSize recipients; the rest is sealed at the end', async () => {
    const { batches, leftover } = await read([send(1), send(2), ['D', '+447911100001', ''], send(3), ['I', 'oops', '"not a number"'], send(4), send(5)]);
    assert.deepEqual(batches.map((b) => [b.index, b.first, b.count, b.firstLine]), [[0, 0, 2, 2], [1, 2, 2, 4], [2, 6, 1, 8]]);
    assert.deepEqual(batches[1]?.entries, [send(3)[2], send(4)[2]]);
    assert.deepEqual(batches[1]?.sendLines, [5, 7]);
    assert.deepEqual(batches[1]?.rows?.skips, ['duplicate', undefined, 'invalid', undefined]);
    assert.deepEqual(batches[1]?.rows?.errors, [undefined, undefined, 'not a number', undefined]);
    assert.deepEqual(leftover, []);
  });

  test('rows set aside after the last recipient belong to no batch; a batch not to be sent carries no recipients', async () => {
    const { batches, leftover } = await read([send(1), send(2), send(3), send(4), ['X', '+447911100009', '']], { sendable: (k) => k !== 0 });
    assert.deepEqual(batches.map((b) => [b.index, b.count, b.entries.length, b.sendNumbers.length]), [[0, 2, 0, 0], [1, 2, 2, 2]]);
    assert.equal(leftover.length, 1);
    assert.deepEqual(leftover[0]?.rows?.skips, ['excluded']);
  });

  test('a stop after a chunk: what was read is sealed, nothing after it is read', async () => {
    const { batches, chunks } = await read([send(1), send(2), send(3), send(4), send(5)], { batchSize: 3, afterChunk: () => Promise.resolve(false) });
    assert.equal(chunks, 0);
    assert.deepEqual(batches.map((b) => [b.index, b.count]), [[0, 2]]);
  });
});

describe('readBatches, a message per row', () => {
  const row = (n: number, key: string): Line => ['S', `+4479111000${n}`, `{"msisdn":"+4479111000${n}"}\t${key}`];

  test('rows are grouped by their message; rows set aside go to the report at their own position', async () => {
    const { batches, skipped } = await read([row(1, 'a'), row(2, 'b'), ['D', '+447911100001', ''], row(3, 'a'), row(4, 'b'), row(5, 'c')], { grouped: true });
    assert.deepEqual(batches.map((b) => [b.index, b.key, b.sendNumbers, b.seqs]), [
      [0, 'a', ['+44791110001', '+44791110003'], [0, 3]],
      [1, 'b', ['+44791110002', '+44791110004'], [1, 4]],
      [2, 'c', ['+44791110005'], [5]],
    ]);
    assert.deepEqual(batches[0]?.entries, ['{"msisdn":"+44791110001"}', '{"msisdn":"+44791110003"}']);
    assert.deepEqual(skipped.map(([seq, r]) => [seq, r.line, r.outcome]), [[2, 4, 'duplicate']]);
  });
});
