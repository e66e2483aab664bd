// Reading the CSV: encodings, line ends, quotes, line numbers, blank rows, and the readers that must agree.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { CsvInputError, detectFormat, isBlankRecord, isSimpleRange, readCsv, readSimpleCsv, sniffDelimiter, type CsvFormat } from '../../../src/csv/reader.js';
import { tempDir } from '../../support/cli.js';
import { findSplit } from '../../../src/bulk/preflight/parallel.js';
import { tempFile } from '../../support/files.js';

describe('CSV reading', () => {
  async function rows(content: Buffer | string, given: { encoding?: 'latin1' } = {}): Promise<{ header: string[]; rows: Array<[string[], number]> }> {
    const dir = tempDir();
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

type Rec = [string[], number, number];

/** Records of csv-parse, of the simple splitter, and of the two parts of a split: all three. */
async function threeReaders(path: string, size: number, format: CsvFormat): Promise<{ csv: Rec[]; simple: Rec[]; split: Rec[] }> {
  const csv: Rec[] = [];
  await readCsv(path, { format, onRecord: (f, _i, line, end) => csv.push([f, line, end]) });
  const head = await readCsv(path, { format, stopAfterHeader: true, onRecord: () => undefined });
  assert.ok(head.recordDelimiter !== undefined && head.header !== undefined);
  const range = { format, offset: head.bytes, line: head.nextLine, recordDelimiter: head.recordDelimiter };
  assert.equal(await isSimpleRange(path, range), true);
  const simple: Rec[] = [];
  await readSimpleCsv(path, range, (f, _i, line, end) => simple.push([f, line, end]));
  const at = await findSplit(path, format, size, 0);
  assert.ok(typeof at !== 'string', typeof at === 'string' ? at : '');
  const split: Rec[] = [];
  await readCsv(path, { format, end: at.offset, onRecord: (f, _i, line, end) => split.push([f, line, end]) });
  await readCsv(path, {
    format,
    start: { offset: at.offset, line: at.line, record: 0, header: head.header },
    onRecord: (f, _i, line, end) => split.push([f, line, end]),
  });
  return { csv, simple, split };
}

describe('rows of delimiters and whitespace are blank, to every reader', () => {
  test('isBlankRecord', () => {
    assert.equal(isBlankRecord(['', '', '']), true);
    assert.equal(isBlankRecord([' ', '\t', '']), true);
    assert.equal(isBlankRecord(['']), true);
    assert.equal(isBlankRecord(['', 'x']), false);
    assert.equal(isBlankRecord(['+447911123456']), false);
  });

  test('csv-parse, the simple splitter and a split read give the same records, lines and offsets', async () => {
    for (const eol of ['\n', '\r\n']) {
      for (const delimiter of [';', ',', '\t']) {
        const rows = [`Phone Number${delimiter}name${delimiter}code`, `${delimiter}${delimiter}`, ''];
        for (let i = 0; i < 120; i++) {
          if (i % 5 === 0) rows.push(`${delimiter}${delimiter}`);
          else if (i % 7 === 0) rows.push(` ${delimiter} ${delimiter}\t`);
          else if (i % 11 === 0) rows.push('');
          rows.push(`+4479111${String(i).padStart(5, '0')}${delimiter}N${i}${delimiter}${i % 3 === 0 ? '' : ' 007'}`);
        }
        rows.push(`${delimiter}${delimiter}`);
        const text = `${rows.join(eol)}${eol}`;
        const path = tempFile(text);
        const format = await detectFormat(path, {});
        assert.equal(format.delimiter, delimiter);
        const r = await threeReaders(path, Buffer.byteLength(text), format);
        assert.equal(r.csv.length, 120, `${JSON.stringify(eol)} ${JSON.stringify(delimiter)}`);
        assert.ok(r.csv.every(([f]) => !isBlankRecord(f)));
        assert.deepEqual(r.simple, r.csv, `simple, ${JSON.stringify(eol)} ${JSON.stringify(delimiter)}`);
        assert.deepEqual(r.split, r.csv, `split, ${JSON.stringify(eol)} ${JSON.stringify(delimiter)}`);
      }
    }
  });

  test('blank rows before the header are skipped; the header is the first row with text', async () => {
    const path = tempFile(';;\n\nmsisdn;name;x\n+447911123456;Ann;\n');
    const format = await detectFormat(path, { delimiter: ';' });
    let header: string[] | undefined;
    const lines: number[] = [];
    await readCsv(path, { format, onHeader: (h) => (header = h), onRecord: (_f, _i, line) => lines.push(line) });
    assert.deepEqual(header, ['msisdn', 'name', 'x']);
    assert.deepEqual(lines, [4]);
  });

  test('every line end ends a record, whichever a file mixes, with the lines the file has', async () => {
    const cases: Array<[string, string]> = [
      // A CR LF export with rows appended by a Unix tool.
      ['CR LF, then LF', 'msisdn,name\r\n+447911123401,Ann\r\n+447911123402,Bob\n+447911123403,Cy\n'],
      // An LF header over CR LF rows.
      ['LF, then CR LF', 'msisdn,name\n+447911123401,Ann\r\n+447911123402,Bob\r\n+447911123403,Cy\r\n'],
      // An old Mac's CR, with a quoted line break in a cell.
      ['CR', 'msisdn,name\r+447911123401,Ann\r+447911123402,"Bob"\r+447911123403,Cy\r'],
    ];
    for (const [label, content] of cases) {
      const path = tempFile(content);
      const format = await detectFormat(path, {});
      const got: Array<[string[], number]> = [];
      await readCsv(path, { format, onRecord: (f, _i, line) => got.push([f, line]) });
      assert.deepEqual(got, [[['+447911123401', 'Ann'], 2], [['+447911123402', 'Bob'], 3], [['+447911123403', 'Cy'], 4]], label);
    }
    const quoted = tempFile('msisdn,note\r\n+447911123401,"one\rtwo"\n+447911123402,x\r\n');
    const rows: Array<[string[], number]> = [];
    await readCsv(quoted, { format: await detectFormat(quoted, {}), onRecord: (f, _i, line) => rows.push([f, line]) });
    assert.deepEqual(rows, [[['+447911123401', 'one\rtwo'], 2], [['+447911123402', 'x'], 4]]);
  });

  test("an Excel 'sep=' first line names the delimiter and is not a record, to every reader; lines keep the file's numbers", async () => {
    for (const eol of ['\n', '\r\n']) {
      for (const [sep, delimiter] of [
        ['sep=;', ';'],
        ['SEP=,', ','],
        ['"sep=|"', '|'],
        ['sep=\t', '\t'],
        // A sheet with a `sep=` line saved again: the line's empty cells follow it.
        ['sep=;;;', ';'],
        ['"sep=,",,', ','],
      ] as const) {
        const rows = [sep, `msisdn${delimiter}name`];
        for (let i = 0; i < 40; i++) rows.push(`+4479111${String(i).padStart(5, '0')}${delimiter}N${i}`);
        const text = `${rows.join(eol)}${eol}`;
        const path = tempFile(text);
        const format = await detectFormat(path, {});
        const label = `${JSON.stringify(sep)} ${JSON.stringify(eol)}`;
        assert.deepEqual([format.delimiter, format.firstByte, format.firstLine], [delimiter, sep.length + eol.length, 2], label);
        let header: string[] | undefined;
        await readCsv(path, { format, onHeader: (h) => (header = h), onRecord: () => undefined });
        assert.deepEqual(header, ['msisdn', 'name'], label);
        const r = await threeReaders(path, Buffer.byteLength(text), format);
        assert.equal(r.csv.length, 40, label);
        assert.deepEqual(r.csv[0]?.slice(0, 2), [['+447911100000', 'N0'], 3], label);
        assert.deepEqual(r.simple, r.csv, `simple, ${label}`);
        assert.deepEqual(r.split, r.csv, `split, ${label}`);
      }
    }
  });

  test("a 'sep=' line after a BOM, in UTF-16, with --no-header, or with --delimiter given", async () => {
    const utf8 = tempFile(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('sep=;\nmsisdn;name\n+447911123456;Zoë\n')]));
    const u8 = await detectFormat(utf8, {});
    assert.deepEqual([u8.delimiter, u8.firstByte, u8.firstLine], [';', 3 + 6, 2]);
    const utf16 = tempFile(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('sep=;\r\nmsisdn;name\r\n+447911123456;Zoë\r\n', 'utf16le')]));
    const u16 = await detectFormat(utf16, {});
    assert.deepEqual([u16.encoding, u16.delimiter, u16.firstByte, u16.firstLine], ['utf16le', ';', 2 + 14, 2]);
    const got: Array<[string[], number]> = [];
    await readCsv(utf16, { format: u16, onRecord: (f, _i, line) => got.push([f, line]) });
    assert.deepEqual(got, [[['+447911123456', 'Zoë'], 3]]);

    const bare = tempFile('sep=,\n+447911123456,Ann\n');
    const nh = await detectFormat(bare, { noHeader: true });
    const rows: Array<[string[], number]> = [];
    await readCsv(bare, { format: nh, onRecord: (f, _i, line) => rows.push([f, line]) });
    assert.deepEqual(rows, [[['+447911123456', 'Ann'], 2]], '--no-header: the first record after the sep line is data');

    const given = await detectFormat(tempFile('sep=;\nmsisdn,name\n'), { delimiter: ',' });
    assert.deepEqual([given.delimiter, given.detected, given.firstLine], [',', false, 2], '--delimiter wins; the sep line is still not a record');
    const only = await detectFormat(tempFile('sep=;'), {});
    assert.deepEqual([only.delimiter, only.firstByte], [';', 5], 'a file of nothing but the sep line has no header');
    const notSep = await detectFormat(tempFile('separator,name\n+447911123456,Ann\n'), {});
    assert.deepEqual([notSep.delimiter, notSep.firstByte, notSep.firstLine], [',', 0, 1], 'a header that merely starts with "sep" is a header');
  });

  test('--no-header: the first row is data and the columns are their positions', async () => {
    const path = tempFile(',\n+447911123456,Ann\n+447911123457,Bob\n');
    const format = await detectFormat(path, { noHeader: true });
    let header: string[] | undefined;
    const got: Array<[string[], number]> = [];
    await readCsv(path, { format, onHeader: (h) => (header = h), onRecord: (f, _i, line) => got.push([f, line]) });
    assert.deepEqual(header, ['1', '2']);
    assert.deepEqual(got, [
      [['+447911123456', 'Ann'], 2],
      [['+447911123457', 'Bob'], 3],
    ]);
    const head = await readCsv(path, { format, stopAfterHeader: true, onRecord: () => undefined });
    assert.deepEqual([head.bytes, head.nextLine], [0, 1], 'the data starts at the start of the file');
  });
});

describe('the fast path for simple rows (isSimpleRange, readSimpleCsv)', () => {
  type Rec = [string[], number, number];
  async function both(content: Buffer, given: { encoding?: 'latin1' | 'utf8'; delimiter?: string } = {}): Promise<{ simple: boolean; csv: Rec[]; fast: Rec[] | undefined }> {
    const path = tempFile(content);
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
