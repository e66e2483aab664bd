// The set of E.164 numbers the preflight keeps (duplicates, --exclude, numbers already sent).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { numberKey, NumberSet, textHash, textHash52 } from '../../../../src/bulk/input/number-set.js';

describe('NumberSet', () => {
  test('adds, finds, refuses repeats and grows past its first capacity', () => {
    const set = new NumberSet(4);
    for (let i = 0; i < 10_000; i++) assert.equal(set.add(447400900000 + i * 7), true);
    assert.equal(set.size, 10_000);
    assert.equal(set.add(447400900000 + 7), false);
    assert.equal(set.has(447400900000 + 14), true);
    assert.equal(set.has(447400900001), false);
    assert.equal(set.add(numberKey('+999999999999999')), true);
    assert.equal(set.has(999999999999999), true);
    assert.equal(set.has(999999999999998), false);
  });
});

describe('NumberSet export, from and countShared', () => {
  test('a set rebuilt from its slots has the same numbers; shared numbers are counted once each', () => {
    const a = new NumberSet(4);
    const b = new NumberSet(4);
    for (let i = 1; i <= 1000; i++) a.add(447911000000 + i);
    for (let i = 900; i <= 1500; i++) b.add(447911000000 + i);
    const copy = NumberSet.from(a.export());
    assert.equal(copy.size, 1000);
    assert.ok(copy.has(447911000001) && copy.has(447911001000) && !copy.has(447911001001));
    assert.equal(b.countShared(a), 101);
    assert.equal(a.countShared(b), 101);
  });
});

describe('NumberSet values beside the numbers (addValued)', () => {
  test('a number keeps the value it was first added with, through the growth of the set', () => {
    const set = new NumberSet(4);
    for (let i = 1; i <= 5000; i++) assert.equal(set.addValued(447911000000 + i, i * 7), undefined);
    for (let i = 1; i <= 5000; i++) assert.equal(set.addValued(447911000000 + i, 1), i * 7, `number ${i}`);
    assert.equal(set.size, 5000);
    assert.equal(textHash('Hi Ann'), textHash('Hi Ann'));
    assert.notEqual(textHash('Hi Ann'), textHash('Hi Tom'));
    // 52-bit keys of texts: whole numbers a NumberSet takes (never 0, below 2^53), one per text.
    const keys = new Set<number>();
    for (let i = 0; i < 10_000; i++) {
      const k = textHash52(`447911123456\tHi ${i}`);
      assert.ok(Number.isSafeInteger(k) && k > 0 && k <= 2 ** 52, String(k));
      keys.add(k);
    }
    assert.equal(keys.size, 10_000);
    assert.equal(textHash52(''), textHash52(''));
  });
});
