// A message per row: rendering, text and sender columns, --max-parts, the parts of rendered texts,
// and the preflight grouping rows into requests and spooling each row's message.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createNumberChecker } from '../../../../src/bulk/input/number-check.js';
import { isPersonal, messageColumnNames, messageOfKey, planRowMessage, type MessageSource } from '../../../../src/bulk/compose/personalise.js';
import { runPreflight } from '../../../../src/bulk/preflight/range.js';
import { detectFormat } from '../../../../src/csv/reader.js';
import { readSpool, SpoolWriter } from '../../../../src/bulk/preflight/spool.js';
import { TextTotals, totalsOf } from '../../../../src/message/text-totals.js';
import { analyseText } from '../../../../src/message/segments.js';
import { UsageError } from '../../../../src/errors.js';
import type { PersonalSpec } from '../../../../src/bulk/journal/records.js';
import { tempDir } from '../../../support/cli.js';

const SPEC: PersonalSpec = { render: true, textColumn: null, fromColumn: null, maxParts: null };

const source = (text: string | undefined, spec: Partial<PersonalSpec> = {}): MessageSource => ({ text, textFlag: '--text', channel: 'SMS', spec: { ...SPEC, ...spec } });

const HEADER = ['msisdn', 'name', 'sms', 'sender'];

