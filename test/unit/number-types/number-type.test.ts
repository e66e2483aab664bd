import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeNumberType, notMobile, numberType } from '../../../src/number-types/number-type.js';

test('mobiles, and "fixed line or mobile" (the US), are kept; the others are named', () => {
  assert.equal(numberType('+447911123456'), 'MOBILE');
  assert.equal(notMobile('+447911123456'), undefined);
  assert.equal(numberType('+14155550123'), 'FIXED_LINE_OR_MOBILE');
  assert.equal(notMobile('+14155550123'), undefined);
  assert.equal(notMobile('+442079460000'), 'FIXED_LINE');
  assert.equal(notMobile('+33123456789'), 'FIXED_LINE');
  assert.equal(notMobile('+448001234567'), 'TOLL_FREE');
  assert.equal(notMobile('+18005550199'), 'TOLL_FREE');
  assert.equal(notMobile('+449001234567'), 'PREMIUM_RATE');
  assert.equal(notMobile('+445512345678'), 'UAN');
  assert.equal(describeNumberType('FIXED_LINE'), 'fixed line');
  assert.equal(describeNumberType('FIXED_LINE_OR_MOBILE'), 'fixed line or mobile');
});
