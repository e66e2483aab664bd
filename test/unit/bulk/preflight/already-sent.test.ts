// Rows an earlier run accepted (--skip-sent, --restart) are left out by the preflight, before rows
// are grouped and counted: the counts, the spool and the first request are those of the rows that
// remain, in one pass or split over two threads.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { planColumns } from '../../../../src/bulk/input/columns.js';
import { createNumberChecker } from '../../../../src/bulk/input/number-check.js';
import { NumberSet, numberKey } from '../../../../src/bulk/input/number-set.js';
import { runParallelPreflight } from '../../../../src/bulk/preflight/parallel.js';
import { messageColumnNames, type MessageSource } from '../../../../src/bulk/compose/personalise.js';
import { nothingToSend, runPreflight, type PreflightResult } from '../../../../src/bulk/preflight/range.js';
import { detectFormat } from '../../../../src/csv/reader.js';
import { rowFingerprint } from '../../../../src/bulk/preflight/repeats.js';
import { readSpool, SpoolWriter, type SpoolSource } from '../../../../src/bulk/preflight/spool.js';
import { tempDir } from '../../../support/cli.js';

const dir = tempDir('msgr-skip-sent-');

function csvFile(content: string): string {
  const path = join(dir, `in-${Math.random().toString(36).slice(2)}.csv`);
  writeFileSync(path, content);
  return path;
}

function numbers(list: readonly string[]): NumberSet {
  const set = new NumberSet(16);
  for (const n of list) set.add(numberKey(n));
  return set;
}

async function lines(spool: SpoolSource): Promise<string[]> {
  const out: string[] = [];
  await spool((kind, line, number, payload) => out.push(`${kind} ${line} ${number} ${payload}`));
  return out;
}

async function onePass(path: string, o: { sent?: NumberSet; message?: MessageSource; batchSize?: number }): Promise<{ pre: PreflightResult; spool: string[] }> {
  const spoolPath = `${path}.${Math.random().toString(36).slice(2)}.spool`;
  const writer = new SpoolWriter(spoolPath);
  const pre = await runPreflight({
    path,
    fileLabel: 'in.csv',
    format: await detectFormat(path, {}),
    columns: o.message !== undefined ? { messageColumns: messageColumnNames(o.message) } : {},
    checker: createNumberChecker(undefined),
    repeats: 'first',
    sent: o.sent,
    batchSize: o.batchSize ?? 2,
    spool: writer,
    message: o.message,
  });
  writer.close();
  return { pre, spool: await lines((onLine) => readSpool(spoolPath, onLine)) };
}

const HI: MessageSource = { text: 'Hi {{name}}', textFlag: '--text', channel: 'SMS', spec: { render: true, textColumn: null, fromColumn: null, maxParts: null } };

