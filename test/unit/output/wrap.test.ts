import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { displayWidth, lineWidth, pageWidth, wrap } from '../../../src/output/wrap.js';

const widths = (text: string): number[] => text.split('\n').map(displayWidth);

describe('wrap', () => {
  test('a line that fits is left as it is; none is wrapped off a terminal', () => {
    assert.equal(wrap('preflight: a.csv: 2 rows, 2 valid', 80), 'preflight: a.csv: 2 rows, 2 valid');
    const long = `warning: ${'word '.repeat(40)}`;
    assert.equal(wrap(long, undefined), long);
  });

  test('a wrapped line is indented two deeper than its own, keeping a list readable', () => {
    const text = '  parts: 2,000 messages, 2,183 SMS parts; largest 2 parts (line 31); 183 UCS-2, forced most often by á (U+00E1) in 130, ë (U+00EB) in 53';
    const out = wrap(text, 60);
    assert.ok(widths(out).every((n) => n <= 60), out);
    const [first, ...rest] = out.split('\n');
    assert.match(first ?? '', /^ {2}parts: /);
    for (const l of rest) assert.match(l, /^ {4}\S/);
    // Every word is kept, in order.
    assert.equal(out.replace(/\s+/g, ' ').trim(), text.replace(/\s+/g, ' ').trim());
  });

  test('hang 0 for a page\'s paragraphs; a list item wraps under its text', () => {
    const para = 'Every row is checked before the first request; one invalid row stops the run (exit 2) unless --skip-invalid.';
    for (const l of wrap(para, 40, { hang: 0 }).split('\n')) assert.match(l, /^\S/);
    const item = '- A column of numbers in a "General" cell format loses its + (447911123456) or its leading 0.';
    const lines = wrap(item, 40, { hang: 0 }).split('\n');
    assert.ok(lines.length > 1);
    for (const l of lines.slice(1)) assert.match(l, /^ {2}\S/);
  });

  test('a word longer than the line (a path, a URL) stays whole, alone on its line', () => {
    const path = '/home/someone/a/very/long/folder/name/that/goes/on/and/on/journal.jsonl';
    const out = wrap(`  journal: ${path}`, 40);
    assert.ok(out.split('\n').some((l) => l.trim() === path), out);
    assert.ok(out.split('\n').filter((l) => !l.includes(path)).every((l) => displayWidth(l) <= 40), out);
  });

  test('a command breaks between its shell words with ` \\`, and runs as printed', () => {
    const cmd = "msgr send-bulk customers.csv --from Acme --text 'Hi {{first_name|there}}, see you {{date}}' --preview";
    const out = wrap(`  ${cmd}`, 50, { hang: 0, command: true });
    const lines = out.split('\n');
    assert.ok(lines.length > 1);
    assert.ok(lines.every((l) => displayWidth(l) <= 50), out);
    for (const l of lines.slice(0, -1)) assert.match(l, / \\$/);
    for (const l of lines.slice(1)) assert.match(l, /^ {4}\S/);
    // The quoted text is one word: never split.
    assert.ok(lines.some((l) => l.includes("'Hi {{first_name|there}}, see you {{date}}'")), out);
    // What a shell reads: the lines joined at their continuations.
    assert.equal(out.replace(/ \\\n +/g, ' ').trim(), cmd);
  });

  test('a command in a hint starts a line of its own when it fits there, else breaks with ` \\`', () => {
    const hint = 'hint: Resume with: msgr send-bulk orders.csv --resume --report orders-report.csv';
    const out = wrap(hint, 70);
    assert.deepEqual(out.split('\n'), ['hint: Resume with:', '  msgr send-bulk orders.csv --resume --report orders-report.csv']);
    const narrow = wrap(hint, 40);
    assert.ok(narrow.split('\n').every((l) => displayWidth(l) <= 40), narrow);
    assert.match(narrow, /^hint: Resume with:\n {2}msgr send-bulk orders\.csv --resume \\\n {4}--report orders-report\.csv$/);
    assert.equal(narrow.replace(/ \\\n +/g, ' ').replace(/\n +/g, ' '), hint);
    // A remark after the command is prose again: no ` \`.
    const remark = 'continue it with: msgr send-bulk a.csv --resume (with the API key as the run had it: MSGR_API_KEY, --api-key-file or --api-key-stdin)';
    const r = wrap(remark, 60);
    assert.doesNotMatch(r, /\(with[^\n]*\\\n/);
    assert.ok(r.split('\n').every((l) => displayWidth(l) <= 60), r);
  });

  test('a backticked command ends at its backtick; prose with "msgr" in it is no command', () => {
    const text = 'warning: 2 numbers were in doubt in run X (sent, no answer): `msgr runs show 20261121T161500Z-3fa9c2d1` lists them, and another msgr is sending the same file now';
    const out = wrap(text, 50);
    assert.ok(out.split('\n').every((l) => displayWidth(l) <= 50), out);
    assert.equal((out.match(/\\$/gm) ?? []).length <= 1, true, out);
    assert.doesNotMatch(out, /another \\|msgr is \\/);
  });

  test('colour codes and wide characters are measured as a terminal shows them', () => {
    assert.equal(displayWidth('\u001b[31merror:\u001b[39m x'), 8);
    assert.equal(displayWidth('日本'), 4);
    assert.equal(displayWidth('e\u0301'), 1);
    const red = `\u001b[31merror:\u001b[39m ${'word '.repeat(20)}`;
    assert.ok(wrap(red, 30).split('\n').every((l) => displayWidth(l) <= 30));
  });

  test('the widths: a terminal\'s, 80 when it does not say, none off a terminal; pages 80 there', () => {
    assert.equal(lineWidth({ isTTY: true, columns: 60 }), 60);
    assert.equal(lineWidth({ isTTY: true, columns: 0 }), 80);
    assert.equal(lineWidth({ isTTY: true }), 80);
    assert.equal(lineWidth({ isTTY: false, columns: 60 }), undefined);
    assert.equal(pageWidth({ isTTY: false }), 80);
    assert.equal(pageWidth({ isTTY: true, columns: 60 }), 60);
  });
});

test('an indented two-column line wraps under its second column', () => {
  const out = wrap('  base URL  --base-url https://..., MSGR_BASE_URL, or a profile of your own', 40);
  const [first, ...rest] = out.split('\n');
  assert.match(first ?? '', /^ {2}base URL {2}--base-url/);
  assert.ok(rest.length > 0);
  for (const l of rest) assert.match(l, /^ {12}\S/);
  // Prose with one space between its words, and a term too long to be one, wrap two deeper.
  assert.match(wrap('  numbers: column "Mobile", whose name says mobile, over "Phone", "Tel"', 40), /\n {4}\S/);
});
