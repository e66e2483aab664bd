// The placeholder grammar: parse once, bind to a header, render per row.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import { bindPlaceholders, closestName, editDistance, parsePlaceholders, placeholderNames, type BoundText } from '../../../src/message/placeholders.js';

const HEADER = ['msisdn', 'first_name', 'date', 'Store Name'];

function bind(text: string, header: readonly string[] = HEADER): BoundText {
  return bindPlaceholders(parsePlaceholders(text, '--text'), header, '--text', 'list.csv');
}
function render(text: string, fields: readonly string[], header: readonly string[] = HEADER): string {
  const r = bind(text, header).render(fields);
  assert.ok(r.ok, `expected a text, got ${JSON.stringify(r)}`);
  return r.text;
}
function usageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof UsageError, `expected a UsageError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a UsageError');
}

describe('placeholders: parsing', () => {
  test('literals and slots alternate; names in order of first use, once each', () => {
    const p = parsePlaceholders('Hi {{first_name}}, see you {{date|soon}} ({{FIRST_NAME}})', '--text');
    assert.deepEqual(p.literals, ['Hi ', ', see you ', ' (', ')']);
    assert.deepEqual(p.slots.map((s) => [s.name, s.fallback, s.source]), [
      ['first_name', undefined, '{{first_name}}'],
      ['date', 'soon', '{{date|soon}}'],
      ['FIRST_NAME', undefined, '{{FIRST_NAME}}'],
    ]);
    assert.deepEqual(placeholderNames(p), ['first_name', 'date']);
  });

  test('a text without placeholders is one literal; single braces and a lone }} are text', () => {
    const p = parsePlaceholders('Hi {first_name} }} {', '--text');
    assert.deepEqual(p.literals, ['Hi {first_name} }} {']);
    assert.deepEqual(p.slots, []);
  });

  test('spaces inside the braces and around | are ignored; the default keeps its inner spaces', () => {
    const p = parsePlaceholders('{{ first_name | dear customer }}', '--text');
    assert.deepEqual(p.slots.map((s) => [s.name, s.fallback]), [['first_name', 'dear customer']]);
    assert.equal(render('Hi {{  Store Name  }}!', ['+1', 'Ann', '', 'Acme Ltd']), 'Hi Acme Ltd!');
  });

  test('an empty default is allowed: the placeholder just disappears', () => {
    assert.equal(render('Hi{{ first_name |}}!', ['+1', '', '']), 'Hi!');
  });

  test('the default is everything after the first |', () => {
    assert.equal(render('{{date|a|b}}', ['+1', 'x', '']), 'a|b');
  });

  test('\\{{ is a literal {{ and the backslash goes; other backslashes stay', () => {
    assert.equal(render('use \\{{first_name}} for {{first_name}} \\n', ['+1', 'Ann', '']), 'use {{first_name}} for Ann \\n');
    const p = parsePlaceholders('\\{{ not a placeholder', '--text');
    assert.deepEqual(p.literals, ['{{ not a placeholder']);
  });

  test('an unclosed placeholder, or one with no name, is a usage error naming the flag', () => {
    assert.match(usageError(() => parsePlaceholders('Hi {{first_name, bye', '--text-file')).message, /^--text-file: the placeholder at "\{\{first_name, bye" has no closing \}\}/);
    assert.match(usageError(() => parsePlaceholders('Hi {{first {{date}}', '--text')).message, /no closing/);
    // A placeholder in a default is named as such, not as a missing }}.
    const nested = usageError(() => parsePlaceholders('Hi {{First name|{{Date}}}}', '--text'));
    assert.match(nested.message, /^--text: the placeholder at "\{\{First name\|\{\{Date\}…" has a placeholder in its default$/);
    assert.doesNotMatch(nested.message, /no closing/);
    assert.match(usageError(() => parsePlaceholders('Hi {{ }}', '--text')).message, /\{\{ \}\} names no column/);
    assert.match(usageError(() => parsePlaceholders('Hi {{|x}}', '--text')).message, /names no column/);
  });
});

describe('placeholders: binding to the header', () => {
  test('names match headers ignoring case; the columns used are listed once, in header order', () => {
    const b = bind('{{date}} {{FIRST_NAME}} {{first_name}}');
    assert.deepEqual(b.columns, [1, 2]);
    assert.equal(b.constant, false);
    assert.equal(render('{{date}} {{FIRST_NAME}}', ['+1', 'Ann', 'Monday']), 'Monday Ann');
  });

  test('a text with no placeholder is constant', () => {
    const b = bind('Hello all');
    assert.equal(b.constant, true);
    assert.deepEqual(b.columns, []);
    assert.deepEqual(b.render(['+1']), { ok: true, text: 'Hello all' });
  });

  test('an unknown name is a usage error with the nearest header', () => {
    const e = usageError(() => bind('Hi {{frist_name}}'));
    assert.equal(e.message, '--text: {{frist_name}} names no column of list.csv; did you mean {{first_name}}?');
    assert.match(e.hint ?? '', /"msisdn", "first_name", "date", "Store Name"/);
    assert.match(usageError(() => bind('{{store_name}}')).message, /did you mean \{\{Store Name\}\}\?/);
    // Nothing close: no guess.
    assert.equal(usageError(() => bind('{{appointment}}')).message, '--text: {{appointment}} names no column of list.csv');
  });

  test('a name two columns share (case ignored) is refused, naming both: the text could mean either', () => {
    const e = usageError(() => bind('Hi {{name}}', ['phone', 'Name', ' name ', 'x']));
    assert.equal(e.message, '--text: {{name}}: list.csv has more than one column "name" (columns 2 "Name", 3 "name")');
    assert.match(e.hint ?? '', /Rename one of them/);
    // Columns the text does not use may share a name.
    assert.equal(render('Hi {{x}}', ['+1', 'A', 'B', 'C'], ['phone', 'Name', 'name', 'x']), 'Hi C');
  });

  test('a header with a no-break space or a zero-width character is found by the name it shows', () => {
    // What a spreadsheet copies in from a web page: "First\u00a0name", "Store\u200bName".
    const header = ['Mobile', 'First\u00a0name', 'Store\u200bName', '\u3000Date\u00a0'];
    assert.equal(render('Hi {{First name}} at {{storename}} on {{date}}', ['+1', 'Ann', 'Leeds', 'Mon'], header), 'Hi Ann at Leeds on Mon');
    assert.deepEqual(bind('{{first name}} {{FIRST\u00a0NAME}}', header).columns, [1]);
    // The same name twice once the invisible difference is ignored: refused, as for case.
    assert.match(usageError(() => bind('{{first name}}', ['phone', 'First name', 'first\u00a0name'])).message, /more than one column "first name"/);
  });

  test('a hint lists the header\'s names; columns with no name are counted, not shown as ""', () => {
    const e = usageError(() => bind('Hi {{Surname}}', ['Mobile', 'First name', '', ' ']));
    assert.equal(e.hint, 'Its header has: "Mobile", "First name" (and 2 columns with no name). For a literal {{ write \\{{.');
  });

  test('a header cell with a line break (Alt+Enter) or a run of spaces is found by the name it shows', () => {
    const header = ['Mobile', 'First\r\nname', 'Appointment \ndate', 'Last\u00a0\u00a0name'];
    assert.equal(render('Hi {{first name}} {{last name}}, {{Appointment date}}', ['+1', 'Ann', 'Mon', 'Lee'], header), 'Hi Ann Lee, Mon');
  });

  test('did-you-mean: small edits only, swaps count once, case ignored', () => {
    assert.equal(editDistance('frist', 'first'), 1);
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('', 'abc'), 3);
    assert.equal(closestName('frist_name', HEADER), 'first_name');
    assert.equal(closestName('DAET', HEADER), 'date');
    assert.equal(closestName('dat', HEADER), 'date');
    assert.equal(closestName('xyz', HEADER), undefined);
    assert.equal(closestName('name', HEADER), undefined);
    // Columns named by number (--no-header): 3 is not "1" with a typo.
    assert.equal(closestName('3', ['1', '2']), undefined);
    assert.equal(closestName('id', ['ip', 'name']), undefined);
    // A header cell with a line break typed in it is suggested on one line, as columnKey finds it.
    assert.equal(closestName('Frist name', ['phone', 'First\r\nname']), 'First name');
  });
});

describe('placeholders: rendering', () => {
  test('values are trimmed; an empty value takes the default', () => {
    assert.equal(render('Hi {{first_name|there}}, {{date}}', ['+1', '  Ann ', 'Mon']), 'Hi Ann, Mon');
    assert.equal(render('Hi {{first_name|there}}, {{date}}', ['+1', '   ', 'Mon']), 'Hi there, Mon');
    // A cell holding only zero-width characters (copied from a web page) shows nothing: empty too.
    assert.equal(render('Hi {{first_name|there}}, {{date}}', ['+1', '\u200b\ufeff ', 'Mon']), 'Hi there, Mon');
    assert.equal(bind('{{date}}').render(['+1', 'Ann', '\u200b']).ok, false);
    // At either end of a value they are dropped (they would make the message UCS-2 for nothing);
    // inside it, a joiner between two emoji stays.
    assert.equal(render('Hi {{first_name}}, {{date}}', ['+1', '\u200bAnn\u200d', 'Mon\ufeff ']), 'Hi Ann, Mon');
    assert.equal(render('{{first_name}}', ['+1', '\u{1F469}\u200d\u{1F4BB}\u200b']), '\u{1F469}\u200d\u{1F4BB}');
  });

  test('an empty value with no default is an invalid row: the column and why', () => {
    const r = bind('Hi {{first_name}}, {{date}}').render(['+1', 'Ann', ' ']);
    assert.deepEqual(r, { ok: false, column: 'date', reason: 'is empty and {{date}} has no default (write {{date|…}} to give one, or fill the cell)' });
    // A missing field (short row) counts as empty.
    assert.equal(bind('{{date}}').render(['+1']).ok, false);
  });

  test('a value is inserted as it is: braces, backslashes and | in it are not read again', () => {
    assert.equal(render('Hi {{first_name}}', ['+1', '{{date}} \\{{ |x', 'Mon']), 'Hi {{date}} \\{{ |x');
  });

  test('placeholders inside multi-byte text: emoji, surrogate pairs, combining marks', () => {
    assert.equal(render('😀{{first_name}}😀 ✓ {{date|明日}}', ['+1', 'Zoë', '']), '😀Zoë😀 ✓ 明日');
    assert.equal(render('𝒳{{first_name}}𝒴', ['+1', '👩‍👩‍👧']), '𝒳👩‍👩‍👧𝒴');
    assert.equal(render('e\u0301{{first_name}}', ['+1', 'n\u0303']), 'e\u0301n\u0303');
    const p = parsePlaceholders('🎉{{ 名前 | 友達 }}🎉', '--text');
    assert.deepEqual(p.slots.map((s) => [s.name, s.fallback]), [['名前', '友達']]);
    assert.deepEqual(p.literals, ['🎉', '🎉']);
    assert.equal(render('🎉{{名前|友達}}🎉', ['+1', ''], ['msisdn', '名前']), '🎉友達🎉');
    // An unclosed one after an emoji quotes whole characters, never half a pair.
    assert.match(usageError(() => parsePlaceholders('😀{{😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀', '--text')).message, /"\{\{(?:😀){18}…"/u);
  });
});

describe('placeholders: single braces', () => {
  test('{column} in single braces is found when it names a column, once each', async () => {
    const { singleBraceColumns } = await import('../../../src/message/placeholders.js');
    assert.deepEqual(singleBraceColumns('Hi {first_name}, {FIRST_NAME} {{date}} {nope} {date}', HEADER), ['first_name', 'date']);
    assert.deepEqual(singleBraceColumns('Hi {{first_name}} \\{{date}}', HEADER), []);
  });
});
