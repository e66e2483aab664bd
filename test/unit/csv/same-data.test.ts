// What counts as the same data (docs/reruns.md: "The same data under another key"): the same
// export saved again, with other line ends, quoting that changes no value, or line ends at its end,
// hashes the same; a changed value, a row more or a column order does not.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DataHash } from '../../../src/csv/data-hash.js';

/** The data hash of `text`, fed in chunks of `size` bytes (the preflight reads chunks of any size). */
function hashOf(text: string | Buffer, size = 1 << 20, delimiter = ','): string {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  const h = new DataHash(delimiter);
  for (let i = 0; i < bytes.length; i += size) h.update(bytes.subarray(i, i + size));
  return h.digest();
}

const EXPORT = 'msisdn,name,note\n+447911100000,Ann,"Flat 2, High St"\n+447911100001,Bob,"said ""hi"""\n+447911100002,Cy,"two\nlines"\n';

describe('the same data, saved otherwise', () => {
  const same: Array<[string, string]> = [
    ['CRLF line ends', EXPORT.replace(/\n/g, '\r\n')],
    ['CR line ends (Excel for Mac)', EXPORT.replace(/\n/g, '\r')],
    ['no line end at the end', EXPORT.slice(0, -1)],
    ['blank lines at the end', `${EXPORT}\n\r\n`],
    ['every field quoted', 'msisdn,name,note\n"+447911100000","Ann","Flat 2, High St"\n"+447911100001","Bob","said ""hi"""\n"+447911100002","Cy","two\r\nlines"\n'],
    ['a blank line between rows', EXPORT.replace('Ann,', 'Ann,').replace('\n+447911100001', '\n\n+447911100001')],
  ];
  for (const [what, text] of same) {
    test(`${what}: the same data`, () => {
      assert.equal(hashOf(text), hashOf(EXPORT));
      // Whatever the chunks the bytes come in.
      for (const size of [1, 2, 3, 7, 64]) assert.equal(hashOf(text, size), hashOf(EXPORT), `chunks of ${size}`);
    });
  }
});

describe('other data', () => {
  const other: Array<[string, string]> = [
    ['a value changed', EXPORT.replace('Ann', 'Anne')],
    ['a value changed inside quotes', EXPORT.replace('High St', 'High Rd')],
    ['a row more', `${EXPORT}+447911100003,Di,x\n`],
    ['two rows swapped', 'msisdn,name,note\n+447911100001,Bob,"said ""hi"""\n+447911100000,Ann,"Flat 2, High St"\n+447911100002,Cy,"two\nlines"\n'],
    ['a quoted comma made a delimiter', EXPORT.replace('"Flat 2, High St"', 'Flat 2, High St')],
    ['a line end inside quotes made a record end', EXPORT.replace('"two\nlines"', 'two\nlines')],
    ['an empty field dropped', EXPORT.replace('Ann,', 'Ann')],
  ];
  for (const [what, text] of other) {
    test(`${what}: other data`, () => {
      assert.notEqual(hashOf(text), hashOf(EXPORT));
      assert.notEqual(hashOf(text, 3), hashOf(EXPORT, 5));
    });
  }

  test('the delimiter is the file\'s: a semicolon file\'s quoted comma needs no quotes', () => {
    assert.equal(hashOf('a;"b,c"\n', 4, ';'), hashOf('a;b,c\r\n', 4, ';'));
    assert.notEqual(hashOf('a;"b;c"\n', 4, ';'), hashOf('a;b;c\n', 4, ';'));
  });
});
