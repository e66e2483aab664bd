import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CountryCode } from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/examples.mobile.json';
import metadataJson from 'libphonenumber-js/max/metadata';
import { fastNormalise, normaliseNumberFast } from '../../../src/message/fast-numbers.js';
import { normaliseNumber, OPT_OUT_NUMBERS } from '../../../src/message/numbers.js';
import { createRandom } from '../../../src/sandbox/random.js';

// Differential test: whenever fastNormalise() answers, its answer must be normaliseNumber()'s.

interface Meta {
  readonly country_calling_codes: Record<string, string[]>;
  readonly countries: Record<string, unknown[]>;
  readonly nonGeographic?: Record<string, unknown>;
}
const meta = metadataJson as unknown as Meta;
const mobileExamples = examples as Record<string, string>;

const prng = createRandom;
const rand = prng(0x5eed1234);
const digit = (): string => String(Math.floor(rand() * 10));
const digits = (n: number): string => Array.from({ length: n }, digit).join('');

function callingCodeOf(country: string): string {
  const plan = meta.countries[country];
  assert.ok(plan !== undefined && typeof plan[0] === 'string', `no calling code for ${country}`);
  return plan[0];
}

/** Example-like mobile numbers: each country's example with its last 1-4 digits changed. */
function realisticMobiles(perCountry: number): Array<{ country: string; e164: string }> {
  const out: Array<{ country: string; e164: string }> = [];
  for (const [country, national] of Object.entries(mobileExamples)) {
    const cc = callingCodeOf(country);
    for (let i = 0; i < perCountry; i++) {
      const k = Math.min(1 + (i % 4), national.length - 1);
      out.push({ country, e164: `+${cc}${national.slice(0, national.length - k)}${digits(k)}` });
    }
  }
  return out;
}

/**
 * Compares both ways a number is checked: as by default, and as an opt-out list reads it (every
 * possible number). A hit: the fast path answered either (a number outside the plan only for an
 * opt-out list: with --allow-unlisted-numbers, normaliseNumber() tells a mistyped one).
 */
function compare(raw: string, defaultCountry?: CountryCode): 'hit' | 'miss' {
  const fast = fastNormalise(raw, defaultCountry);
  if (fast !== undefined) assert.deepEqual(fast, normaliseNumber(raw, defaultCountry), `fastNormalise(${JSON.stringify(raw)}, ${defaultCountry ?? 'undefined'})`);
  const allowed = fastNormalise(raw, defaultCountry, OPT_OUT_NUMBERS);
  if (allowed === undefined) return 'miss';
  assert.deepEqual(allowed, normaliseNumber(raw, defaultCountry, OPT_OUT_NUMBERS), `fastNormalise(${JSON.stringify(raw)}, ${defaultCountry ?? 'undefined'}, opt-out)`);
  // With --allow-unlisted-numbers the fast path answers only numbers inside the plan.
  const unlisted = fastNormalise(raw, defaultCountry, { allowUnlisted: true });
  if (unlisted !== undefined) assert.deepEqual(unlisted, normaliseNumber(raw, defaultCountry, { allowUnlisted: true }));
  return 'hit';
}

const KNOWN = ['+447700900123', '+447911123456', '+14155550100', '+12', '+999123456789', '+4407911123456'];
// National prefixes after the calling code: stripped, kept (too short once stripped), carrier
// codes, and the transform rules (AR "15", BR carrier code, JP "000x") that fall back.
const PREFIXED = [
  '+44012345678',
  '+440123456789',
  '+4401234567890',
  '+440791112345',
  '+611831412345678',
  '+6118311234567',
  '+81000212345678',
  '+8100021234567',
  '+810002123456',
  '+54111512345678',
  '+541115123456',
  '+550151198765432',
  '+3306123456789',
  '+4901511234567',
];

