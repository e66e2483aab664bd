import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { displayWidth, lineWidth, pageWidth, wrap, wrapForScripts, wrapPage } from '../../../src/output/wrap.js';

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

  test('a backticked command in brackets ends at its backtick, whatever punctuation follows it', () => {
    const text = 'possible opt-outs stop every send to their number until a person decides (`msgr optout possible`). `send` and `send-bulk` leave its numbers out by default (--include-opted-out --yes sends to them).';
    const out = wrap(text, 80);
    assert.doesNotMatch(out, /\\$/m, out);
    assert.match(out, /out by\n +default \(--include-opted-out/, out);
  });

  test('colour codes and wide characters are measured as a terminal shows them', () => {
    assert.equal(displayWidth('\u001b[31merror:\u001b[39m x'), 8);
    assert.equal(displayWidth('日本'), 4);
    assert.equal(displayWidth('e\u0301'), 1);
    const red = `\u001b[31merror:\u001b[39m ${'word '.repeat(20)}`;
    assert.ok(wrap(red, 30).split('\n').every((l) => displayWidth(l) <= 30));
  });

  test('the widths: a terminal\'s, 80 when it does not say, none off a terminal or under --json; pages 80 there', () => {
    // The command being run sets this (main.ts); an in-process run of a --json command before
    // this file, in the same test process, leaves it set.
    wrapForScripts(true);
    assert.equal(lineWidth({ isTTY: true, columns: 60 }), undefined);
    wrapForScripts(false);
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

/** The lines of `out` a person copies as the command: from the one that starts it to the first not ending in ` \`. */
function commandLines(out: string, start: RegExp): string[] {
  const lines = out.split('\n');
  const from = lines.findIndex((l) => start.test(l));
  assert.ok(from >= 0, out);
  const to = lines.findIndex((l, i) => i >= from && !l.endsWith(' \\'));
  return lines.slice(from, to + 1);
}

test('prose after a command broken over lines starts a line of its own: the command\'s lines run as printed', () => {
  const cmd = 'msgr send-bulk /tmp/r40/work/big.csv --resume --base-url http://127.0.0.1:37717';
  const line = `continue it with: ${cmd} (with the API key as the run had it: MSGR_API_KEY, --api-key-file or --api-key-stdin)`;
  for (const width of [80, 60, 50]) {
    const out = wrap(line, width);
    const copied = commandLines(out, /^ +msgr send-bulk/);
    assert.ok(copied.length > 1, out);
    // What a shell reads from those lines is the command, and nothing of the remark.
    assert.equal(copied.join('\n').replace(/ \\\n +/g, ' ').trim(), cmd, out);
    // Every word is kept, in order.
    assert.equal(out.replace(/ \\\n/g, ' ').replace(/\s+/g, ' '), line);
  }
});

test('a line that starts with msgr but is not indented is prose; a command after a colon may set environment variables', () => {
  // The sandbox's banner, and a help page's paragraph: no ` \`.
  for (const text of ['msgr sandbox listening on http://127.0.0.1:45923 — nothing sent here is delivered', 'msgr listen stopped: 3 events saved, 0 forwarded; /home/someone/.local/state/msgr/events/_all.jsonl']) {
    const out = wrap(text, 50);
    assert.ok(out.includes('\n'), out);
    assert.doesNotMatch(out, /\\$/m, out);
  }
  const page = wrapPage('msgr send-bulk FILE reads a CSV file with a header row, one recipient per row (- reads stdin).', 40);
  assert.doesNotMatch(page, /\\$/m, page);
  // An indented command is still one to copy.
  assert.match(wrap('  msgr send-bulk orders.csv --resume --report /var/lib/msgr/reports/orders-report.csv', 50), / \\$/m);
  // The sandbox's suggestion: its variables are the command's words, broken with ` \` too.
  const cmd = 'MSGR_BASE_URL=http://127.0.0.1:45923 MSGR_API_KEY=any-key msgr send --account SANDBOX --to +447911123456 --from Acme --text Hello';
  const out = wrap(`try: ${cmd}`, 60);
  assert.ok(out.split('\n').every((l) => displayWidth(l) <= 60), out);
  assert.equal(commandLines(out, /MSGR_BASE_URL=/).join('\n').replace(/ \\\n +/g, ' ').trim(), cmd, out);
});
