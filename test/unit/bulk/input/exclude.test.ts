// --exclude: opt-out lists, one number a line or a CSV with a number column.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadExcludes } from '../../../../src/bulk/input/exclude.js';
import { createNumberChecker } from '../../../../src/bulk/input/number-check.js';
import { numberKey } from '../../../../src/bulk/input/number-set.js';
import { UsageError } from '../../../../src/errors.js';
import { tempFile } from '../../../support/files.js';

describe('opt-out lists', () => {
  const gb = createNumberChecker('GB');
  const none = createNumberChecker(undefined);
  const has = (set: { has(k: number): boolean }, e164: string): boolean => set.has(numberKey(e164));

  test('a plain list has no header unless its first line is not a number', async () => {
    const plain = await loadExcludes(tempFile('07911 123456\n+447911123457\n', 'opt.txt'), gb);
    assert.equal(plain.numbers, 2);
    assert.ok(has(plain.set, '+447911123456') && has(plain.set, '+447911123457'));
    assert.equal(plain.column, undefined);
    const titled = await loadExcludes(tempFile('Opted out\n+447911123457\n', 'opt.txt'), none);
    assert.deepEqual([titled.numbers, titled.column], [1, 'Opted out']);
  });

  test('CSV lists: a known header, or --exclude-column; blank rows and empty cells name nobody', async () => {
    const path = tempFile('Name;Mobile No.\nAnn;+447911123456\n;;\nBob;\n', 'opt.csv');
    const known = await loadExcludes(path, none);
    assert.deepEqual([known.numbers, known.column], [1, 'Mobile No.']);
    const named = await loadExcludes(tempFile('Name,Contact\nAnn,+447911123456\n', 'opt.csv'), none, { column: 'contact' });
    assert.deepEqual([named.numbers, named.column], [1, 'Contact']);
    await assert.rejects(loadExcludes(tempFile('Name,Contact\n', 'opt.csv'), none, { column: 'phone' }), /--exclude-column: .* has no column "phone"/);
    await assert.rejects(loadExcludes(tempFile('Name,Contact\n', 'opt.csv'), none, { column: 'contcat' }), /--exclude-column: .* has no column "contcat"; did you mean "Contact"\?/);
    await assert.rejects(loadExcludes(tempFile('Name,Contact\nAnn,+447911123456\n', 'opt.csv'), none), /has no number column/);
  });

  test('every entry must be a number: the bad ones are counted and listed with their lines', async () => {
    const path = tempFile('447911123456\n+447911123457\nunsubscribed\n07911 123458\n', 'opt.txt');
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
    const path = tempFile('Phone,Mobile\n+447911123456,+447911123457\n', 'opt.csv');
    // Found as the recipients' column is: the name that says mobile, over Phone.
    const a = await loadExcludes(path, none);
    assert.ok(has(a.set, '+447911123457') && !has(a.set, '+447911123456'));
    const b = await loadExcludes(path, none, { column: 'phone' });
    assert.notEqual(a.hash, b.hash);
    assert.ok(has(b.set, '+447911123456') && !has(b.set, '+447911123457'));
    await assert.rejects(loadExcludes(tempFile('Phone,Tel\n+447911123456,+447911123457\n', 'opt.csv'), none, { label: 'opt.csv' }), (err: unknown) => err instanceof UsageError && /opt\.csv has 2 columns that could hold the numbers/.test(err.message) && /--exclude-column Phone\n\s+--exclude-column Tel/.test(err.hint ?? ''));
  });
});