test('known cases', () => {
  assert.deepEqual(fastNormalise('+447911123456'), { ok: true, e164: '+447911123456' });
  assert.deepEqual(fastNormalise('+14155550100'), { ok: true, e164: '+14155550100' });
  // The UK drama range is possible, not valid: refused (normaliseNumber words why); with
  // --allow-unlisted-numbers normaliseNumber tells it from a mistyped number; an opt-out list
  // reads it at once.
  assert.equal(fastNormalise('+447700900123'), undefined);
  assert.equal(fastNormalise('+447700900123', undefined, { allowUnlisted: true }), undefined);
  assert.deepEqual(normaliseNumberFast('+447700900123', undefined, { allowUnlisted: true }), { ok: true, e164: '+447700900123', unlisted: true });
  assert.deepEqual(fastNormalise('+447700900123', undefined, OPT_OUT_NUMBERS), { ok: true, e164: '+447700900123', unlisted: true });
  assert.deepEqual(fastNormalise('+447700900123', undefined, OPT_OUT_NUMBERS), normaliseNumber('+447700900123', undefined, OPT_OUT_NUMBERS));
  // A fixed line by its plan says so, as normaliseNumber does.
  assert.deepEqual(fastNormalise('+442079460000'), { ok: true, e164: '+442079460000', landline: true });
  assert.deepEqual(fastNormalise('+442079460000'), normaliseNumber('+442079460000'));
  // The trunk 0 after the calling code is stripped, as libphonenumber-js does.
  assert.deepEqual(fastNormalise('+4407911123456'), normaliseNumber('+4407911123456'));
  // Failures are always left to normaliseNumber, which words them.
  assert.equal(fastNormalise('+12'), undefined);
  assert.equal(fastNormalise('+999123456789'), undefined);
  for (const raw of KNOWN) assert.deepEqual(normaliseNumberFast(raw), normaliseNumber(raw), raw);
});

test('national prefixes after the calling code', () => {
  let hits = 0;
  for (const raw of PREFIXED) {
    if (compare(raw) === 'hit') hits++;
    assert.deepEqual(normaliseNumberFast(raw), normaliseNumber(raw), raw);
  }
  assert.ok(hits >= 8, `${hits} answered by the fast path`);
  // "+44 0 12345678": 8 digits once stripped is no GB length, so the 0 stays (as libphonenumber-js
  // does): outside the plan, refused by default (normaliseNumber words it), sent when allowed.
  assert.equal(fastNormalise('+44012345678'), undefined);
  const kept = fastNormalise('+44012345678', undefined, OPT_OUT_NUMBERS);
  assert.ok(kept?.ok === true && kept.e164 === '+44012345678', JSON.stringify(kept));
  const refused = normaliseNumber('+44012345678');
  assert.ok(!refused.ok && refused.cause === 'mistyped' && refused.reason.includes('national 0 kept after the country code'), JSON.stringify(refused));
  assert.deepEqual(normaliseNumberFast('+44012345678', undefined, { allowUnlisted: true }), refused, 'a national 0 kept is never sent');
  assert.equal(fastNormalise('+54111512345678'), undefined, 'transform rules fall back');
});

test('input forms: "+", "00", spaces; anything else falls back', () => {
  const forms = [
    '+44 7911 123456',
    '0044 7911 123456',
    ' +447911123456 ',
    '00447911123456',
    '+ 1 415 555 0100',
    '+44\u00a07911\u00a0123456',
    '+44-7911-123456',
    '+44 (0) 7911 123456',
    '\t+447911123456',
    '+0447911123456',
    '000447911123456',
    '07911123456',
    '+44791112345x',
    '44+7911123456',
    '++447911123456',
    '+４４7911123456',
    '',
    '+',
    '+4479111234567890',
    '+8001234567',
    '+80012345678',
    '+88213123456',
  ];
  for (const raw of forms) {
    compare(raw);
    compare(raw, 'GB');
    assert.deepEqual(normaliseNumberFast(raw), normaliseNumber(raw), raw);
    assert.deepEqual(normaliseNumberFast(raw, 'US'), normaliseNumber(raw, 'US'), raw);
  }
  assert.equal(fastNormalise('+44 7911 123456')?.ok, true);
  assert.equal(fastNormalise('0044 7911 123456')?.ok, true);
  assert.equal(fastNormalise('+8001234567'), undefined, 'non-geographic codes fall back');
});

