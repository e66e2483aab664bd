// The input rules of send-bulk as pure functions and single readers: blank rows of delimiters
// skipped alike by the three readers (csv-parse, the simple splitter, the two parts of a split
// preflight), the spreadsheet names of the number column, --no-header, opt-out list parsing,
// problems grouped by cause, and the message text decoder.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { chooseNumberColumn, headerKey, numberColumnKind, planColumns } from '../../src/bulk/columns.js';
import { loadExcludes } from '../../src/bulk/exclude.js';
import { createNumberChecker } from '../../src/bulk/number-check.js';
import { numberKey } from '../../src/bulk/number-set.js';
import { findSplit } from '../../src/bulk/parallel.js';
import { addToGroup, formatGroups, mergeGroups, type ProblemGroup } from '../../src/bulk/problems.js';
import { detectFormat, isBlankRecord, isSimpleRange, readCsv, readSimpleCsv, type CsvFormat } from '../../src/bulk/reader.js';
import { UsageError } from '../../src/errors.js';
import { normaliseNumber } from '../../src/message/numbers.js';
import { segmentText } from '../../src/message/segments.js';
import { decodeText, phoneText } from '../../src/message/text-file.js';

function file(content: string | Buffer, name = 'in.csv'): string {
  const path = join(mkdtempSync(join(tmpdir(), 'msgr-inputs-')), name);
  writeFileSync(path, content);
  return path;
}

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
        const path = file(text);
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
    const path = file(';;\n\nmsisdn;name;x\n+447911123456;Ann;\n');
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
      const path = file(content);
      const format = await detectFormat(path, {});
      const got: Array<[string[], number]> = [];
      await readCsv(path, { format, onRecord: (f, _i, line) => got.push([f, line]) });
      assert.deepEqual(got, [[['+447911123401', 'Ann'], 2], [['+447911123402', 'Bob'], 3], [['+447911123403', 'Cy'], 4]], label);
    }
    const quoted = file('msisdn,note\r\n+447911123401,"one\rtwo"\n+447911123402,x\r\n');
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
        const path = file(text);
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
    const utf8 = file(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('sep=;\nmsisdn;name\n+447911123456;Zoë\n')]));
    const u8 = await detectFormat(utf8, {});
    assert.deepEqual([u8.delimiter, u8.firstByte, u8.firstLine], [';', 3 + 6, 2]);
    const utf16 = file(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('sep=;\r\nmsisdn;name\r\n+447911123456;Zoë\r\n', 'utf16le')]));
    const u16 = await detectFormat(utf16, {});
    assert.deepEqual([u16.encoding, u16.delimiter, u16.firstByte, u16.firstLine], ['utf16le', ';', 2 + 14, 2]);
    const got: Array<[string[], number]> = [];
    await readCsv(utf16, { format: u16, onRecord: (f, _i, line) => got.push([f, line]) });
    assert.deepEqual(got, [[['+447911123456', 'Zoë'], 3]]);

    const bare = file('sep=,\n+447911123456,Ann\n');
    const nh = await detectFormat(bare, { noHeader: true });
    const rows: Array<[string[], number]> = [];
    await readCsv(bare, { format: nh, onRecord: (f, _i, line) => rows.push([f, line]) });
    assert.deepEqual(rows, [[['+447911123456', 'Ann'], 2]], '--no-header: the first record after the sep line is data');

    const given = await detectFormat(file('sep=;\nmsisdn,name\n'), { delimiter: ',' });
    assert.deepEqual([given.delimiter, given.detected, given.firstLine], [',', false, 2], '--delimiter wins; the sep line is still not a record');
    const only = await detectFormat(file('sep=;'), {});
    assert.deepEqual([only.delimiter, only.firstByte], [';', 5], 'a file of nothing but the sep line has no header');
    const notSep = await detectFormat(file('separator,name\n+447911123456,Ann\n'), {});
    assert.deepEqual([notSep.delimiter, notSep.firstByte, notSep.firstLine], [',', 0, 1], 'a header that merely starts with "sep" is a header');
  });

  test('--no-header: the first row is data and the columns are their positions', async () => {
    const path = file(',\n+447911123456,Ann\n+447911123457,Bob\n');
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

describe('the number column under spreadsheet names', () => {
  test('case, spaces and punctuation are ignored', () => {
    assert.equal(headerKey(' Mobile No. '), 'mobileno');
    assert.equal(headerKey('\uFEFFPhone_Number'), 'phonenumber');
    for (const [header, want, how] of [
      [['Name', 'Phone Number'], 1, 'only'],
      [['name', 'MOBILE NO.'], 1, 'only'],
      [['Cell', 'x'], 0, 'only'],
      [['tel.', 'name'], 0, 'only'],
      [['Mobile-Phone-Number'], 0, 'only'],
      [['PhoneNumber', 'Order number'], 0, 'only'],
      [['Name', 'Phone', 'Mobile'], 2, 'mobile'],
      [['First name', 'Phone', 'Mobile'], 2, 'mobile'],
      [['Téléphone', 'Téléphone portable'], 1, 'mobile'],
      [['Telefon', 'Handynummer'], 1, 'mobile'],
      [['Tel. fixe', 'NATEL'], 1, 'mobile'],
      [['Teléfono', 'Móvil'], 1, 'mobile'],
      [['Telefone', 'Celular'], 1, 'mobile'],
      [['Telefono', 'Cellulare'], 1, 'mobile'],
      [['Home Phone', 'Work phone', 'GSM'], 2, 'mobile'],
      [['e-mail', 'name'], -1, 'only'],
      [['Phone type', 'Phone verified', 'Account number'], -1, 'only'],
    ] as const) {
      const r = chooseNumberColumn(header, 'in.csv', '--msisdn-column');
      assert.deepEqual([r.index, r.choice.how], [want, how], JSON.stringify(header));
    }
    assert.deepEqual(chooseNumberColumn(['First name', 'Phone', 'Mobile'], 'in.csv', '--msisdn-column').choice.over, ['Phone']);
    assert.equal(planColumns(['First name', 'Mobile No.'], {}, 'in.csv').msisdnName, 'Mobile No.');
    assert.equal(planColumns(['Téléphone', 'Name'], {}, 'in.csv').msisdnName, 'Téléphone', 'an accented name is recognised');
    for (const name of ['Mobile', 'Cell', 'Handy', 'Portable', 'Móvil', 'Celular', 'Cellulare', 'Mobil', 'GSM', 'Natel', 'mobile_phone', 'CellPhone', 'Cell-phone number']) {
      assert.equal(numberColumnKind(name), 'mobile', name);
    }
    for (const name of ['Phone', 'Tel', 'TELEPHONE', 'Téléphone', 'Telefon', 'Phone 2', 'Home phone', 'Number']) assert.equal(numberColumnKind(name), 'phone', name);
  });

  test('several columns that could hold the numbers, none settled by a mobile name: no guess', () => {
    for (const header of [['Telephone', 'Tel'], ['Name', 'Phone', 'Phone 2'], ['Mobile', 'Cell', 'Phone']]) {
      assert.throws(
        () => planColumns(header, {}, 'in.csv'),
        (err: unknown) => err instanceof UsageError && /could hold the numbers/.test(err.message) && header.filter((h) => numberColumnKind(h) !== undefined).every((h) => (err.hint ?? '').includes(`--msisdn-column ${/\s/.test(h) ? `'${h}'` : h}`)),
        JSON.stringify(header),
      );
    }
    assert.equal(planColumns(['Telephone', 'Tel'], { msisdnColumn: 'Tel' }, 'in.csv').numberColumn.how, 'flag', 'a named column settles it');
  });

  test('a header that is a number points to --no-header', () => {
    assert.throws(() => planColumns(['+447911123456', 'Ann'], {}, 'in.csv'), (err: unknown) => err instanceof UsageError && /--no-header/.test(err.hint ?? ''));
    assert.throws(() => planColumns(['email', 'name'], {}, 'in.csv'), (err: unknown) => err instanceof UsageError && !/--no-header/.test(err.hint ?? '') && /--msisdn-column/.test(err.hint ?? ''));
    // A header read as one column with another delimiter in it: the delimiter is what to change.
    const oneColumn = /Its header is one column, "Mobile,Name": the file is read with ";" between columns .*give --delimiter ','/;
    assert.throws(() => planColumns(['Mobile,Name'], {}, 'in.csv', ';'), (err: unknown) => err instanceof UsageError && oneColumn.test(err.hint ?? ''));
    assert.throws(() => planColumns(['Mobile,Name'], { msisdnColumn: 'Mobile' }, 'in.csv', ';'), (err: unknown) => err instanceof UsageError && oneColumn.test(err.hint ?? ''));
    assert.throws(() => planColumns(['Mobile\tName'], {}, 'in.csv', ','), (err: unknown) => err instanceof UsageError && /give --delimiter tab/.test(err.hint ?? ''));
    // Said as it is: from --delimiter, from a sep= line, or the default of a header without ";" or tab.
    const from = (source: 'flag' | 'sep' | 'detected'): string => {
      try {
        planColumns(['Mobile|Name'], {}, 'in.csv', ',', source);
      } catch (err) {
        return (err as UsageError).hint ?? '';
      }
      return '';
    };
    assert.match(from('flag'), /read with "," between columns \(as --delimiter says\)\. If "\|" separates them, give --delimiter '\|'/);
    assert.match(from('sep'), /\(as its first line "sep=," says\)/);
    assert.match(from('detected'), /\(the default, as its header line has no ";" or tab outside quotes\)/);
    assert.doesNotMatch(from('detected'), /--delimiter says|sep=/);
  });

  test('two columns of one name (case ignored): the file is named, not a flag that was not given; a flag naming one says which columns', () => {
    const twice = (options: Parameters<typeof planColumns>[1]): UsageError => {
      try {
        planColumns(['phone', 'Name', 'name', 'x'], options, 'in.csv');
      } catch (err) {
        assert.ok(err instanceof UsageError);
        return err;
      }
      assert.fail('expected a UsageError');
    };
    const byDefault = twice({});
    assert.equal(byDefault.message, 'in.csv has more than one column "name" (columns 2 "Name", 3 "name"); each would be the same variable');
    assert.match(byDefault.hint ?? '', /--var-columns/);
    assert.equal(twice({ varColumns: ['NAME'] }).message, '--var-columns: in.csv has more than one column "NAME" (columns 2 "Name", 3 "name")');
    assert.equal(twice({ varColumns: ['x', 'X'] }).message, '--var-columns: "x" is named twice (column names are compared ignoring case and spacing)');
    assert.deepEqual(planColumns(['phone', 'Name', 'name', 'x'], { varColumns: ['x'] }, 'in.csv').vars, [3]);
  });

  test('two columns whose names differ only in spacing (a line break typed in a cell, a no-break space) are one name too', () => {
    for (const other of ['First\nname', 'First\u00a0name', 'First  name']) {
      assert.throws(
        () => planColumns(['phone', 'First name', other], {}, 'in.csv'),
        (err: unknown) => err instanceof UsageError && err.message === 'in.csv has more than one column "First name" (columns 2 "First name", 3 "First name"); each would be the same variable',
      );
    }
  });
});

describe('numbers a spreadsheet changed', () => {
  test('scientific notation and a lost + are named, with what to do', () => {
    for (const raw of ['4.47911E+11', '4,47911E+11', '4.47911e11']) {
      const r = normaliseNumber(raw);
      assert.ok(!r.ok && r.cause === 'scientific' && /Text/.test(r.hint ?? ''), raw);
    }
    const noPlus = normaliseNumber('447911123456');
    assert.ok(!noPlus.ok && noPlus.cause === 'no-plus' && /\+447911123456/.test(noPlus.hint ?? ''));
    const national = normaliseNumber('07911123456');
    assert.ok(!national.ok && national.cause === 'national' && national.needsCountry === true);
    // With a country, a national number is still read as one.
    const gb = normaliseNumber('07911123456', 'GB');
    assert.ok(gb.ok && gb.e164 === '+447911123456');
  });

  test('with a default country, digits that are a mobile with a + and no mobile without are ambiguous; a national mobile is one', () => {
    // A German mobile that lost its +, read as a German landline; other countries' mobiles, read
    // as numbers of the default country's plan that no mobile has.
    for (const [raw, country, international, national] of [
      ['4915123456789', 'DE', '+4915123456789', '+494915123456789'],
      ['447911123456', 'DE', '+447911123456', '+49447911123456'],
      ['33612345678', 'NL', '+33612345678', '+3133612345678'],
      ['33612345678', 'IT', '+33612345678', '+3933612345678'],
    ] as const) {
      const r = normaliseNumber(raw, country);
      assert.ok(!r.ok && r.cause === 'no-plus', `${raw} ${country}: ${JSON.stringify(r)}`);
      assert.equal(r.reason, `"${raw}" has no +: it is ${international} if international, not the ${country} number ${national}`);
    }
    // National mobiles (a leading 0 a spreadsheet dropped included) and numbers whose plan cannot
    // tell mobiles from landlines are read nationally, as before; the same number both ways is one.
    for (const [raw, country, e164] of [
      ['015123456789', 'DE', '+4915123456789'],
      ['15123456789', 'DE', '+4915123456789'],
      ['4155550123', 'US', '+14155550123'],
      ['2015550123', 'US', '+12015550123'],
      ['9876543210', 'IN', '+919876543210'],
      ['3123456789', 'IT', '+393123456789'],
      ['5511987654321', 'BR', '+5511987654321'],
      ['436641234567', 'AT', '+436641234567'],
      ['4911234567', 'DE', '+494911234567'],
    ] as const) {
      const r = normaliseNumber(raw, country);
      assert.ok(r.ok && r.e164 === e164, `${raw} ${country}: ${JSON.stringify(r)}`);
    }
  });
});

describe('opt-out lists', () => {
  const gb = createNumberChecker('GB');
  const none = createNumberChecker(undefined);
  const has = (set: { has(k: number): boolean }, e164: string): boolean => set.has(numberKey(e164));

  test('a plain list has no header unless its first line is not a number', async () => {
    const plain = await loadExcludes(file('07911 123456\n+447911123457\n', 'opt.txt'), gb);
    assert.equal(plain.numbers, 2);
    assert.ok(has(plain.set, '+447911123456') && has(plain.set, '+447911123457'));
    assert.equal(plain.column, undefined);
    const titled = await loadExcludes(file('Opted out\n+447911123457\n', 'opt.txt'), none);
    assert.deepEqual([titled.numbers, titled.column], [1, 'Opted out']);
  });

  test('CSV lists: a known header, or --exclude-column; blank rows and empty cells name nobody', async () => {
    const path = file('Name;Mobile No.\nAnn;+447911123456\n;;\nBob;\n', 'opt.csv');
    const known = await loadExcludes(path, none);
    assert.deepEqual([known.numbers, known.column], [1, 'Mobile No.']);
    const named = await loadExcludes(file('Name,Contact\nAnn,+447911123456\n', 'opt.csv'), none, { column: 'contact' });
    assert.deepEqual([named.numbers, named.column], [1, 'Contact']);
    await assert.rejects(loadExcludes(file('Name,Contact\n', 'opt.csv'), none, { column: 'phone' }), /--exclude-column: .* has no column "phone"/);
    await assert.rejects(loadExcludes(file('Name,Contact\n', 'opt.csv'), none, { column: 'contcat' }), /--exclude-column: .* has no column "contcat"; did you mean "Contact"\?/);
    await assert.rejects(loadExcludes(file('Name,Contact\nAnn,+447911123456\n', 'opt.csv'), none), /has no number column/);
  });

  test('every entry must be a number: the bad ones are counted and listed with their lines', async () => {
    const path = file('447911123456\n+447911123457\nunsubscribed\n07911 123458\n', 'opt.txt');
    await assert.rejects(loadExcludes(path, none, { label: 'opt.txt' }), (err: unknown) => {
      assert.ok(err instanceof UsageError);
      assert.match(err.message, /^--exclude: opt\.txt: 3 entries are not a phone number; nothing was sent/);
      assert.match(err.message, /line 1: "447911123456" has no \+/);
      assert.match(err.message, /line 3: "unsubscribed" has characters that are not digits/);
      assert.match(err.message, /line 4: "07911 123458" is a national number/);
      assert.match(err.hint ?? '', /\+447911123456/);
      return true;
    });
  });

  test('the hash covers the column choice', async () => {
    const path = file('Phone,Mobile\n+447911123456,+447911123457\n', 'opt.csv');
    // Found as the recipients' column is: the name that says mobile, over Phone.
    const a = await loadExcludes(path, none);
    assert.ok(has(a.set, '+447911123457') && !has(a.set, '+447911123456'));
    const b = await loadExcludes(path, none, { column: 'phone' });
    assert.notEqual(a.hash, b.hash);
    assert.ok(has(b.set, '+447911123456') && !has(b.set, '+447911123457'));
    await assert.rejects(loadExcludes(file('Phone,Tel\n+447911123456,+447911123457\n', 'opt.csv'), none, { label: 'opt.csv' }), (err: unknown) => err instanceof UsageError && /opt\.csv has 2 columns that could hold the numbers/.test(err.message) && /--exclude-column Phone\n\s+--exclude-column Tel/.test(err.hint ?? ''));
  });
});

describe('problems grouped by cause', () => {
  test('counts per cause, the first three lines each, merged across a split as one pass would', () => {
    const one: ProblemGroup[] = [];
    const a: ProblemGroup[] = [];
    const b: ProblemGroup[] = [];
    for (let line = 2; line < 60; line++) {
      const cause = line % 10 === 0 ? 'fields' : 'scientific';
      const p = { line, column: cause === 'fields' ? '' : 'msisdn', message: `m${line}` };
      addToGroup(one, cause, p, undefined);
      addToGroup(line < 30 ? a : b, cause, p, undefined);
    }
    assert.deepEqual(mergeGroups(a, b), one);
    assert.deepEqual(
      one.map((g) => [g.cause, g.count, g.samples.map((s) => s.line)]),
      [
        ['scientific', 53, [2, 3, 4]],
        ['fields', 5, [10, 20, 30]],
      ],
    );
    const lines = formatGroups(one);
    assert.equal(lines.length, 2 * 5);
    assert.equal(lines[0], '  53 rows: numbers in scientific notation (column msisdn)');
    assert.equal(lines[4], '    … and 50 more');
  });
});

describe('the message text decoder', () => {
  const o = { flag: '--text-file', encodingFlag: '--text-encoding' };
  test('BOMs, UTF-16, Windows-1252, the final line end', () => {
    assert.equal(decodeText(Buffer.from('\uFEFFHi\n'), 't', o), 'Hi');
    // Written on Windows: CR LF line ends become LF, as a phone shows them.
    assert.equal(decodeText(Buffer.from('Hi Ann,\r\nsee you at 5.\r\n'), 't', o), 'Hi Ann,\nsee you at 5.');
    assert.equal(decodeText(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Zoë\r\n', 'utf16le')]), 't', o), 'Zoë');
    assert.equal(decodeText(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('Zoë', 'utf16le').swap16()]), 't', o), 'Zoë');
    assert.equal(decodeText(Buffer.from([0x80, 0x93, 0x41, 0x94, 0xe9]), 't', { ...o, encoding: 'latin1' }), '€“A”é');
    assert.equal(decodeText(Buffer.from('two\nlines\n\n'), 't', o), 'two\nlines\n');
    // Decomposed letters (macOS writes them) are composed: the same text, with a GSM-7 form.
    assert.equal(decodeText(Buffer.from('Jose\u0301 Mu\u0308ller\n'), 't', o), 'Jos\u00e9 M\u00fcller');
  });

  test('phoneText: line ends as a phone shows them, letters composed; other text as it is', () => {
    assert.equal(phoneText('Jose\u0301\r\nA\rB'), 'Jos\u00e9\nA\nB');
    assert.equal(segmentText(phoneText('Hi Jose\u0301')).encoding, 'GSM-7');
    assert.equal(segmentText('Hi Jose\u0301').encoding, 'UCS-2');
    // Already composed, and scripts with no composed form, are unchanged.
    for (const text of ['Zoë', '\u{1F469}\u200d\u{1F4BB} ok', '\u0645\u0631\u062d\u0628\u0627', 'plain']) assert.equal(phoneText(text), text);
  });
  test('invalid UTF-8 and NULs are refused with the line and the flag to use', () => {
    assert.throws(() => decodeText(Buffer.concat([Buffer.from('ok\nstill ok\nbad '), Buffer.from([0xe9])]), 'notice.txt', o), (err: unknown) => {
      assert.ok(err instanceof UsageError);
      assert.equal(err.message, '--text-file: notice.txt is not valid UTF-8 text (line 3); nothing was sent');
      assert.match(err.hint ?? '', /--text-encoding latin1/);
      return true;
    });
    assert.throws(() => decodeText(Buffer.from('Hi', 'utf16le'), 't', o), /NUL characters/);
  });
});
