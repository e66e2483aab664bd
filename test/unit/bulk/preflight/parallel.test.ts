// The split of the parallel preflight: where the file may be cut, and the line number it gives the
// second part, checked against the reader's own numbering.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { findSplit } from '../../../../src/bulk/preflight/parallel.js';
import { detectFormat, readCsv } from '../../../../src/csv/reader.js';
import { tempFile } from '../../../support/files.js';

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
      const path = tempFile(`\uFEFF${rows.join(eol)}${eol}`);
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
    const p1 = tempFile(utf16);
    assert.equal(typeof (await findSplit(p1, await detectFormat(p1, {}), utf16.length, 0)), 'string');
    const cr = 'msisdn\r+447911123456\r'.repeat(50);
    const p2 = tempFile(cr);
    assert.equal(await findSplit(p2, await detectFormat(p2, {}), cr.length, 0), 'CR line ends');
    const small = 'msisdn\n+447911123456\n'.repeat(50);
    const p3 = tempFile(small);
    assert.equal(await findSplit(p3, await detectFormat(p3, {}), small.length), 'small file');
    const quoted = `msisdn,note\n+447911123456,"${'line\n'.repeat(200)}"\n`;
    const p4 = tempFile(quoted);
    assert.equal(await findSplit(p4, await detectFormat(p4, {}), quoted.length, 0), 'no split point');
  });
});
