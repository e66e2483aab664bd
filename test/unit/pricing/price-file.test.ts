import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UsageError } from '../../../src/errors.js';
import { formatMoney, parsePriceFile, priceFor } from '../../../src/pricing/price-file.js';
import { CostTally } from '../../../src/pricing/estimate.js';

const FILE = 'prices.csv';

function price(table: ReturnType<typeof parsePriceFile>, e164: string, cc: string, country?: string): string | undefined {
  return priceFor(table, e164.slice(1), cc, country as never)?.written;
}

test('the longest prefix wins; a country ranks just above its calling code', () => {
  const t = parsePriceFile('prefix,price,currency\n+44,0.05,EUR\nGB,0.04,EUR\n+447,0.035,EUR\n+4479,0.03,EUR\n+1,0.01,EUR\nUS,0.008,EUR\n+1415,0.007,EUR\n', FILE);
  assert.equal(price(t, '+447911123456', '44', 'GB'), '+4479');
  assert.equal(price(t, '+447411123456', '44', 'GB'), '+447');
  assert.equal(price(t, '+442079460000', '44', 'GB'), 'GB');
  assert.equal(price(t, '+441481123456', '44', 'GG'), '+44');
  assert.equal(price(t, '+14155550123', '1', 'US'), '+1415');
  assert.equal(price(t, '+12015550123', '1', 'US'), 'US');
  assert.equal(price(t, '+16135550123', '1', 'CA'), '+1');
  assert.equal(price(t, '+33612345678', '33', 'FR'), undefined);
  assert.equal(t.currency, 'EUR');
});

test('no header, spaces in prefixes, 00, quotes, comments, semicolons with decimal commas', () => {
  const t = parsePriceFile('# my prices\n"+44 7", 0.035 ,eur\n0049,0.07,EUR\n\nfr,0.06,EUR\n', FILE);
  assert.equal(price(t, '+447911123456', '44', 'GB'), '+44 7');
  assert.equal(price(t, '+4915123456789', '49', 'DE'), '0049');
  assert.equal(price(t, '+33612345678', '33', 'FR'), 'fr');
  const s = parsePriceFile('Land;Preis;Währung\nDE;0,07;EUR\n', FILE);
  assert.equal(s.countries.get('DE')?.micros, 70_000);
});

function refusal(text: string): string {
  try {
    parsePriceFile(text, FILE);
  } catch (err) {
    assert.ok(err instanceof UsageError);
    assert.equal(err.exitCode, 2);
    return `${err.message} | ${err.hint ?? ''}`;
  }
  assert.fail('expected an error');
}

test('bad price files: the file, the line and the field, and what to write', () => {
  assert.match(refusal('GB,0.04,EUR\nDE,€0.07,EUR\n'), /^prices\.csv, line 2, price \(field 2\): "€0\.07" is not a price per part \| .*currency goes in field 3/);
  assert.match(refusal('GB,0.04,EUR\nDE,0.07,USD\n'), /^prices\.csv, line 2, currency \(field 3\): USD differs from EUR on line 1/);
  assert.match(refusal('GB,0.04\n'), /^prices\.csv, line 1, currency \(field 3\): is empty/);
  assert.match(refusal('GB,0.04,EUR,x\n'), /^prices\.csv, line 1, the line: has 4 fields, not 3/);
  assert.match(refusal('XX,0.04,EUR\n'), /line 1, prefix \(field 1\): "XX" is not a country code/);
  assert.match(refusal('GB,0.04,EUR\ngb,0.05,EUR\n'), /line 2, prefix \(field 1\): GB is priced already on line 1/);
  assert.match(refusal('+44,0.04,EUR\n0044,0.05,EUR\n'), /line 2, prefix \(field 1\): \+44 is priced already on line 1/);
  assert.match(refusal('Britain,0.04,EUR\n'), /"Britain" is neither a country code nor an E\.164 prefix/);
  assert.match(refusal('+044,0.04,EUR\n'), /"\+0444?" is not an E\.164 prefix|is not an E\.164 prefix/);
  assert.match(refusal('GB,-0.04,EUR\n'), /line 1, price \(field 2\): "-0.04" is not a price per part \| A price is 0 or more/);
  assert.match(refusal('prefix,price,currency\n'), /^prices\.csv has no prices/);
  assert.match(refusal(''), /^prices\.csv has no prices/);
});

test('the estimate: per country and in total, exact sums, unpriced rows counted apart', () => {
  const t = parsePriceFile('GB,0.035,EUR\n+1,0.0079,EUR\n', FILE);
  const tally = new CostTally(t);
  for (let i = 0; i < 3; i++) tally.add('+447400123456', 2);
  // +44 7911 is Guernsey's by the numbering plan: GB's price is not its.
  tally.add('+447911123456', 1);
  tally.add('+14155550123', 1);
  tally.add('+16135550123', 1);
  tally.add('+33612345678', 1);
  const e = tally.estimate();
  assert.deepEqual(
    e.countries.map((c) => [c.country, c.messages, c.parts, c.micros, c.unpriced]),
    [['GB', 3, 6, 210_000, 0], ['CA', 1, 1, 7_900, 0], ['US', 1, 1, 7_900, 0], ['FR', 1, 1, 0, 1], ['GG', 1, 1, 0, 1]],
  );
  assert.equal(e.micros, 225_800);
  assert.equal(e.unpriced, 2);
  assert.equal(formatMoney(e.micros, e.currency), 'EUR 0.2258');
  assert.equal(formatMoney(1_234_500_000, 'EUR'), 'EUR 1,234.50');
  assert.equal(formatMoney(0, 'USD'), 'USD 0.00');
});
