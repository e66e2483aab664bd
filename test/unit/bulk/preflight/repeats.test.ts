// A number on several rows (src/bulk/preflight/repeats.ts): the same message is a duplicate, another one is
// told apart, and a split's halves merge to what one pass over the rows finds.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { planColumns } from '../../../../src/bulk/input/columns.js';
import { numberKey } from '../../../../src/bulk/input/number-set.js';
import { duplicateError, duplicatePayload, mergeSeveral, NumberRepeats, rejudged, rowFingerprint, type RepeatMode } from '../../../../src/bulk/preflight/repeats.js';

const plan = planColumns(['msisdn', 'name', 'day'], {}, 'in.csv');
const row = (n: number, name: string, day = 'Mon'): string[] => [`+4479111${String(n).padStart(5, '0')}`, name, day];

function pass(rows: string[][], mode: RepeatMode): { repeats: NumberRepeats; verdicts: string[] } {
  const repeats = new NumberRepeats(mode, 16, true);
  return { repeats, verdicts: rows.map((r) => repeats.check(numberKey(r[0] as string), plan, r, undefined)) };
}

describe('rows whose numbers repeat', () => {
  test('the fingerprint is of the message as sent: a CR LF is an LF; cells do not run into each other', () => {
    assert.equal(rowFingerprint(plan, row(1, 'Ann\r\nSmith'), undefined), rowFingerprint(plan, row(1, 'Ann\nSmith'), undefined));
    assert.equal(rowFingerprint(plan, row(1, 'Ann\rSmith'), undefined), rowFingerprint(plan, row(1, 'Ann\nSmith'), undefined));
    assert.notEqual(rowFingerprint(plan, row(1, 'ab', 'c'), undefined), rowFingerprint(plan, row(1, 'a', 'bc'), undefined));
    assert.notEqual(rowFingerprint(plan, row(1, 'Ann'), '["Hi"]'), rowFingerprint(plan, row(1, 'Ann'), '["Hello"]'));
    // The number is not part of the message.
    assert.equal(rowFingerprint(plan, row(1, 'Ann'), undefined), rowFingerprint(plan, row(2, 'Ann'), undefined));
  });

  test('stop and first: the first row is sent, the same message again is a duplicate, another one is "other"; each: another message is sent once', () => {
    const rows = [row(1, 'Ann'), row(1, 'Ann'), row(1, 'Tom'), row(1, 'Tom'), row(2, 'Eve')];
    for (const mode of ['stop', 'first'] as const) {
      const { repeats, verdicts } = pass(rows, mode);
      assert.deepEqual(verdicts, ['new', 'same', 'other', 'other', 'new'], mode);
      assert.equal(repeats.several.size, 1);
    }
    assert.deepEqual(pass(rows, 'each').verdicts, ['new', 'same', 'more', 'same', 'new']);
  });

  test('two halves merge to what one pass finds: numbers with different messages within and across them', () => {
    const rows = [row(1, 'Ann'), row(2, 'Bob'), row(1, 'Ann again'), row(3, 'Cy'), /* split */ row(2, 'Bob'), row(3, 'Other'), row(4, 'Dee'), row(4, 'Dee 2'), row(1, 'Ann')];
    const one = pass(rows, 'stop').repeats;
    const a = pass(rows.slice(0, 4), 'stop').repeats;
    const b = pass(rows.slice(4), 'stop').repeats;
    const merged = mergeSeveral(a, b);
    const keys = (s: { forEach(fn: (k: number) => void): void }): number[] => {
      const out: number[] = [];
      s.forEach((k) => out.push(k));
      return out.sort();
    };
    assert.deepEqual(keys(merged.several), keys(one.several));
    assert.deepEqual(keys(merged.several), [1, 3, 4].map((n) => numberKey(row(n, '')[0] as string)).sort());
    // Across: the second half's first row of number 3 is another message; of number 2, the same.
    assert.deepEqual(keys(merged.across), [numberKey(row(3, '')[0] as string)]);
  });

  test('a duplicate\'s spool payload, judged again against the first half, and what the report says', () => {
    const fp = rowFingerprint(plan, row(1, 'Ann'), undefined);
    const same = duplicatePayload('same', 'first', fp, undefined);
    const other = duplicatePayload('other', 'first', fp + 1, undefined);
    assert.equal(duplicateError(same, 2), 'same number and message as line 2');
    assert.equal(duplicateError(other, 2), 'another message to the number of line 2: left out by --first-per-number');
    assert.equal(duplicateError(duplicatePayload('same', 'first', undefined, undefined), 2), 'same number as line 2');
    assert.equal(rejudged(other, fp + 1), same.replace(fp.toString(16), (fp + 1).toString(16)));
    assert.equal(rejudged(same, fp + 1)[0], 'F');
    // --allow-duplicates with messages per row: the message key, as before.
    assert.equal(duplicatePayload('same', 'each', fp, '["Hi"]'), '["Hi"]');
  });
});