describe('rows already sent, left out by the preflight', () => {
  test('with a message per row, rows are grouped and counted over the rows that remain', async () => {
    // Ann ×3, Bob ×2, Cy: with batches of 2, Ann's 1st and 3rd rows would share a request with
    // her 2nd; once her 2nd is left out, her 1st and 3rd share one, and Bob's remaining row is alone.
    const path = csvFile(
      [
        'msisdn,name',
        '+447911100001,Ann',
        '+447911100002,Ann',
        '+447911100003,Bob',
        '+447911100004,Ann',
        '+447911100005,Bob',
        '+447911100006,Cy',
        '+447911100002,Ann',
      ].join('\n') + '\n',
    );
    const sent = numbers(['+447911100002', '+447911100003', '+447911109999']);
    const { pre, spool } = await onePass(path, { sent, message: HI });
    assert.deepEqual([pre.rows, pre.toSend, pre.alreadySent, pre.duplicates, pre.requests], [7, 4, 2, 1, 3]);
    assert.equal(pre.totals?.messages, 4);
    assert.equal(pre.firstKey, '["Hi Ann"]');
    assert.deepEqual(pre.firstBatch, ['{"msisdn":"+447911100001"}', '{"msisdn":"+447911100004"}']);
    assert.deepEqual(spool, [
      'S 2 +447911100001 {"msisdn":"+447911100001"}\t["Hi Ann"]',
      'A 3 +447911100002 ',
      'A 4 +447911100003 ',
      'S 5 +447911100004 {"msisdn":"+447911100004"}\t["Hi Ann"]',
      'S 6 +447911100005 {"msisdn":"+447911100005"}\t["Hi Bob"]',
      'S 7 +447911100006 {"msisdn":"+447911100006"}\t["Hi Cy"]',
      // A number's later rows are duplicates, as without --skip-sent: the same message again
      // (`=` and its fingerprint: bulk/preflight/repeats.ts).
      `D 8 +447911100002 =${rowFingerprint(planColumns(['msisdn', 'name'], { messageColumns: ['name'] }, 'in.csv'), ['+447911100002', 'Ann'], '["Hi Ann"]').toString(16)}`,
    ]);
    // The same requests as the file without those rows would give.
    const rest = csvFile('msisdn,name\n+447911100001,Ann\n+447911100004,Ann\n+447911100005,Bob\n+447911100006,Cy\n');
    const without = await onePass(rest, { message: HI });
    assert.deepEqual([without.pre.toSend, without.pre.requests, without.pre.firstKey, without.pre.firstBatch], [pre.toSend, pre.requests, pre.firstKey, pre.firstBatch]);
  });

  test('with one shared text: batches of --batch-size rows among those that remain', async () => {
    const list = Array.from({ length: 9 }, (_, i) => `+4479111000${String(i + 10)}`);
    const path = csvFile(`msisdn\n${list.join('\n')}\n`);
    const { pre } = await onePass(path, { sent: numbers([list[0] as string, list[4] as string]), batchSize: 3 });
    assert.deepEqual([pre.toSend, pre.alreadySent, pre.requests], [7, 2, 3]);
    assert.deepEqual(pre.firstBatch, [1, 2, 3].map((i) => `{"msisdn":"${list[i] ?? ''}"}`));
  });

  test('every row already sent is not "nothing to send": the run says so in its summary', async () => {
    const path = csvFile('msisdn\n+447911100001\n+447911100002\n');
    const { pre } = await onePass(path, { sent: numbers(['+447911100001', '+447911100002']) });
    assert.deepEqual([pre.toSend, pre.alreadySent, pre.requests], [0, 2, 0]);
    assert.equal(nothingToSend(pre, 'in.csv'), undefined);
    const { pre: none } = await onePass(path, {});
    assert.equal(nothingToSend({ ...none, toSend: 0 }, 'in.csv')?.message.startsWith('nothing to send'), true);
  });

  test('split over two threads: the same counts and spool lines as one pass, duplicates across the split included', async () => {
    // Numbers repeat across the middle of the file; some of them, and some others, were sent.
    const rows: string[] = [];
    for (let i = 0; i < 4000; i++) rows.push(`+4479112${String(i % 2600).padStart(5, '0')},N${i}`);
    const path = csvFile(`msisdn,name\n${rows.join('\n')}\n`);
    const sentList: string[] = [];
    for (let i = 0; i < 2600; i += 7) sentList.push(`+4479112${String(i).padStart(5, '0')}`);
    const sent = numbers(sentList);
    const one = await onePass(path, { sent, batchSize: 50 });
    const format = await detectFormat(path, {});
    const spoolPath = `${path}.split.spool`;
    const split = await runParallelPreflight({
      path,
      fileLabel: 'in.csv',
      format,
      columns: {},
      country: undefined,
      repeats: 'first',
      sent,
      batchSize: 50,
      fileBytes: Buffer.byteLength(`msisdn,name\n${rows.join('\n')}\n`),
      spoolPath,
      minBytes: 0,
    });
    assert.ok(split !== undefined && split.spool !== undefined, 'the file was split');
    assert.ok(split.splitLine > 1000 && split.splitLine < 3000, `split at line ${split.splitLine}`);
    const figures = (p: PreflightResult): number[] => [p.rows, p.toSend, p.alreadySent, p.duplicates, p.requests];
    assert.deepEqual(figures(split), figures(one.pre));
    // Both halves have rows already sent and duplicates of the other.
    assert.ok(one.pre.alreadySent === sentList.length && one.pre.duplicates === 1400, JSON.stringify(figures(one.pre)));
    assert.deepEqual(split.firstBatch, one.pre.firstBatch);
    // A duplicate's payload: `=` or `F`, then its message's fingerprint, which only the split's own
    // join reads (bulk/preflight/repeats.ts); the second half's rows it settles keep the mark alone.
    const mark = (l: string): string => (l.startsWith('D ') ? l.replace(/ ([=F])[0-9a-f]*$/, ' $1') : l);
    assert.deepEqual((await lines(split.spool)).map(mark), one.spool.map(mark));
  });
});
