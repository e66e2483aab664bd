// Numbers as spreadsheets change them, checked as `send` checks them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normaliseNumber } from '../../../../src/message/numbers.js';

describe('numbers a spreadsheet changed', () => {
  test('scientific notation and a lost + are named, with what to do', () => {
    for (const raw of ['4.47911E+11', '4,47911E+11', '4.47911e11']) {
      const r = normaliseNumber(raw);
      assert.ok(!r.ok && r.cause === 'scientific' && /Text/.test(r.hint ?? ''), raw);
    }
    const noPlus = normaliseNumber('447911123456');
    assert.ok(!noPlus.ok && noPlus.cause === 'no-plus' && /\+447911123456/.test(noPlus.hint ?? ''));
    const national = normaliseNumber('07911123456');
    assert.ok(!national.ok && national.cause === 'national' && national.needsCountry === true);
    // With a country, a national number is still read as one.
    const gb = normaliseNumber('07911123456', 'GB');
    assert.ok(gb.ok && gb.e164 === '+447911123456');
  });

  test('with a default country, digits that are a mobile with a + and no mobile without are ambiguous; a national mobile is one', () => {
    // A German mobile that lost its +, read as a German landline; other countries' mobiles, read
    // as numbers of the default country's plan that no mobile has.
    for (const [raw, country, international, national] of [
      ['4915123456789', 'DE', '+4915123456789', '+494915123456789'],
      ['447911123456', 'DE', '+447911123456', '+49447911123456'],
      ['33612345678', 'NL', '+33612345678', '+3133612345678'],
      ['33612345678', 'IT', '+33612345678', '+3933612345678'],
    ] as const) {
      const r = normaliseNumber(raw, country);
      assert.ok(!r.ok && r.cause === 'no-plus', `${raw} ${country}: ${JSON.stringify(r)}`);
      assert.equal(r.reason, `"${raw}" has no +: it is ${international} if international, not the ${country} number ${national}`);
    }
    // National mobiles (a leading 0 a spreadsheet dropped included) and numbers whose plan cannot
    // tell mobiles from landlines are read nationally, as before; the same number both ways is one.
    for (const [raw, country, e164] of [
      ['015123456789', 'DE', '+4915123456789'],
      ['15123456789', 'DE', '+4915123456789'],
      ['4155550123', 'US', '+14155550123'],
      ['2015550123', 'US', '+12015550123'],
      ['9876543210', 'IN', '+919876543210'],
      ['3123456789', 'IT', '+393123456789'],
      ['5511987654321', 'BR', '+5511987654321'],
      ['436641234567', 'AT', '+436641234567'],
      ['4911234567', 'DE', '+494911234567'],
    ] as const) {
      const r = normaliseNumber(raw, country);
      assert.ok(r.ok && r.e164 === e164, `${raw} ${country}: ${JSON.stringify(r)}`);
    }
  });
});
