// The split of the parallel preflight (src/bulk/parallel.ts): where the file may be cut, and the
// line number it gives the second part, checked against the reader's own numbering.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { asciiJson, planColumns, recipientJson } from '../../src/bulk/columns.js';
import { NumberSet, textHash, textHash52 } from '../../src/bulk/number-set.js';
import { requestFrame } from '../../src/bulk/message.js';
import { readSpool, SpoolWriter } from '../../src/bulk/spool.js';
import { findSplit } from '../../src/bulk/parallel.js';
import { detectFormat, isSimpleRange, readCsv, readSimpleCsv } from '../../src/bulk/reader.js';

function file(content: string | Buffer): string {
  const path = join(mkdtempSync(join(tmpdir(), 'msgr-split-')), 'in.csv');
  writeFileSync(path, content);
  return path;
}

/** Line and byte offset of every data record, as the single pass sees them. */
async function records(path: string): Promise<Array<{ line: number; start: number }>> {
  const format = await detectFormat(path, {});
  const out: Array<{ line: number; start: number }> = [];
  let start = -1;
  await readCsv(path, {
    format,
    onHeader: () => undefined,
    onRecord: (_f, _i, line, end) => {
      out.push({ line, start });
      start = end;
    },
  });
  return out;
}

describe('findSplit', () => {
  test('splits at a record start, outside quotes, with the line the reader gives that record', async () => {
    const rows = ['msisdn,note'];
    for (let i = 0; i < 200; i++) rows.push(i % 3 === 0 ? `+4479111${String(i).padStart(5, '0')},"a\nb ""q"" ${'x'.repeat(i % 40)}"` : `+4479111${String(i).padStart(5, '0')},n`);
    for (const eol of ['\n', '\r\n']) {
      const path = file(`\uFEFF${rows.join(eol)}${eol}`);
      const format = await detectFormat(path, {});
      const size = Buffer.byteLength(`\uFEFF${rows.join(eol)}${eol}`);
      const split = await findSplit(path, format, size, 0);
      assert.ok(typeof split !== 'string', typeof split === 'string' ? split : '');
      assert.equal(split.recordDelimiter, eol);
      // Where each record starts (the byte after the one before ends) → its line.
      const starts = new Map((await records(path)).map((r) => [r.start, r.line]));
      assert.ok(starts.has(split.offset), `split at ${split.offset} is a record start`);
      assert.equal(starts.get(split.offset), split.line);
      assert.ok(split.offset > size / 2 - 200 && split.offset < size / 2 + 400, `near the middle: ${split.offset} of ${size}`);
    }
  });

  test('does not split UTF-16, CR-only files, small files, or a file that is one quoted field', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('msisdn\n+447911123456\n+447911123457\n'.repeat(50), 'utf16le')]);
    const p1 = file(utf16);
    assert.equal(typeof (await findSplit(p1, await detectFormat(p1, {}), utf16.length, 0)), 'string');
    const cr = 'msisdn\r+447911123456\r'.repeat(50);
    const p2 = file(cr);
    assert.equal(await findSplit(p2, await detectFormat(p2, {}), cr.length, 0), 'CR line ends');
    const small = 'msisdn\n+447911123456\n'.repeat(50);
    const p3 = file(small);
    assert.equal(await findSplit(p3, await detectFormat(p3, {}), small.length), 'small file');
    const quoted = `msisdn,note\n+447911123456,"${'line\n'.repeat(200)}"\n`;
    const p4 = file(quoted);
    assert.equal(await findSplit(p4, await detectFormat(p4, {}), quoted.length, 0), 'no split point');
  });
});

describe('NumberSet export, from and countShared', () => {
  test('a set rebuilt from its slots has the same numbers; shared numbers are counted once each', () => {
    const a = new NumberSet(4);
    const b = new NumberSet(4);
    for (let i = 1; i <= 1000; i++) a.add(447911000000 + i);
    for (let i = 900; i <= 1500; i++) b.add(447911000000 + i);
    const copy = NumberSet.from(a.export());
    assert.equal(copy.size, 1000);
    assert.ok(copy.has(447911000001) && copy.has(447911001000) && !copy.has(447911001001));
    assert.equal(b.countShared(a), 101);
    assert.equal(a.countShared(b), 101);
  });
});

