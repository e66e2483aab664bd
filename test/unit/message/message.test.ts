import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkSender, parseChannel } from '../../../src/message/channel.js';
import { trimInvisible } from '../../../src/message/invisible.js';
import { normaliseNumber, OPT_OUT_NUMBERS, parseCountry } from '../../../src/message/numbers.js';
import { buildRequest, parseKeyValue } from '../../../src/message/request.js';
import { formatUtc, parseValidity } from '../../../src/message/request-fields/validity.js';

const NOW = new Date('2026-11-21T12:00:00.000Z');

describe('normaliseNumber', () => {
  const ok: Array<[string, string | undefined, string]> = [
    ['+44 7911 123456', undefined, '+447911123456'],
    ['0044-7911-123456', undefined, '+447911123456'],
    ['(07911) 123.456', 'GB', '+447911123456'],
    ['+1 (415) 555-0100', undefined, '+14155550100'],
    ['06 12 34 56 78', 'FR', '+33612345678'],
    ['+49\u00a01511\u00a02345678', undefined, '+4915112345678'],
    // Copied from a contact card or right-to-left text: invisible direction marks and joiners.
    ['\u202a+44 7911 123456\u202c', undefined, '+447911123456'],
    ['\u200e+447911\u2068123456\u2069\ufeff', undefined, '+447911123456'],
  ];
  for (const [raw, cc, e164] of ok) {
    test(`${raw} → ${e164}`, () => {
      const r = normaliseNumber(raw, cc === undefined ? undefined : parseCountry(cc));
      assert.deepEqual(r, { ok: true, e164 });
    });
  }
  // Possible numbers outside the numbering plan are refused, with why. --allow-unlisted-numbers
  // sends those in no range of the plan (ranges newer than the metadata), never a mistyped one (a
  // digit missing or one too many, a national 0 kept), and the hint of a mistyped one does not
  // name the flag.
  const unlisted: Array<[string, string | undefined, 'unlisted' | 'mistyped', string]> = [
    ['+447700900123', undefined, 'unlisted', '+447700900123 is not in the numbering plan of +44 (United Kingdom): no range of its numbers holds it'],
    ['07911 12345', 'GB', 'mistyped', '"07911 12345" is +44791112345, too short for a +44 (United Kingdom) number: one digit missing?'],
    ['+49 151 234567890', undefined, 'mistyped', '"+49 151 234567890" is +49151234567890, too long for a +49 (Germany) number: one digit too many?'],
    ['01632 96', 'GB', 'mistyped', '"01632 96" is +440163296, with the national 0 kept after the country code (+44 0…); without it, too short for a +44 (United Kingdom) number'],
    ['+491512345678', undefined, 'mistyped', '+491512345678 is too short for a +49 (Germany) number: one digit missing?'],
  ];
  for (const [raw, cc, cause, reason] of unlisted) {
    test(`${raw} is outside the plan (${cause}): ${reason}`, () => {
      const country = cc === undefined ? undefined : parseCountry(cc);
      const r = normaliseNumber(raw, country);
      assert.equal(r.ok, false);
      assert.equal(!r.ok && r.cause, cause);
      assert.equal(!r.ok && r.reason, reason);
      assert.equal(!r.ok && r.hint?.includes('--allow-unlisted-numbers'), cause === 'unlisted', 'only a number in no range of the plan is offered the flag');
      const allowed = normaliseNumber(raw, country, { allowUnlisted: true });
      if (cause === 'unlisted') assert.ok(allowed.ok && allowed.unlisted === true, `accepted with allowUnlisted: ${JSON.stringify(allowed)}`);
      else assert.deepEqual(allowed, r, 'a mistyped number is refused with allowUnlisted too');
      // An opt-out list reads every possible number: leaving one out costs nothing.
      const optOut = normaliseNumber(raw, country, OPT_OUT_NUMBERS);
      assert.ok(optOut.ok && optOut.unlisted === true, JSON.stringify(optOut));
    });
  }
  test('a valid fixed line says so; a mobile, and a number whose plan cannot tell, do not', () => {
    assert.deepEqual(normaliseNumber('+442079460000'), { ok: true, e164: '+442079460000', landline: true });
    assert.deepEqual(normaliseNumber('01632 960000', parseCountry('GB')).ok, false, 'the UK drama range for landlines is outside the plan too');
    assert.deepEqual(normaliseNumber('+447911123456'), { ok: true, e164: '+447911123456' });
    assert.deepEqual(normaliseNumber('+14155550100'), { ok: true, e164: '+14155550100' }, 'FIXED_LINE_OR_MOBILE is not a landline');
  });
  const bad: Array<[string, RegExp]> = [
    ['+44123', /too short/],
    ['+999123456789', /unknown country code/],
    ['+4479111234567890', /too long/],
    ['07911123456', /national number/],
    ['+44 7911 12345x', /not digits/],
    ['', /empty/],
    ['447911123456.0', /written as a decimal number/],
    ['+447911123456,00', /written as a decimal number/],
    // Spaces and a typed ".0": the dot is a separator, so without this it read as "too long".
    ['+44 7911 123461.0', /written as a decimal number/],
    ['+49 151 23456789.0', /written as a decimal number/],
  ];
  for (const [raw, reason] of bad) {
    test(`refuses ${JSON.stringify(raw)}`, () => {
      const r = normaliseNumber(raw);
      assert.equal(r.ok, false);
      assert.match(r.ok ? '' : r.reason, reason);
    });
  }
  test('a national number with a ".0" is a decimal with a default country; dots between digits stay separators', () => {
    const r = normaliseNumber('07911 123456.0', 'GB');
    assert.ok(!r.ok && r.cause === 'decimal', JSON.stringify(r));
    assert.deepEqual(normaliseNumber('+33 6.12.34.56.00'), { ok: true, e164: '+33612345600' });
    const long = normaliseNumber('+44 7911 1234611');
    assert.ok(!long.ok && long.cause === 'impossible', JSON.stringify(long));
  });
  test('national numbers need a country, and say so', () => {
    const r = normaliseNumber('07911 123456');
    assert.ok(!r.ok && r.needsCountry === true);
  });
  test('two numbers in one value are said as such, whatever joins them; a slash inside one number is a separator', () => {
    for (const [raw, cc] of [['07911 123457 / 07400 123458', 'GB'], ['+447911123457, +447400123458', undefined], ['07911 123457 or 07400 123458', 'GB'], ['+447911123457;+447400123458;+447400123459', undefined], ['07911123457 & 07400123458', undefined]] as const) {
      const r = normaliseNumber(raw, cc === undefined ? undefined : parseCountry(cc));
      assert.ok(!r.ok && r.cause === 'two-numbers', `${raw}: ${JSON.stringify(r)}`);
      assert.match(r.reason, /holds (two|3) numbers \(/);
    }
    assert.deepEqual(normaliseNumber('0151/23456789', parseCountry('DE')), { ok: true, e164: '+4915123456789' });
    // One number and something else: the number's own problem, not two numbers.
    const ext = normaliseNumber('07911 123456, ext 12', parseCountry('GB'));
    assert.ok(!ext.ok && ext.cause !== 'two-numbers', JSON.stringify(ext));
  });
  test('parseCountry accepts ISO codes case-insensitively and refuses others', () => {
    assert.equal(parseCountry('gb'), 'GB');
    assert.equal(parseCountry('XX'), undefined);
    assert.equal(parseCountry('UK'), undefined);
  });
});

describe('parseValidity', () => {
  const cases: Array<[string, string]> = [
    ['90s', '2026-11-21T12:01:30.000+00:00'],
    ['30m', '2026-11-21T12:30:00.000+00:00'],
    ['2h', '2026-11-21T14:00:00.000+00:00'],
    ['3d', '2026-11-24T12:00:00.000+00:00'],
    ['2026-12-01T09:00:00Z', '2026-12-01T09:00:00.000+00:00'],
    ['2026-12-01T10:00:00.5+01:00', '2026-12-01T09:00:00.500+00:00'],
    ['2026-11-21T08:00-05:00', '2026-11-21T13:00:00.000+00:00'],
  ];
  for (const [input, expected] of cases) {
    test(`${input} → ${expected}`, () => assert.deepEqual(parseValidity(input, NOW), { ok: true, value: expected }));
  }
  test('past times, zero durations, missing offsets and junk are refused', () => {
    assert.match(fail('2026-11-21T11:59:59Z'), /in the past/);
    assert.match(fail('0s'), /not in the future/);
    assert.match(fail('2026-12-01T09:00:00'), /no UTC offset/);
    assert.match(fail('next week'), /neither an ISO 8601 time/);
    assert.match(fail('2026-13-45T09:00:00Z'), /not a real date/);
    assert.match(fail('2027-02-30T10:00:00Z'), /not a real date/);
    assert.match(fail('2027-04-31T10:00:00+02:00'), /not a real date/);
    assert.match(fail('2027-01-01T24:00:00Z'), /not a real date/);
  });
  test('formatUtc always writes +00:00 with milliseconds', () => {
    assert.equal(formatUtc(new Date(Date.UTC(2027, 0, 2, 3, 4, 5, 6))), '2027-01-02T03:04:05.006+00:00');
  });
  function fail(input: string): string {
    const r = parseValidity(input, NOW);
    assert.equal(r.ok, false, `${input} should be refused`);
    return r.ok ? '' : r.reason;
  }
});

describe('channels and senders', () => {
  test('channels are upper-cased; WhatsApp, email and voice are not available yet', () => {
    assert.deepEqual(parseChannel('rcs'), { ok: true, value: 'RCS' });
    assert.deepEqual(parseChannel(' Sms '), { ok: true, value: 'SMS' });
    for (const c of ['WhatsApp', 'email', 'VOICE']) assert.match(String(!parseChannel(c).ok && (parseChannel(c) as { reason: string }).reason), /not available yet/);
    assert.match((parseChannel('telegram') as { reason: string }).reason, /not a channel/);
  });
  test('SMS senders: a number, or 1-11 letters/digits/spaces; RCS agent names are free', () => {
    assert.equal(checkSender('Acme', 'SMS'), undefined);
    assert.equal(checkSender('Acme Shop 1', 'SMS'), undefined);
    assert.equal(checkSender('+447911123456', 'SMS'), undefined);
    assert.equal(checkSender('12345', 'SMS'), undefined);
    assert.match(checkSender('Acme Shop 12', 'SMS') ?? '', /at most 11/);
    assert.equal(checkSender('0800 123', 'SMS'), '"0800 123" is a number with spaces or punctuation: write it as 0800123');
    assert.equal(checkSender('+44 7911-999.999', 'SMS'), '"+44 7911-999.999" is a number with spaces or punctuation: write it as +447911999999');
    assert.equal(checkSender('1234 5678 9012 3456', 'SMS'), '"1234 5678 9012 3456" is not an SMS sender id: a number has at most 15 digits');
    assert.match(checkSender('Acme-Shop', 'SMS') ?? '', /not an SMS sender id: use a number, or 1 to 11 letters \(A-Z without accents\)/);
    assert.match(checkSender('José', 'SMS') ?? '', /A-Z without accents/);
    // A placeholder is not filled in in a sender, on either channel; zero-width characters are nothing.
    assert.equal(checkSender('{{sender}}', 'SMS'), '"{{sender}}" has a placeholder, which is filled in in a message\'s text only');
    assert.match(checkSender('{{ agent }}', 'RCS') ?? '', /has a placeholder/);
    assert.equal(checkSender('\u200b', 'RCS'), 'is empty');
    assert.equal(checkSender('acme-shop-agent.v2', 'RCS'), undefined);
    assert.match(checkSender('   ', 'RCS') ?? '', /empty/);
  });
});

describe('buildRequest', () => {
  test('a text of spaces and zero-width characters is empty, as a cell of them is', () => {
    const r = buildRequest({ accountReference: 'A1', from: 'Acme', text: ' \u200b\ufeff', recipients: [{ msisdn: '+447911123456' }] }, NOW);
    assert.ok(!r.ok && r.problems.some((p) => p.message === 'the message text is empty'));
  });
  test('unset fields are omitted, never null, in the spec order', () => {
    const r = buildRequest({ accountReference: 'A1', from: 'Acme', text: 'hi', recipients: [{ msisdn: '+447911123456' }] }, NOW);
    assert.ok(r.ok);
    assert.equal(JSON.stringify(r.request), '{"accountReference":"A1","channel":"SMS","from":"Acme","body":{"text":"hi"},"recipients":[{"msisdn":"+447911123456"}]}');
  });
  test('collects every problem at once, naming the flag', () => {
    const r = buildRequest({ channel: 'email', recipients: [{ msisdn: '123' }] }, NOW);
    assert.ok(!r.ok);
    const fields = r.problems.map((p) => p.field);
    assert.deepEqual(fields, ['--account', '--channel', '--from', '--text/--template', '--to']);
  });
  test('contacts alone are enough recipients', () => {
    const r = buildRequest({ accountReference: 'A1', from: 'Acme', templateId: 't', contacts: ['c1'] }, NOW);
    assert.ok(r.ok);
    assert.deepEqual(r.request.addressBook, { contacts: [{ id: 'c1' }] });
    assert.equal(r.request.recipients, undefined);
  });
  test('parseKeyValue splits at the first =', () => {
    assert.deepEqual(parseKeyValue('a=b=c'), { key: 'a', value: 'b=c' });
    assert.deepEqual(parseKeyValue('a='), { key: 'a', value: '' });
    assert.equal(parseKeyValue('=b'), undefined);
    assert.equal(parseKeyValue('ab'), undefined);
  });
});

describe('trimInvisible', () => {
  test('drops spaces and zero-width characters at either end, keeps those inside', () => {
    assert.equal(trimInvisible('  Ann\u200b '), 'Ann');
    assert.equal(trimInvisible('\ufeff\u2060 Bob\u200c\u200d'), 'Bob');
    assert.equal(trimInvisible('👩\u200d💻'), '👩\u200d💻');
    assert.equal(trimInvisible('\u200b'), '');
    assert.equal(trimInvisible(' plain '), 'plain');
  });
});