describe('a message per row', () => {
  test('rendered text: the key carries the text; the columns used are known before the header', () => {
    const s = source('Hi {{name|there}}');
    assert.equal(isPersonal(s), true);
    assert.deepEqual(messageColumnNames(s), ['name']);
    const plan = planRowMessage(HEADER, s, 'f.csv');
    assert.deepEqual(plan.columns, [1]);
    const m = plan.message(['+447400900001', 'Zoé', '', '']);
    assert.ok(m.ok);
    assert.equal(m.text, 'Hi Zoé');
    assert.equal(m.analysis?.encoding, 'GSM-7');
    assert.deepEqual(messageOfKey(m.key), { text: 'Hi Zoé', from: undefined });
  });

  test('a text without placeholders, or --no-render, is one shared message', () => {
    assert.equal(isPersonal(source('Hello all')), false);
    assert.equal(isPersonal(source('Hi {{name}}', { render: false })), false);
    // An escaped {{ still goes through rendering, so the backslash is never sent.
    assert.equal(isPersonal(source('Use \\{{code}} as is')), true);
    const m = planRowMessage(HEADER, source('Use \\{{code}} as is'), 'f.csv').message(['+1', '', '', '']);
    assert.ok(m.ok && m.text === 'Use {{code}} as is');
    assert.deepEqual(messageColumnNames(source('Hi {{name}}', { render: false })), []);
  });

  test('--text-column: the cell as it is, placeholders not rendered; an empty cell is an invalid row', () => {
    const plan = planRowMessage(HEADER, source(undefined, { textColumn: 'SMS' }), 'f.csv');
    const m = plan.message(['+1', 'Ann', 'Hi {{name}} \\{{', '']);
    assert.ok(m.ok);
    assert.equal(m.text, 'Hi {{name}} \\{{');
    assert.deepEqual(plan.message(['+1', 'Ann', '  ', '']), { ok: false, cause: 'empty-message', column: 'sms', reason: 'is empty: every row needs its message', hint: 'Fill the message cells.' });
    // Only a zero-width space: it would be sent as a blank one-part UCS-2 message.
    assert.equal(plan.message(['+1', 'Ann', '\u200b', '']).ok, false);
    assert.throws(() => planRowMessage(HEADER, source(undefined, { textColumn: 'body' }), 'f.csv'), (e: unknown) => e instanceof UsageError && /--text-column: f\.csv has no column "body"/.test(e.message));
  });

  test('--text-column and --from-column naming two columns (case ignored) are refused, naming both', () => {
    const header = ['msisdn', 'SMS', 'sms', 'sender'];
    assert.throws(() => planRowMessage(header, source(undefined, { textColumn: 'sms' }), 'f.csv'), (e: unknown) => e instanceof UsageError && e.message === '--text-column: f.csv has more than one column "sms" (columns 2 "SMS", 3 "sms")');
    assert.throws(() => planRowMessage(['msisdn', 'From', 'from'], source('Hi', { fromColumn: 'FROM' }), 'f.csv'), (e: unknown) => e instanceof UsageError && /^--from-column: f\.csv has more than one column "FROM"/.test(e.message));
  });

  test('--from-column: checked as a sender for the channel; the sender is part of the key', () => {
    const plan = planRowMessage(HEADER, source('Hi {{name}}', { fromColumn: 'sender' }), 'f.csv');
    const a = plan.message(['+1', 'Ann', '', 'Acme']);
    const b = plan.message(['+1', 'Ann', '', 'Shop']);
    assert.ok(a.ok && b.ok);
    assert.notEqual(a.key, b.key);
    assert.deepEqual(messageOfKey(b.key), { text: 'Hi Ann', from: 'Shop' });
    assert.deepEqual(plan.message(['+1', 'Ann', '', '']), { ok: false, cause: 'empty-sender', column: 'sender', reason: 'is empty: every row needs its sender', hint: 'Fill the sender cells, or leave --from-column out and give every row one --from.' });
    // A cell of a zero-width space is as empty (it was "not an SMS sender id", and sent as is on RCS).
    assert.equal((plan.message(['+1', 'Ann', '', '\u200b']) as { cause?: string }).cause, 'empty-sender');
    const bad = plan.message(['+1', 'Ann', '', 'Acme Shop Limited']);
    assert.ok(!bad.ok && bad.column === 'sender' && /at most 11/.test(bad.reason));
    // Every cause of an invalid row says what to do.
    assert.ok(!bad.ok && bad.hint === 'Fix the sender cells: an SMS sender is a number, or 1 to 11 letters (A-Z without accents), digits or spaces.');
  });

  test('an empty value without a default, or an empty rendered text, is an invalid row', () => {
    const plan = planRowMessage(HEADER, source('Hi {{name}}'), 'f.csv');
    const r = plan.message(['+1', '', '', '']);
    assert.ok(!r.ok && r.column === 'name' && /is empty and \{\{name\}\} has no default/.test(r.reason));
    const blank = planRowMessage(HEADER, source('{{name|}}'), 'f.csv').message(['+1', '', '', '']);
    assert.deepEqual(blank, { ok: false, cause: 'empty-message', column: '', reason: 'the message is empty once its placeholders are filled in', hint: 'Give the placeholders defaults, {{column|…}}, or write text around them.' });
  });

  test('--max-parts: a rendered text over it is an invalid row', () => {
    const plan = planRowMessage(HEADER, source('{{name}}', { maxParts: 1 }), 'f.csv');
    assert.ok(plan.message(['+1', 'a'.repeat(160), '', '']).ok);
    assert.deepEqual(plan.message(['+1', 'a'.repeat(161), '', '']), { ok: false, cause: 'max-parts', column: '', reason: 'the message takes 2 SMS parts, more than --max-parts 1', hint: 'Shorten the text, or raise --max-parts.' });
    // A name that forces UCS-2 shrinks the part: 71 characters are 2 parts.
    assert.equal(plan.message(['+1', `${'a'.repeat(70)}’`, '', '']).ok, false);
  });
});