test('differential: ~100k generated numbers agree with normaliseNumber', () => {
  const inputs: string[] = [...KNOWN, ...PREFIXED];
  const codes = [...Object.keys(meta.country_calling_codes), ...Object.keys(meta.nonGeographic ?? {})];
  // Random digits of every length 4..15 after every calling code.
  for (const cc of codes) {
    for (let len = 4; len <= 15; len++) {
      for (let i = 0; i < 24; i++) inputs.push(`+${cc}${digits(len)}`);
    }
  }
  // Example-based: the example, last 1-4 digits changed, one digit more or fewer, a trunk
  // prefix (or the national prefix) after the calling code.
  for (const [country, national] of Object.entries(mobileExamples)) {
    const cc = callingCodeOf(country);
    const nationalPrefix = meta.countries[country]?.[5];
    inputs.push(`+${cc}${national}`);
    for (let i = 0; i < 40; i++) {
      const k = Math.min(1 + (i % 4), national.length - 1);
      const mutated = `${national.slice(0, national.length - k)}${digits(k)}`;
      inputs.push(`+${cc}${mutated}`, `+${cc}${mutated}${digit()}`, `+${cc}${mutated.slice(0, -1)}`);
      if (i % 4 === 0) {
        inputs.push(`+${cc}0${mutated}`);
        if (typeof nationalPrefix === 'string' && nationalPrefix !== '') inputs.push(`+${cc}${nationalPrefix}${mutated}`);
      }
    }
  }
  let hits = 0;
  let unlisted = 0;
  let landlines = 0;
  for (const raw of inputs) {
    if (compare(raw) === 'hit') {
      hits++;
      if (fastNormalise(raw)?.ok === true && 'landline' in (fastNormalise(raw) ?? {})) landlines++;
    }
    if (fastNormalise(raw, undefined, OPT_OUT_NUMBERS)?.ok === true && 'unlisted' in (fastNormalise(raw, undefined, OPT_OUT_NUMBERS) ?? {})) unlisted++;
  }
  // A few with a default country (ignored for international input) and in "00" form.
  for (let i = 0; i < inputs.length; i += 50) {
    const raw = inputs[i] as string;
    compare(raw, 'GB');
    compare(raw, 'US');
    compare(`00${raw.slice(1)}`);
  }
  assert.ok(inputs.length >= 90_000, `${inputs.length} inputs`);
  assert.ok(hits > inputs.length / 4, `fast path answered ${hits} of ${inputs.length}`);
  assert.ok(unlisted > 1000, `fast path accepted ${unlisted} numbers outside the plan for an opt-out list`);
  assert.ok(landlines > 1000, `fast path found ${landlines} landlines`);
});

test('hit rate on realistic mobile numbers is high; big countries and all of +1 hit', () => {
  const mobiles = realisticMobiles(8);
  let hits = 0;
  for (const { e164 } of mobiles) if (compare(e164) === 'hit') hits++;
  const rate = hits / mobiles.length;
  assert.ok(rate >= 0.9, `hit rate ${(rate * 100).toFixed(1)} %`);

  const big = ['GB', 'DE', 'FR', 'IN', 'BR', 'NG', 'ES', 'IT', 'NL', 'AU', 'MX', 'PL'];
  const nanpa = meta.country_calling_codes['1'] ?? [];
  assert.equal(nanpa.length, 25);
  for (const country of [...big, ...nanpa]) {
    const example = mobileExamples[country];
    assert.ok(example !== undefined, country);
    const raw = `+${callingCodeOf(country)}${example}`;
    const fast = fastNormalise(raw);
    assert.ok(fast !== undefined, `${country} ${raw} takes the fast path`);
    assert.deepEqual(fast, normaliseNumber(raw));
    assert.deepEqual(fast, { ok: true, e164: raw }, `${country} example is valid`);
  }
});
