// Pure parts of send-bulk: encoding and SMS parts, the number set, CSV reading (encodings,
// newlines, quotes, line numbers), columns, rates, the journal, the lock, the report.
import assert from 'node:assert/strict';
import { pbkdf2 } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { planColumns, recipientJson } from '../../src/bulk/columns.js';
import { Journal } from '../../src/bulk/journal.js';
import { BatchState, type RunHeader } from '../../src/bulk/journal-records.js';
import { loadJournal } from '../../src/bulk/journal-load.js';
import { Gate, parseRate, RateLimiter, Window } from '../../src/bulk/limiter.js';
import { NumberSet, numberKey } from '../../src/bulk/number-set.js';
import { createProgress, formatDuration } from '../../src/bulk/progress.js';
import { CsvInputError, detectFormat, readCsv, sniffDelimiter } from '../../src/bulk/reader.js';
import { csvField, ReportWriter } from '../../src/bulk/report.js';
import { extractMessageIds } from '../../src/bulk/message-ids.js';
import { requestFrame } from '../../src/bulk/message.js';
import { analyseText, splitGsm, splitUcs2 } from '../../src/message/segments.js';
import { readSpool, SpoolWriter } from '../../src/bulk/spool.js';
import type { Context } from '../../src/context.js';
import { UsageError } from '../../src/errors.js';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'msgr-bulk-unit-'));

/** A journal of `rows` one-recipient batches, for the tests of how its lines are written. */
function smallJournal(path: string, rows: number, now: () => Date): Journal {
  return Journal.create(path, {
    type: 'run', version: 1, runId: 'r', createdAt: '', msgr: '', input: { path: '/x', stdin: false, size: 0, mtimeMs: 0, quickHash: '', hash: '' },
    shape: { batchSize: 1, encoding: 'utf8', delimiter: ',', msisdnColumn: 'm', varColumns: [], metaColumns: [], defaultCountry: null, allowDuplicates: false, skipInvalid: false, exclude: null },
    message: {}, totals: { rows, toSend: rows, requests: rows },
  }, now);
}

describe('SMS encoding and parts', () => {
  test('GSM-7: 160 septets are one part, 161 are two of at most 153', () => {
    assert.deepEqual([analyseText('a'.repeat(160)).parts, analyseText('a'.repeat(160)).encoding], [1, 'GSM-7']);
    const two = analyseText('a'.repeat(161));
    assert.equal(two.parts, 2);
    assert.deepEqual(splitGsm('a'.repeat(161)).map((p) => p.length), [153, 8]);
    assert.equal(analyseText('a'.repeat(306)).parts, 2);
    assert.equal(analyseText('a'.repeat(307)).parts, 3);
  });

  test('extension characters count 2 and an escape is never split across parts', () => {
    assert.equal(analyseText('€'.repeat(80)).units, 160);
    assert.equal(analyseText('€'.repeat(80)).parts, 1);
    assert.equal(analyseText(`${'a'.repeat(159)}^`).parts, 2);
    // 152 septets, then a 2-septet character: it moves whole to part 2.
    const parts = splitGsm(`${'a'.repeat(152)}€${'b'.repeat(10)}`);
    assert.equal(parts[0], 'a'.repeat(152));
    assert.equal(parts[1], `€${'b'.repeat(10)}`);
  });

  test('UCS-2: 70 units are one part, then 67, and a surrogate pair is never split', () => {
    assert.equal(analyseText('é'.repeat(10) + 'ł'.repeat(60)).parts, 1);
    assert.equal(analyseText('ł'.repeat(71)).parts, 2);
    const parts = splitUcs2(`${'ł'.repeat(66)}😀${'ł'.repeat(10)}`);
    assert.equal(parts[0], 'ł'.repeat(66));
    assert.ok(parts[1]?.startsWith('😀'));
  });

  test('names the characters that force UCS-2, once each', () => {
    const a = analyseText('Hello ’world’ 😀 ok');
    assert.equal(a.encoding, 'UCS-2');
    assert.deepEqual(a.forcing, ['’', '😀']);
    assert.deepEqual(analyseText('Ça coûte 5€ [ok]').forcing, ['û']);
  });
});

describe('NumberSet', () => {
  test('adds, finds, refuses repeats and grows past its first capacity', () => {
    const set = new NumberSet(4);
    for (let i = 0; i < 10_000; i++) assert.equal(set.add(447400900000 + i * 7), true);
    assert.equal(set.size, 10_000);
    assert.equal(set.add(447400900000 + 7), false);
    assert.equal(set.has(447400900000 + 14), true);
    assert.equal(set.has(447400900001), false);
    assert.equal(set.add(numberKey('+999999999999999')), true);
    assert.equal(set.has(999999999999999), true);
    assert.equal(set.has(999999999999998), false);
  });
});

