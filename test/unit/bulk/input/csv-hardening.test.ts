// The pure rules behind send-bulk's hardening against spreadsheet inputs: which report cells a
// spreadsheet would run as formulas, the delimiter of a UTF-16 export, the hint for a header split
// by the wrong delimiter, and the files detectFormat() refuses before reading them as CSV.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { planColumns } from '../../../../src/bulk/input/columns.js';
import { detectFormat, NotCsvError, sniffDelimiter } from '../../../../src/csv/reader.js';
import { UsageError } from '../../../../src/errors.js';
import { tempDir } from '../../../support/cli.js';

describe('the delimiter', () => {
  test('a tab in the header line of a UTF-16 file wins over more commas; elsewhere the count decides as before', () => {
    assert.equal(sniffDelimiter('Phone\tLast, First\tCity, Country\r\n', true), '\t');
    assert.equal(sniffDelimiter('Phone\tLast, First\tCity, Country\r\n'), ',');
    assert.equal(sniffDelimiter('Phone,Name,City\r\n', true), ',');
    assert.equal(sniffDelimiter('"a\tb",c\n', true), ',');
  });

  test('a UTF-16 file with a BOM and a tab in its header is read with tabs', async () => {
    const dir = tempDir('msgr-hardening-');
    const path = join(dir, 'u16.txt');
    writeFileSync(path, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Phone\tLast, First\tCity, Country\r\n', 'utf16le')]));
    const format = await detectFormat(path, {});
    assert.equal(format.encoding, 'utf16le');
    assert.equal(format.delimiter, '\t');
  });

  test('a header whose names hold another delimiter: the hint names --delimiter with it', () => {
    const hint = (header: string[], delimiter: string, source: 'flag' | 'sep' | 'detected', options = {}): string => {
      try {
        planColumns(header, options, 'in.csv', delimiter, source);
      } catch (err) {
        assert.ok(err instanceof UsageError);
        return err.hint ?? '';
      }
      return '';
    };
    assert.equal(
      hint(['Phone;Name', 'First;Town', 'Region;X', 'Y'], ',', 'detected'),
      'The file is read with "," between columns (guessed from its header line), and 3 column names hold ";": "Phone;Name", "First;Town", "Region;X". If ";" separates the columns, give --delimiter \';\'.',
    );
    assert.match(hint(['Phone\tLast', 'First\tCity', 'Country'], ',', 'detected'), /2 column names hold tab: .*give --delimiter tab\.$/);
    assert.match(hint(['Tel|A', 'B'], ';', 'flag'), /\(as --delimiter says\), and a column name holds "\|": "Tel\|A"\. If "\|" separates the columns, give --delimiter '\|'\./);
    assert.match(hint(['Tel;A', 'B'], ',', 'sep'), /\(as its first line "sep=," says\)/);
    // --msisdn-column naming no column: the same hint.
    assert.match(hint(['Phone;Name', 'First'], ',', 'detected', { msisdnColumn: 'Phone' }), /give --delimiter ';'/);
    // Names without another delimiter: the hint is as before.
    assert.match(hint(['email', 'name'], ',', 'detected'), /^Name the column with --msisdn-column/);
  });
});

describe('files that are no CSV file', () => {
  const dir = tempDir('msgr-hardening-');
  test('an Excel workbook is known by its first bytes', async () => {
    const cases = [
      ['.xlsx', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x22])],
      ['.xls', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0xff])],
    ] as const;
    for (const [kind, bytes] of cases) {
      const path = join(dir, `book${kind}`);
      writeFileSync(path, bytes);
      await assert.rejects(detectFormat(path, { encoding: 'latin1' }), (err: unknown) => err instanceof NotCsvError && err.message === `is an Excel workbook (${kind}), not a CSV file` && /CSV UTF-8/.test(err.hint));
    }
    // A CSV whose first field starts "PK" is still a CSV.
    const csv = join(dir, 'pk.csv');
    writeFileSync(csv, 'PK,phone\n1,+447911123456\n');
    assert.equal((await detectFormat(csv, {})).delimiter, ',');
  });

  test('a named pipe is refused without being opened', { skip: process.platform === 'win32' }, async () => {
    const fifo = join(dir, 'list.fifo');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    // Opening it would wait for a writer that never comes: the test would time out.
    await assert.rejects(detectFormat(fifo, {}), (err: unknown) => err instanceof NotCsvError && /is a pipe/.test(err.message) && !/ - as the file/.test(err.hint));
  });
});
