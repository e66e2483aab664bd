// The journal on a full disk (a real tmpfs, where one can be mounted): no batch in doubt, the
// answers in flight written into the reserve's room.
import assert from 'node:assert/strict';
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DiskFullError, Journal } from '../../../../src/bulk/journal/writer.js';
import { BatchState } from '../../../../src/bulk/journal/records.js';
import { loadJournal } from '../../../../src/bulk/journal/load.js';
import { DiskReserve } from '../../../../src/bulk/journal/reserve.js';
import { tmpfs, unmount } from '../../../support/tmpfs.js';
import { runHeader } from '../../../support/journal.js';

describe('the journal on a full disk', () => {
  const header = runHeader({ totals: { rows: 400, toSend: 400, requests: 200 } });

  function fill(path: string): void {
    for (const size of [64 * 1024, 512, 1]) {
      const fd = openSync(`${path}.${size}`, 'w');
      const chunk = Buffer.alloc(size, 1);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      } finally {
        closeSync(fd);
      }
    }
  }

  test('no batch leaves once a "send" line fails, the answers in flight take the reserve, and an answer with no room at all is held until there is', async (t) => {
    const dir = tmpfs(t, '1m');
    if (dir === undefined) return;
    try {
      const path = join(dir, 'journal.jsonl');
      const j = Journal.create(path, header, () => new Date());
      const reserve = DiskReserve.take(`${path}.reserve`, 64 * 1024);
      j.useReserve(reserve);
      fill(join(dir, 'filler'));
      // The journal's last page still has room for a few lines; then a write needs a new one.
      let failed = -1;
      for (let batch = 0; batch < 200 && failed < 0; batch++) {
        try {
          await j.startedDurably({ batch, first: batch * 2, count: 2, key: `k${batch}` });
        } catch (err) {
          assert.ok(err instanceof DiskFullError, String(err));
          assert.equal(err.folder, dir);
          failed = batch;
        }
      }
      assert.ok(failed > 0, 'the disk never filled');
      assert.equal(j.full, true);
      assert.equal(existsSync(`${path}.reserve`), false, 'the reserve was not given back');
      // Nothing of the refused line is left, and nothing leaves any more.
      assert.ok(readFileSync(path, 'utf8').endsWith('}\n'));
      assert.doesNotMatch(readFileSync(path, 'utf8'), new RegExp(`"key":"k${failed}"`));
      await assert.rejects(j.startedDurably({ batch: failed + 1, first: 0, count: 2, key: 'late' }), DiskFullError);
      // The answers of the batches in flight go into the reserve's room.
      for (let batch = 0; batch < failed - 1; batch++) j.done({ batch, outcome: 'accepted', status: 202 });
      assert.equal(j.held, 0);
      // No room at all, not even the reserve's: held, and written once there is room again.
      fill(join(dir, 'filler2'));
      let answers = 0;
      while (j.held === 0 && answers < 500) {
        j.done({ batch: failed - 1, outcome: 'accepted', status: 202 });
        answers++;
      }
      assert.equal(j.held, 1, 'no answer was ever held');
      const told: string[] = [];
      const settled = j.settle((folder, n) => told.push(`${folder} ${n}`));
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(told, [`${dir} 1`]);
      for (const size of [64 * 1024, 512, 1]) rmSync(join(dir, `filler2.${size}`));
      await settled;
      assert.equal(j.held, 0);
      j.close();
      const loaded = await loadJournal(path);
      assert.equal(loaded.badLines, 0);
      for (let batch = 0; batch < failed; batch++) assert.equal(loaded.states[batch], BatchState.accepted, `batch ${batch}`);
      assert.equal(loaded.states[failed], BatchState.none);
    } finally {
      unmount(dir);
    }
  });

  test('batches ready together share one write and one flush; a group the full disk refuses leaves nothing behind and none of its batches leaves', async (t) => {
    const dir = tmpfs(t, '1m');
    if (dir === undefined) return;
    try {
      const path = join(dir, 'journal.jsonl');
      const j = Journal.create(path, header, () => new Date());
      // Sixteen at once, like --concurrency 16 with a message per row: all on disk, all let go.
      const first = Array.from({ length: 16 }, (_, batch) => j.startedDurably({ batch, first: batch * 2, count: 2, key: `k${batch}` }));
      await Promise.all(first);
      for (let batch = 0; batch < 16; batch++) j.leaving(batch);
      assert.deepEqual([...(await loadJournal(path)).states.slice(0, 16)], new Array<number>(16).fill(BatchState.started));
      fill(join(dir, 'filler'));
      // Groups of sixteen until one finds no room: every batch of it is refused as DiskFullError.
      let refused: number[] = [];
      for (let g = 1; g < 12 && refused.length === 0; g++) {
        const batches = Array.from({ length: 16 }, (_, i) => g * 16 + i);
        const settled = await Promise.allSettled(batches.map((batch) => j.startedDurably({ batch, first: batch * 2, count: 2, key: `k${batch}` })));
        refused = batches.filter((_, i) => settled[i]?.status === 'rejected');
        for (const s of settled) if (s.status === 'rejected') assert.ok(s.reason instanceof DiskFullError, String(s.reason));
        if (refused.length > 0) assert.equal(refused.length, 16, 'a group is written whole or not at all');
      }
      assert.ok(refused.length > 0, 'the disk never filled');
      const text = readFileSync(path, 'utf8');
      assert.ok(text.endsWith('}\n'));
      for (const batch of refused) assert.doesNotMatch(text, new RegExp(`"key":"k${batch}"`));
      await assert.rejects(j.startedDurably({ batch: 199, first: 0, count: 2, key: 'late' }), DiskFullError);
      // A batch whose "out" line cannot be written does not leave (the sender closes it as not sent).
      assert.throws(() => j.leaving(16), DiskFullError);
      j.close();
      assert.equal((await loadJournal(path)).badLines, 0);
    } finally {
      unmount(dir);
    }
  });
});
