// `msgr segments`: text from an argument, a file and stdin.
// In-process (test/support/in-process.ts): msgr through main() with a Context of the test's.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { tempDir } from '../../../support/cli.js';
import { runInProcess } from '../../../support/in-process.js';

describe('msgr segments', () => {
  test('an argument: encoding, length, parts and where each ends', async () => {
    const r = await runInProcess(['segments', 'a'.repeat(160) + 'bc']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^encoding {4}GSM-7$/m);
    assert.match(r.stdout, /^length {6}162 septets \(162 characters\)$/m);
    assert.match(r.stdout, /^parts {7}2 \(153 septets per part of a long message\)$/m);
    assert.match(r.stdout, /part 1 {2}characters {3}1-153 {2}153 septets/);
    assert.match(r.stdout, /part 2 {2}characters 154-162 {4}9 septets, ends "aaaaaaabc"/);
    assert.equal(r.stderr, '');
    const one = await runInProcess(['segments', 'A']);
    assert.match(one.stdout, /^length {6}1 septet \(1 character\)$/m);
  });

  test('--json from stdin: forcing characters with code points and look-alikes; a final newline is not counted', async () => {
    const r = await runInProcess(['segments', '--json'], { input: 'It’s ready – come by 😀\n' });
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.equal(doc.encoding, 'UCS-2');
    assert.equal(doc.units, 23);
    assert.equal(doc.parts, 1);
    assert.deepEqual(doc.forcing, [
      { char: '’', codePoint: 'U+2019', count: 1, lookalike: "'" },
      { char: '–', codePoint: 'U+2013', count: 1, lookalike: '-' },
      { char: '😀', codePoint: 'U+1F600', count: 1, lookalike: null },
    ]);
    assert.equal(doc.gsmAlternative, null);
  });

  test('--text-file: the same count as send-bulk would make, with the look-alike suggestion', async () => {
    const dir = tempDir();
    const file = join(dir, 'msg.txt');
    writeFileSync(file, 'Don’t miss it\r\n');
    const r = await runInProcess(['segments', '--text-file', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^length {6}13 UTF-16 units/m);
    assert.match(r.stdout, /’ {2}U\+2019 {3}1× {2}use "'"/);
    assert.match(r.stdout, /with the look-alikes it would be GSM-7 in 1 part$/m);
  });

  test('no text, or a missing file: exit 2, one JSON error document with --json', async () => {
    const none = await runInProcess(['segments', '--json'], { input: '' });
    assert.equal(none.code, 2);
    assert.deepEqual(Object.keys((JSON.parse(none.stdout) as { error: object }).error), ['message', 'hint', 'exitCode']);
    const missing = await runInProcess(['segments', '--text-file', '/nonexistent/x.txt']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--text-file: cannot read \/nonexistent\/x\.txt \(no such file\)/);
    const both = await runInProcess(['segments', 'hi', '--text-file', 'x']);
    assert.equal(both.code, 2);
  });
});