describe('parts of rendered texts', () => {
  test('totals: messages, parts, the largest (first wins), UCS-2 and the characters forcing it most', () => {
    const t = new TextTotals();
    t.add(analyseText('Hi Ann'), 2);
    t.add(analyseText('a'.repeat(200)), 3);
    t.add(analyseText(`Hi Zoé ’${'b'.repeat(100)}`), 4);
    t.add(analyseText('Hi ’Łukasz’'), 5);
    t.add(analyseText('c'.repeat(300)), 6);
    assert.deepEqual(t.toJSON(), {
      messages: 5,
      parts: 1 + 2 + 2 + 1 + 2,
      largest: { parts: 2, line: 3, encoding: 'GSM-7', units: 200 },
      ucs2: 2,
      forcing: [
        { character: '’ (U+2019)', messages: 2 },
        { character: 'Ł (U+0141)', messages: 1 },
      ],
    });
    assert.equal(t.describe(), 'parts: 5 messages, 8 SMS parts; largest 2 parts (line 3); 2 UCS-2, forced most often by ’ (U+2019) in 2, Ł (U+0141) in 1');
  });

  test('one message: its encoding and length (send --dry-run)', () => {
    assert.equal(totalsOf('Hello').describe(), 'parts: 1 message, 1 SMS part (GSM-7; 5 septets)');
    assert.equal(totalsOf('’'.repeat(71)).describe(), 'parts: 1 message, 2 SMS parts (UCS-2, forced by ’ (U+2019); 71 characters)');
  });

  test('many messages, all GSM-7', () => {
    const t = new TextTotals();
    t.add(analyseText('x'), 9, 1000);
    assert.equal(t.describe(), 'parts: 1,000 messages, 1,000 SMS parts; largest 1 part (line 9); all GSM-7');
  });
});

describe('the preflight with a message per row', () => {
  const dir = tempDir('msgr-personal-');
  async function preflight(csv: string, text: string, batchSize = 2) {
    const path = join(dir, `in-${Math.random()}.csv`);
    writeFileSync(path, csv);
    const spoolPath = `${path}.spool`;
    const spool = new SpoolWriter(spoolPath);
    const format = await detectFormat(path, {});
    const message = source(text);
    const pre = await runPreflight({
      path,
      fileLabel: 'in.csv',
      format,
      columns: { messageColumns: messageColumnNames(message) },
      checker: createNumberChecker(undefined),
      repeats: 'first',
      batchSize,
      spool,
      message,
      keepFirst: 2,
    });
    spool.close();
    const lines: string[] = [];
    await readSpool(spoolPath, (kind, line, number, payload) => lines.push(`${kind} ${line} ${number} ${payload}`));
    return { pre, lines };
  }

  test('rows are grouped by rendered text; the spool carries each recipient and its message', async () => {
    const csv = 'msisdn,name,city\n+447400900001,Ann,Leeds\n+447400900002,Bob,York\n+447400900003,Ann,Hull\n+447400900004,,Bath\n+447400900005,Ann,Ely\n';
    const { pre, lines } = await preflight(csv, 'Hi {{name|there}}');
    // Ann ×3 (2 + 1), Bob, there: 4 requests for 5 recipients.
    assert.equal(pre.toSend, 5);
    assert.equal(pre.requests, 4);
    assert.equal(pre.firstKey, '["Hi Ann"]');
    // The column the text uses is not also a variable.
    assert.deepEqual(pre.firstBatch, ['{"msisdn":"+447400900001","variables":{"city":"Leeds"}}', '{"msisdn":"+447400900003","variables":{"city":"Hull"}}']);
    assert.equal(lines[3], 'S 5 +447400900004 {"msisdn":"+447400900004","variables":{"city":"Bath"}}\t["Hi there"]');
    assert.deepEqual(pre.firstRows.map((r) => [r.line, r.e164, r.key]), [
      [2, '+447400900001', '["Hi Ann"]'],
      [3, '+447400900002', '["Hi Bob"]'],
    ]);
    assert.equal(pre.totals?.messages, 5);
    assert.equal(pre.totals?.parts, 5);
  });

  test('an empty value with no default is an invalid row with its line and column', async () => {
    const { pre, lines } = await preflight('msisdn,name\n+447400900001,Ann\n+447400900002,\n', 'Hi {{name}}');
    assert.equal(pre.invalid, 1);
    assert.deepEqual(pre.problems, [{ line: 3, column: 'name', message: 'is empty and {{name}} has no default (write {{name|…}} to give one, or fill the cell)' }]);
    assert.match(lines[1] ?? '', /^I 3 \+447400900002 "name: is empty/);
  });

  test('an unknown placeholder stops before any row is read, with a did-you-mean', async () => {
    await assert.rejects(preflight('msisdn,first_name\n+447400900001,Ann\n', 'Hi {{frist_name}}'), (e: unknown) => e instanceof UsageError && /did you mean \{\{first_name\}\}\?/.test(e.message));
  });
});