describe('NumberSet values beside the numbers (addValued)', () => {
  test('a number keeps the value it was first added with, through the growth of the set', () => {
    const set = new NumberSet(4);
    for (let i = 1; i <= 5000; i++) assert.equal(set.addValued(447911000000 + i, i * 7), undefined);
    for (let i = 1; i <= 5000; i++) assert.equal(set.addValued(447911000000 + i, 1), i * 7, `number ${i}`);
    assert.equal(set.size, 5000);
    assert.equal(textHash('Hi Ann'), textHash('Hi Ann'));
    assert.notEqual(textHash('Hi Ann'), textHash('Hi Tom'));
    // 52-bit keys of texts: whole numbers a NumberSet takes (never 0, below 2^53), one per text.
    const keys = new Set<number>();
    for (let i = 0; i < 10_000; i++) {
      const k = textHash52(`447911123456\tHi ${i}`);
      assert.ok(Number.isSafeInteger(k) && k > 0 && k <= 2 ** 52, String(k));
      keys.add(k);
    }
    assert.equal(keys.size, 10_000);
    assert.equal(textHash52(''), textHash52(''));
  });
});

describe('the fast path for simple rows (isSimpleRange, readSimpleCsv)', () => {
  type Rec = [string[], number, number];
  async function both(content: Buffer, given: { encoding?: 'latin1' | 'utf8'; delimiter?: string } = {}): Promise<{ simple: boolean; csv: Rec[]; fast: Rec[] | undefined }> {
    const path = file(content);
    const format = await detectFormat(path, given);
    const csv: Rec[] = [];
    // (Some of the files csv-parse refuses; the fast path must then refuse them too.)
    await readCsv(path, { format, onRecord: (f, _i, line, end) => csv.push([f, line, end]) }).catch(() => undefined);
    const head = await readCsv(path, { format, stopAfterHeader: true, onRecord: () => undefined });
    if (head.recordDelimiter === undefined) return { simple: false, csv, fast: undefined };
    const range = { format, offset: head.bytes, line: head.nextLine, recordDelimiter: head.recordDelimiter };
    const simple = await isSimpleRange(path, range);
    if (!simple) return { simple, csv, fast: undefined };
    const fast: Rec[] = [];
    await readSimpleCsv(path, range, (f, _i, line, end) => fast.push([f, line, end]));
    return { simple, csv, fast };
  }

  test('gives csv-parse\'s records, lines and offsets for rows it accepts', async () => {
    const cases: Array<[string, Buffer, { encoding?: 'latin1' | 'utf8'; delimiter?: string }?]> = [
      ['LF', Buffer.from('msisdn,name\n+447911123456,Ann\n+447911123457,Bob\n')],
      ['CRLF, BOM, empty lines, no final line end', Buffer.from('\uFEFFmsisdn,name\r\n\r\n+447911123456,Ann\r\n\r\n\r\n+447911123457, Bob ,\r\n,\r\nx')],
      ['empty lines at the start and end, trailing delimiters', Buffer.from('msisdn,name\n\n\n+447911123456,,\n,,,\n\n')],
      ['semicolons, tabs in fields', Buffer.from('msisdn;name\n+447911123456;A\tn\n+447911123457;B\n')],
      ['invalid UTF-8 inside and at the ends of fields', Buffer.concat([Buffer.from('msisdn,name\n+447911123456,Zo'), Buffer.from([0xc3]), Buffer.from(',x\n+447911123457,'), Buffer.from([0xe2, 0x82]), Buffer.from('\n'), Buffer.from([0x80, 0x2c, 0xff]), Buffer.from('\n')])],
      ['Latin-1', Buffer.from('msisdn,name\n+447911123456,Zo\xeb\n', 'latin1'), { encoding: 'latin1' }],
      ['a quoted header (read by csv-parse), simple rows', Buffer.from('"ms\nisdn",name\n+447911123456,Ann\n')],
      ['one long row', Buffer.from(`msisdn,name\n+447911123456,${'é'.repeat(100_000)}\n`)],
    ];
    for (const [name, content, given] of cases) {
      const r = await both(content, given);
      assert.equal(r.simple, true, name);
      assert.deepEqual(r.fast, r.csv, name);
    }
  });

  test('leaves quotes, bare CRs, LFs in a CRLF file and very long lines to csv-parse', async () => {
    const cases: Array<[string, Buffer]> = [
      ['a quote', Buffer.from('msisdn,name\n+447911123456,"Ann"\n')],
      ['a stray quote', Buffer.from('msisdn,name\n+447911123456,An"n\n')],
      ['a CR in an LF file', Buffer.from('msisdn,name\n+447911123456,A\rnn\n')],
      ['a CRLF row in an LF file', Buffer.from('msisdn,name\n+447911123456,Ann\r\n')],
      ['an LF row in a CRLF file', Buffer.from('msisdn,name\r\n+447911123456,Ann\n+447911123457,Bob\r\n')],
      ['a bare CR in a CRLF file', Buffer.from('msisdn,name\r\n+447911123456,A\rnn\r\n')],
      ['a CR at the very end', Buffer.from('msisdn,name\r\n+447911123456,Ann\r')],
      ['a line over 256 KiB', Buffer.from(`msisdn,name\n+447911123456,${'x'.repeat(300_000)}\n`)],
    ];
    for (const [name, content] of cases) assert.equal((await both(content)).simple, false, name);
    // A CR that ends one 1 MiB read and an LF that starts the next.
    const row = '+447911123456,Ann\r\n';
    let text = 'msisdn,name\r\n';
    while (text.length < 1024 * 1024 - row.length) text += row;
    text += `${'y'.repeat(1024 * 1024 - text.length - 1)}\r\n+447911123457,Bob\r\n`;
    const r = await both(Buffer.from(text));
    assert.equal(r.simple, true);
    assert.deepEqual(r.fast, r.csv);
    const bare = `${text.slice(0, 1024 * 1024 - 1)}\rX${text.slice(1024 * 1024 + 1)}`;
    assert.equal((await both(Buffer.from(bare))).simple, false);
  });
});