describe('CSV reading', () => {
  async function rows(content: Buffer | string, given: { encoding?: 'latin1' } = {}): Promise<{ header: string[]; rows: Array<[string[], number]> }> {
    const dir = tmp();
    const path = join(dir, 'in.csv');
    writeFileSync(path, content);
    const format = await detectFormat(path, given);
    let header: string[] = [];
    const out: Array<[string[], number]> = [];
    await readCsv(path, { format, onHeader: (h) => (header = h), onRecord: (f, _i, line) => out.push([f, line]) });
    return { header, rows: out };
  }

  test('LF, CRLF and CR files give the same rows with their line numbers', async () => {
    for (const nl of ['\n', '\r\n', '\r']) {
      const r = await rows(['msisdn,name', '+447400900001,Ann', '', '+447400900002,Bob'].join(nl) + nl);
      assert.deepEqual(r.header, ['msisdn', 'name']);
      assert.deepEqual(r.rows, [
        [['+447400900001', 'Ann'], 2],
        [['+447400900002', 'Bob'], 4],
      ], JSON.stringify(nl));
    }
  });

  test('quoted fields keep delimiters, quotes and newlines; later line numbers stay right', async () => {
    const r = await rows('msisdn,note\r\n+447400900001,"a, ""b""\r\nc"\r\n+447400900002,x\r\n');
    assert.deepEqual(r.rows, [
      [['+447400900001', 'a, "b"\r\nc'], 2],
      [['+447400900002', 'x'], 4],
    ]);
  });

  test('values are never cast: leading zeros and plus signs survive', async () => {
    const r = await rows('phone,code\n00447400900001,007\n+447400900002,1e3\n');
    assert.deepEqual(r.rows.map((x) => x[0]), [
      ['00447400900001', '007'],
      ['+447400900002', '1e3'],
    ]);
  });

  test('a UTF-8 BOM does not end up in the first header', async () => {
    const r = await rows(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('msisdn,name\n+447400900001,Zoë\n')]));
    assert.deepEqual(r.header, ['msisdn', 'name']);
    assert.equal(r.rows[0]?.[0][1], 'Zoë');
  });

  test('UTF-16 LE and BE with a BOM', async () => {
    const text = 'msisdn;name\r\n+447400900001;Zoë ł\r\n';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
    for (const buf of [le, be]) {
      const r = await rows(buf);
      assert.deepEqual(r.header, ['msisdn', 'name']);
      assert.deepEqual(r.rows, [[['+447400900001', 'Zoë ł'], 2]]);
    }
  });

  test('--encoding latin1', async () => {
    const r = await rows(Buffer.from('msisdn,name\n+447400900001,Zoë\n', 'latin1'), { encoding: 'latin1' });
    assert.equal(r.rows[0]?.[0][1], 'Zoë');
  });

  test('delimiter detection from the header line, ignoring quoted ones', () => {
    assert.equal(sniffDelimiter('msisdn,name\n1;2;3;4'), ',');
    assert.equal(sniffDelimiter('msisdn;name;"a,b,c"\n'), ';');
    assert.equal(sniffDelimiter('msisdn\tname\n'), '\t');
    assert.equal(sniffDelimiter('msisdn\n'), ',');
  });

  test('an unclosed quote is an error naming the line it starts on', async () => {
    await assert.rejects(rows('msisdn,name\n+447400900001,ok\n+447400900002,"never closed\n+447400900003,x\n'), (err: unknown) => {
      assert.ok(err instanceof CsvInputError);
      assert.equal(err.line, 3);
      assert.match(err.message, /line 3: a quoted field starts here and is never closed/);
      return true;
    });
  });

  test('a space between the delimiter and a quoted field is named as such, with its line', async () => {
    await assert.rejects(rows('msisdn,name\n+447400900001,ok\n+447400900002, "Smith, John"\n'), (err: unknown) => {
      assert.ok(err instanceof CsvInputError);
      assert.equal(err.line, 3);
      assert.match(err.message, /line 3: a space before a quoted field; remove the spaces after the delimiter/);
      return true;
    });
  });

  test('a quote inside an unquoted field is an error with its line', async () => {
    await assert.rejects(rows('msisdn,name\n+447400900001,ok\n+447400900002,a"b\n'), (err: unknown) => {
      assert.ok(err instanceof CsvInputError);
      assert.match(err.message, /^line 3: /);
      return true;
    });
  });
});

