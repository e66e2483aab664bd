// The run journal: its lines as written (one write of whole lines, fsynced before a request
// leaves), and read back.
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Journal } from '../../../../src/bulk/journal/writer.js';
import { BatchState, isAnswered, type RunHeader } from '../../../../src/bulk/journal/records.js';
import { loadJournal } from '../../../../src/bulk/journal/load.js';
import { tempDir } from '../../../support/cli.js';
import { runHeader } from '../../../support/journal.js';

describe('journal', () => {
  const header = (requests: number): RunHeader => runHeader({ totals: { rows: 8, toSend: 8, requests } });

  test('a journal it created says it is finished exactly when loading it would, with the same last answer', async () => {
    let ms = Date.parse('2026-12-07T10:00:00.000Z');
    const clock = (): Date => new Date((ms += 1000));
    const cases: Record<string, (j: Journal) => void> = {
      'every batch answered': (j) => {
        j.started({ batch: 0, first: 0, count: 2, key: 'k0' });
        j.answered({ batch: 0, outcome: 'accepted', status: 202 });
        j.started({ batch: 1, first: 2, count: 2, key: 'k1' });
        j.done({ batch: 1, outcome: 'rejected', status: 400 });
        j.done({ batch: 2, outcome: 'excluded', excluded: 2 });
      },
      'one never sent': (j) => {
        j.started({ batch: 0, first: 0, count: 2, key: 'k0' });
        j.done({ batch: 0, outcome: 'accepted', status: 202 });
        j.started({ batch: 1, first: 2, count: 2, key: 'k1' });
        j.done({ batch: 1, outcome: 'accepted', status: 202 });
      },
      'one in doubt': (j) => {
        for (const batch of [0, 1, 2]) j.started({ batch, first: batch * 2, count: 2, key: `k${batch}` });
        j.done({ batch: 0, outcome: 'accepted', status: 202 });
        j.done({ batch: 1, outcome: 'in-doubt' });
        j.answered({ batch: 2, outcome: 'accepted', status: 202 });
      },
      'answered, then sent again and not answered': (j) => {
        for (const batch of [0, 1, 2]) {
          j.started({ batch, first: batch * 2, count: 2, key: `k${batch}` });
          j.done({ batch, outcome: 'accepted', status: 202 });
        }
        j.started({ batch: 1, first: 2, count: 2, key: 'k1' });
      },
      'not sent, then sent and accepted': (j) => {
        for (const batch of [0, 1, 2]) j.started({ batch, first: batch * 2, count: 2, key: `k${batch}` });
        j.done({ batch: 0, outcome: 'not-sent' });
        j.done({ batch: 1, outcome: 'auth', status: 401 });
        j.done({ batch: 2, outcome: 'accepted', status: 202 });
        j.started({ batch: 0, first: 0, count: 2, key: 'k0' });
        j.answered({ batch: 0, outcome: 'accepted', status: 202 });
        j.started({ batch: 1, first: 2, count: 2, key: 'k1' });
        j.answered({ batch: 1, outcome: 'rejected', status: 422 });
      },
    };
    const seen: boolean[] = [];
    for (const [name, write] of Object.entries(cases)) {
      const path = join(tempDir(), 'journal.jsonl');
      const j = Journal.create(path, header(3), clock);
      write(j);
      j.close();
      const loaded = await loadJournal(path);
      const finished = loaded.states.every(isAnswered);
      assert.deepEqual(j.finished(), finished ? { finishedAt: loaded.lastAnswerAt } : undefined, name);
      seen.push(finished);
    }
    assert.deepEqual(seen, [true, false, false, false, true]);
    // One it appended to knows nothing of the batches before: it never says.
    const path = join(tempDir(), 'journal.jsonl');
    Journal.create(path, header(1), clock).close();
    const again = Journal.append(path, clock);
    again.started({ batch: 0, first: 0, count: 2, key: 'k0' });
    again.done({ batch: 0, outcome: 'accepted', status: 202 });
    again.close();
    assert.equal((await loadJournal(path)).states.every(isAnswered), true);
    assert.equal(again.finished(), undefined);
  });

  test('records batches before and after; a batch that left with no outcome is started (in doubt)', async () => {
    const path = join(tempDir(), 'journal.jsonl');
    const j = Journal.create(path, header(5), () => new Date());
    j.started({ batch: 0, first: 0, count: 2, key: 'k0' });
    j.leaving(0);
    j.done({ batch: 0, outcome: 'accepted', status: 202 });
    j.started({ batch: 1, first: 2, count: 2, key: 'k1' });
    j.leaving(1);
    j.started({ batch: 2, first: 4, count: 2, key: 'k2' });
    j.done({ batch: 2, outcome: 'not-sent' });
    // Written ahead, and the process ended before its request left (no "out" line).
    j.started({ batch: 3, first: 6, count: 2, key: 'k3' });
    j.close();
    const loaded = await loadJournal(path);
    assert.equal(loaded.header.runId, 'r1');
    assert.deepEqual([...loaded.states], [BatchState.accepted, BatchState.started, BatchState.notSent, BatchState.notSent, BatchState.none]);
  });

  test('without its "out" line a batch is never sent only if its "send" was written in this boot', async (t) => {
    const path = join(tempDir(), 'journal.jsonl');
    const j = Journal.create(path, header(2), () => new Date());
    j.started({ batch: 0, first: 0, count: 2, key: 'k0' });
    j.close();
    const text = readFileSync(path, 'utf8');
    if (!text.includes('"type":"boot"')) {
      // No boot id on this system: every batch with "send" and no "done" is in doubt.
      assert.deepEqual([...(await loadJournal(path)).states], [BatchState.started, BatchState.none]);
      t.skip('no boot id here (/proc/sys/kernel/random/boot_id)');
      return;
    }
    assert.deepEqual([...(await loadJournal(path)).states], [BatchState.notSent, BatchState.none]);
    // After a reboot unflushed lines may be lost, "out" lines with them: in doubt.
    writeFileSync(path, text.replace(/"type":"boot","id":"[^"]+"/, '"type":"boot","id":"another-boot"'));
    assert.deepEqual([...(await loadJournal(path)).states], [BatchState.started, BatchState.none]);
    // A journal written before "out" lines existed: in doubt as it always was.
    writeFileSync(path, text.split('\n').filter((l) => !l.includes('"type":"boot"')).join('\n'));
    assert.deepEqual([...(await loadJournal(path)).states], [BatchState.started, BatchState.none]);
    // An attempt answered "retry later" (429, 503) and waiting for its retry: nothing of it is
    // out there until the retry's own "out" line.
    writeFileSync(path, `${text}{"type":"out","batch":0}\n{"type":"wait","batch":0}\n`);
    assert.deepEqual([...(await loadJournal(path)).states], [BatchState.notSent, BatchState.none]);
    writeFileSync(path, `${text}{"type":"out","batch":0}\n{"type":"wait","batch":0}\n{"type":"out","batch":0}\n`);
    assert.deepEqual([...(await loadJournal(path)).states], [BatchState.started, BatchState.none]);
    writeFileSync(path, text.split('\n').filter((l) => !l.includes('"type":"boot"')).join('\n'));
    // A resume in this boot marks its own lines.
    const again = Journal.append(path, () => new Date());
    again.started({ batch: 1, first: 2, count: 2, key: 'k1' });
    again.close();
    assert.deepEqual([...(await loadJournal(path)).states], [BatchState.started, BatchState.notSent]);
  });

  test('a batch left in doubt stays in doubt when its resend (--resend-in-doubt) never leaves', async (t) => {
    const path = join(tempDir(), 'journal.jsonl');
    const j = Journal.create(path, header(3), () => new Date());
    // First process: batches 0 and 1 leave and no answer comes (kill -9); 2 is answered "in doubt".
    for (const b of [0, 1, 2]) {
      j.started({ batch: b, first: b * 2, count: 2, key: `k${b}` });
      j.leaving(b);
    }
    j.done({ batch: 2, outcome: 'in-doubt', error: 'no answer' });
    j.close();
    if (!readFileSync(path, 'utf8').includes('"type":"boot"')) {
      t.skip('no boot id here (/proc/sys/kernel/random/boot_id)');
      return;
    }
    // A resume with --resend-in-doubt in this boot: every "send" line written again, then 0 is
    // killed before its request left, and 1 and 2 are closed as not sent by a Ctrl-C.
    const again = Journal.append(path, () => new Date());
    for (const b of [0, 1, 2]) again.started({ batch: b, first: b * 2, count: 2, key: `k${b}` });
    again.done({ batch: 1, outcome: 'not-sent' });
    again.done({ batch: 2, outcome: 'not-sent' });
    again.close();
    assert.deepEqual([...(await loadJournal(path)).states], [BatchState.started, BatchState.inDoubt, BatchState.inDoubt]);
    // Once the API answers for the key, the earlier doubt is settled.
    const third = Journal.append(path, () => new Date());
    third.started({ batch: 0, first: 0, count: 2, key: 'k0' });
    third.leaving(0);
    third.done({ batch: 0, outcome: 'accepted', status: 202 });
    third.started({ batch: 1, first: 2, count: 2, key: 'k1' });
    third.leaving(1);
    third.done({ batch: 1, outcome: 'rejected', status: 422 });
    third.close();
    assert.deepEqual([...(await loadJournal(path)).states], [BatchState.accepted, BatchState.rejected, BatchState.inDoubt]);
  });

  test('answers of one turn of the event loop are written together as it ends; close writes those still waiting', async () => {
    const path = join(tempDir(), 'journal.jsonl');
    const j = Journal.create(path, header(4), () => new Date());
    j.started({ batch: 0, first: 0, count: 2, key: 'k0' });
    j.started({ batch: 1, first: 2, count: 2, key: 'k1' });
    j.answered({ batch: 0, outcome: 'accepted', status: 202 });
    j.answered({ batch: 1, outcome: 'rejected', status: 422 });
    assert.doesNotMatch(readFileSync(path, 'utf8'), /"type":"done"/);
    await new Promise((r) => setImmediate(r));
    assert.equal(readFileSync(path, 'utf8').match(/"type":"done"/g)?.length, 2);
    j.started({ batch: 2, first: 4, count: 2, key: 'k2' });
    j.answered({ batch: 2, outcome: 'accepted', status: 202 });
    j.close();
    assert.deepEqual([...(await loadJournal(path)).states], [BatchState.accepted, BatchState.rejected, BatchState.accepted, BatchState.none]);
  });

  test('quitNow (a second Ctrl-C) writes the answers of the turn at once and says whether a request that left is still without its answer', async () => {
    const path = join(tempDir(), 'journal.jsonl');
    const j = Journal.create(path, header(4), () => new Date());
    assert.equal(j.quitNow(), false, 'nothing has left');
    j.started({ batch: 0, first: 0, count: 2, key: 'k0' });
    j.started({ batch: 1, first: 2, count: 2, key: 'k1' });
    // Written ahead, never left: not in doubt.
    assert.equal(j.quitNow(), false, 'a "send" line alone is not a request that left');
    j.leavingAll([0, 1]);
    assert.equal(j.quitNow(), true, 'both requests are out');
    j.answered({ batch: 0, outcome: 'accepted', status: 202 });
    j.waiting(1);
    // The answer is handed in but not yet written (the turn has not ended): quitNow writes it.
    assert.equal(j.quitNow(), false, 'batch 0 answered, batch 1 waits to retry');
    assert.deepEqual([...(await loadJournal(path)).states].slice(0, 2), [BatchState.accepted, BatchState.notSent]);
    j.leaving(1);
    assert.equal(j.quitNow(), true, 'batch 1 left again');
    j.close();
    // Its "out" line stands without an answer: a resume counts it in doubt.
    assert.equal((await loadJournal(path)).states[1], BatchState.started);
  });

  test('a torn last line is ignored and closed before appending', async () => {
    const path = join(tempDir(), 'journal.jsonl');
    Journal.create(path, header(2), () => new Date()).close();
    appendFileSync(path, '{"type":"done","batch":0,"outc');
    const loaded = await loadJournal(path);
    assert.equal(loaded.badLines, 1);
    const j = Journal.append(path, () => new Date());
    j.done({ batch: 1, outcome: 'accepted' });
    j.close();
    const again = await loadJournal(path);
    assert.deepEqual([...again.states], [BatchState.none, BatchState.accepted]);
    assert.ok(readFileSync(path, 'utf8').endsWith('}\n'));
  });
});