describe('readSpool', () => {
  test('reads lines longer than its buffer and characters cut by a read, in order', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'msgr-spool-')), 'spool');
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

describe('recipient JSON in ASCII', () => {
  test('non-ASCII values and column names are \\u escapes of the same JSON value', () => {
    const plan = planColumns(['msisdn', 'prénom', 'note'], { metaColumns: ['note'] }, 'in.csv');
    const values = ['x', 'Zoë 😀 €', 'naïve "q"\n\u2028'];
    const json = recipientJson(plan, '+447400900001', values);
    assert.match(json, /^[\x20-\x7e]*$/, json);
    assert.deepEqual(JSON.parse(json), { msisdn: '+447400900001', variables: { prénom: 'Zoë 😀 €' }, metaData: { note: 'naïve "q"\n\u2028' } });
    assert.equal(asciiJson('"plain"'), '"plain"');
    assert.equal(asciiJson(JSON.stringify('é\ud800')), '"\\u00e9\\ud800"');
    const frame = requestFrame({ accountReference: 'ACME01', body: { text: 'Grüße' }, metaData: { campaign: 'été' } });
    assert.match(frame.prefix + frame.suffix, /^[\x20-\x7e]*$/);
    assert.deepEqual(JSON.parse(`${frame.prefix}${frame.suffix}`), { accountReference: 'ACME01', body: { text: 'Grüße' }, recipients: [], metaData: { campaign: 'été' } });
  });
});