describe('columns', () => {
  test('finds the number column by name, case-insensitively; the rest become variables', () => {
    const plan = planColumns(['Name', ' Phone ', 'code'], {}, 'f.csv');
    assert.equal(plan.msisdnName, 'Phone');
    assert.deepEqual(plan.vars, [0, 2]);
    assert.equal(recipientJson(plan, '+447400900001', ['A "q"', '07400 900001', '007']), '{"msisdn":"+447400900001","variables":{"Name":"A \\"q\\"","code":"007"}}');
  });

  test('--var-columns narrows, --meta-columns become metaData and leave the variables', () => {
    const plan = planColumns(['to', 'name', 'code', 'campaign'], { metaColumns: ['campaign'] }, 'f.csv');
    assert.deepEqual(plan.vars, [1, 2]);
    const json = JSON.parse(recipientJson(plan, '+447400900001', ['x', 'Ann', '1', 'spring'])) as unknown;
    assert.deepEqual(json, { msisdn: '+447400900001', variables: { name: 'Ann', code: '1' }, metaData: { campaign: 'spring' } });
    const narrow = planColumns(['to', 'name', 'code'], { varColumns: ['NAME'] }, 'f.csv');
    assert.deepEqual(narrow.vars, [1]);
    const none = planColumns(['to', 'name'], { varColumns: [] }, 'f.csv');
    assert.equal(recipientJson(none, '+447400900001', ['x', 'Ann']), '{"msisdn":"+447400900001"}');
  });

  test('a missing column is a usage error that lists the header', () => {
    assert.throws(() => planColumns(['a', 'b'], {}, 'f.csv'), (err: unknown) => err instanceof UsageError && /no number column/.test(err.message) && /"a", "b"/.test(err.hint ?? ''));
    // Numbers under a header cell left empty: --msisdn-column cannot name it, so the hint says what can.
    assert.throws(
      () => planColumns(['Name', ''], {}, 'f.csv'),
      (err: unknown) => err instanceof UsageError && err.hint === 'Name the column with --msisdn-column. The header has: "Name" (and 1 column with no name); a column with no name cannot be chosen: give the number column a name in the header (phone, say).',
    );
    assert.throws(() => planColumns(['msisdn', 'b'], { varColumns: ['c'] }, 'f.csv'), /--var-columns: f.csv has no column "c"/);
    // A typo of a header name gets the nearest one, in every column flag.
    assert.throws(() => planColumns(['Mobile', 'First name', 'campaign'], { msisdnColumn: 'Mobil' }, 'f.csv'), /--msisdn-column: f.csv has no column "Mobil"; did you mean "Mobile"\?/);
    assert.throws(() => planColumns(['msisdn', 'First name', 'campaign'], { varColumns: ['first nme'] }, 'f.csv'), /--var-columns: f.csv has no column "first nme"; did you mean "First name"\?/);
    assert.throws(() => planColumns(['msisdn', 'First name', 'campaign'], { metaColumns: ['campain'] }, 'f.csv'), /--meta-columns: f.csv has no column "campain"; did you mean "campaign"\?/);
  });
});

