// One row's verdict: the header row again (two exports joined) said as such, not as a number.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { planColumns } from '../../../../src/bulk/input/columns.js';
import { createNumberChecker } from '../../../../src/bulk/input/number-check.js';
import { createRowChecker } from '../../../../src/bulk/preflight/row-check.js';

describe('row check', () => {
  const header = ['Name', 'Mobile', 'City'];
  const check = createRowChecker(planColumns(header, {}, 'a.csv', ',', 'detected'), createNumberChecker(undefined), undefined);

  test('the header row again, or its number column\'s name where a number should be, is the header again', () => {
    for (const row of [['Name', 'Mobile', 'City'], ['name', ' MOBILE ', 'city'], ['', 'Mobile', '']]) {
      const r = check(row);
      assert.equal(r.verdict, 'invalid');
      assert.equal(r.cause, 'header', JSON.stringify(row));
      assert.match(r.reason ?? '', /the header row again \("mobile"\): two files joined\?/i);
    }
  });

  test('a row that only looks like one is what it is: a word is not a number, a number is sent', () => {
    assert.equal(check(['Ann', 'Bob', 'Leeds']).cause, 'characters');
    assert.equal(check(['Ann', '+447911123456', 'Leeds']).verdict, 'ok');
  });

  test('without a header (columns named 1, 2, …) no row is the header again', () => {
    const plain = createRowChecker(planColumns(['1', '2'], { msisdnColumn: '1', varColumns: [] }, 'a.csv', ',', 'detected'), createNumberChecker(undefined), undefined);
    assert.notEqual(plain(['1', '2']).cause, 'header');
  });
});