describe('rates and throttling', () => {
  test('parses N/s, N/m, N/h and refuses the rest', () => {
    assert.equal(parseRate('100/s')?.perMs, 0.1);
    assert.equal(parseRate('6000/m')?.perMs, 0.1);
    assert.equal(parseRate('360000/h')?.perMs, 0.1);
    assert.equal(parseRate('5 / min')?.perMs, 5 / 60_000);
    for (const bad of ['100', '0/s', '-1/s', 'x/s', '10/d']) assert.equal(parseRate(bad), undefined, bad);
  });

  test('the limiter spaces batches evenly and is exact over a minute', async () => {
    let now = 0;
    const starts: number[] = [];
    const limiter = new RateLimiter(parseRate('600/m') ?? assert.fail(), () => now, (ms) => {
      now += ms;
      return Promise.resolve();
    });
    for (let i = 0; i < 61; i++) {
      await limiter.take(10);
      starts.push(now);
    }
    // 10 recipients at 10/s: one batch a second; batch 60 starts at exactly 60 s.
    assert.deepEqual(starts.slice(0, 4), [0, 1000, 2000, 3000]);
    assert.equal(starts[60], 60_000);
  });

  test('after a pause the limiter does not burst', async () => {
    let now = 0;
    const limiter = new RateLimiter(parseRate('10/s') ?? assert.fail(), () => now, (ms) => {
      now += ms;
      return Promise.resolve();
    });
    await limiter.take(10);
    now += 10_000; // a long 429 pause
    await limiter.take(10);
    const before = now;
    await limiter.take(10);
    assert.equal(now - before, 1000);
  });

  test('the gate holds every waiter until the pause ends', async () => {
    let now = 0;
    const gate = new Gate(() => now, (ms) => {
      now += ms;
      return Promise.resolve();
    });
    gate.pauseFor(2500);
    await gate.wait();
    assert.equal(now, 2500);
  });

  test('the window halves on throttling and grows back one step at a time', async () => {
    const w = new Window(8);
    w.throttled();
    assert.equal(w.limit, 4);
    w.throttled();
    w.throttled();
    w.throttled();
    assert.equal(w.limit, 1);
    w.succeeded();
    assert.equal(w.limit, 1);
    w.succeeded();
    assert.equal(w.limit, 2);
    assert.equal(await w.acquire(), true);
    assert.equal(await w.acquire(), true);
    let third = false;
    const p = w.acquire().then(() => (third = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(third, false);
    w.release();
    await p;
    assert.equal(third, true);
  });
});

describe('journal', () => {
  const header = (requests: number): RunHeader => ({
    type: 'run',
    version: 1,
    runId: 'r1',
    createdAt: '2026-01-01T00:00:00.000Z',
    msgr: '0.0.0',
    input: { path: '/x.csv', stdin: false, size: 1, mtimeMs: 1, quickHash: 'q', hash: 'h' },
    shape: { batchSize: 2, encoding: 'utf8', delimiter: ',', msisdnColumn: 'msisdn', varColumns: [], metaColumns: [], defaultCountry: null, allowDuplicates: false, skipInvalid: false, exclude: null },
    message: { accountReference: 'A', channel: 'SMS', from: 'X', body: { text: 'hi' } },
    totals: { rows: 8, toSend: 8, requests },
  });

  test('records batches before and after; a batch that left with no outcome is started (in doubt)', async () => {
    const path = join(tmp(), 'journal.jsonl');
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
    const path = join(tmp(), 'journal.jsonl');
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
    const path = join(tmp(), 'journal.jsonl');
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
    const path = join(tmp(), 'journal.jsonl');
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
    const path = join(tmp(), 'journal.jsonl');
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
    const path = join(tmp(), 'journal.jsonl');
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

describe('report and responses', () => {
  test('CSV fields are quoted only when needed, quotes doubled', () => {
    assert.equal(csvField('plain'), 'plain');
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('two\nlines'), '"two\nlines"');
  });

  test('writes CSV and JSONL reports', () => {
    const dir = tmp();
    const csv = new ReportWriter(join(dir, 'r.csv'), 4242);
    csv.write({ line: 2, number: '+447400900001', outcome: 'accepted', status: 202, messageId: 'm1' });
    csv.write({ line: 3, number: 'abc', outcome: 'invalid', error: '=cmd, "x"' });
    csv.close();
    assert.equal(readFileSync(join(dir, 'r.csv'), 'utf8'), 'line,number,outcome,status,message_id,error\n2,+447400900001,accepted,202,m1,\n3,abc,invalid,,,"\'=cmd, ""x"""\n');
    const jl = new ReportWriter(join(dir, 'r.jsonl'), 4242);
    jl.write({ line: 2, number: '+447400900001', outcome: 'in-doubt', error: 'timeout' });
    jl.close();
    assert.deepEqual(JSON.parse(readFileSync(join(dir, 'r.jsonl'), 'utf8')), { line: 2, number: '+447400900001', outcome: 'in-doubt', status: null, messageId: null, error: 'timeout' });
    assert.throws(() => new ReportWriter(join(dir, 'r.txt'), 4242), /must end in .csv or .jsonl/);
  });

  test('message ids from several response shapes', () => {
    const nums = ['+1', '+2'];
    assert.deepEqual(extractMessageIds({ messages: [{ id: 'a', msisdn: '+2' }, { id: 'b', msisdn: '+1' }] }, nums), ['b', 'a']);
    assert.deepEqual(extractMessageIds([{ messageId: 'x' }, { messageId: 'y' }], nums), ['x', 'y']);
    assert.deepEqual(extractMessageIds({ id: 'only' }, ['+1']), ['only']);
    assert.deepEqual(extractMessageIds({ id: 'only' }, nums), [undefined, undefined]);
    assert.deepEqual(extractMessageIds('OK', nums), [undefined, undefined]);
  });

  test('the request frame keeps the spec order: recipients after body, before metaData', () => {
    const f = requestFrame({ accountReference: 'A', channel: 'SMS', from: 'X', body: { text: 'hi' }, metaData: { c: '1' } });
    const json = JSON.parse(`${f.prefix}{"msisdn":"+447400900001"}${f.suffix}`) as Record<string, unknown>;
    assert.deepEqual(Object.keys(json), ['accountReference', 'channel', 'from', 'body', 'recipients', 'metaData']);
  });
});

describe('progress', () => {
  function fakeCtx(stderr: { isTTY: boolean; columns: number }): { ctx: Context; out: () => string } {
    let text = '';
    const err = {
      ...stderr,
      write(chunk: string): boolean {
        text += chunk;
        return true;
      },
      // ora asks a TTY stream for these.
      on: () => err,
      once: () => err,
      removeListener: () => err,
      cursorTo: () => true,
      moveCursor: () => true,
      clearLine: () => true,
    };
    const ctx = { env: {}, stderr: err, stdout: err } as unknown as Context;
    return { ctx, out: () => text };
  }

  test('a terminal that reports 0 columns gets no spinner at all', { timeout: 5000 }, async () => {
    const { ctx, out } = fakeCtx({ isTTY: true, columns: 0 });
    const p = await createProgress(ctx, { quiet: false, verbose: false });
    for (let i = 0; i < 50; i++) p.update({ done: i, total: 50, failed: 0, inFlight: 1 });
    p.stop();
    assert.equal(out(), '');
  });

  test('without a terminal nothing is written until the summary, even with --verbose at first', async () => {
    const { ctx, out } = fakeCtx({ isTTY: false, columns: 0 });
    const p = await createProgress(ctx, { quiet: false, verbose: true });
    p.update({ done: 5, total: 10, failed: 0, inFlight: 1 });
    p.stop();
    assert.equal(out(), '');
  });

  test('durations for the ETA', () => {
    assert.equal(formatDuration(5), '0:05');
    assert.equal(formatDuration(125), '2:05');
    assert.equal(formatDuration(3725), '1:02:05');
  });
});

describe('rate over time', () => {
  test('timers that fire late do not make the rate sag', async () => {
    let now = 0;
    const limiter = new RateLimiter(parseRate('500/s') ?? assert.fail(), () => now, (ms) => {
      now += ms + 1.5; // every timer 1.5 ms late
      return Promise.resolve();
    });
    let sent = 0;
    for (;;) {
      await limiter.take(10);
      if (now >= 20_000) break;
      sent += 10;
    }
    // 500/s for 20 s: 10,000, not the ~9,300 a schedule shifted by every delay would give.
    assert.ok(Math.abs(sent - 10_000) <= 10, String(sent));
  });
});

describe('spool', () => {
  test('rows come back in order with their verdicts, even with tabs and newlines in the input', async () => {
    const path = join(tmp(), 'run.spool');
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
    const path = join(tmp(), 'journal.jsonl');
    const j = smallJournal(path, 3, () => new Date());
    await Promise.all([0, 1, 2].map((batch) => j.startedDurably({ batch, first: batch, count: 1, key: `k${batch}` })));
    for (const batch of [0, 1, 2]) j.leaving(batch);
    const loaded = await loadJournal(path);
    assert.deepEqual([...loaded.states], [BatchState.started, BatchState.started, BatchState.started]);
    j.close();
  });

  test('"send" lines journaled ahead wait for their group (commitAt recipients) or for need(); one write carries the turn\'s answers and "out" lines', async () => {
    const path = join(tmp(), 'journal.jsonl');
    const j = smallJournal(path, 6, () => new Date('2026-11-24T00:00:00.000Z'));
    const turns = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 5));
    };
    const state = (p: Promise<unknown>, ms = 5): Promise<string> => Promise.race([p.then(() => 'durable'), new Promise<string>((r) => setTimeout(() => r('waiting'), ms))]);
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
    const path = join(tmp(), 'journal.jsonl');
    const j = smallJournal(path, 4, () => new Date('2026-11-24T00:00:00.000Z'));
    const state = (p: Promise<unknown>, ms: number): Promise<string> => Promise.race([p.then(() => 'durable'), new Promise<string>((r) => setTimeout(() => r('waiting'), ms))]);
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
    assert.equal(await state(late, 5), 'waiting');
    await Promise.all(busy);
    assert.equal(await state(Promise.all([...flushing, late]), 10_000), 'durable');
    assert.deepEqual(readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; batch?: number }).filter((r) => r.type === 'send').map((r) => r.batch), [0, 1, 2, 3]);
    j.close();
  });
});
