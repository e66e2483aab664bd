// The sandbox's request rules, checked on the pure validator: one case per rule, each naming the
// field it must report (docs/sandbox.md, "Validation").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_RECIPIENTS, MAX_REPORTED_ERRORS, validateMessageRequest } from '../../../src/sandbox/validate.js';
import { deliveryFor, isRcsCapable } from '../../../src/sandbox/rcs.js';
import { buildAcceptedBody } from '../../../src/sandbox/response.js';

const NOW = Date.parse('2030-01-01T00:00:00.000Z');

function valid(): Record<string, unknown> {
  return {
    accountReference: 'EX0000000',
    channel: 'SMS',
    from: 'Acme',
    body: { text: 'Hello' },
    recipients: [{ msisdn: '+447400900123' }],
  };
}

function fieldsOf(request: unknown): string[] {
  return validateMessageRequest(request, NOW).errors.map((e) => e.field);
}

test('a minimal request and a full one are valid', () => {
  assert.deepEqual(fieldsOf(valid()), []);
  const full = {
    ...valid(),
    name: 'spring',
    characterSet: 'GSM',
    messageType: 'promo',
    validity: '2030-01-02T00:00:00.000+00:00',
    body: { templateId: 'welcome' },
    recipients: [{ msisdn: '+14155550100', variables: { name: 'Ann', n: 3, vip: true }, metaData: { row: '7' } }],
    addressBook: { contacts: [{ id: 'c-1' }] },
    metaData: { campaign: 'x' },
  };
  assert.deepEqual(fieldsOf(full), []);
});

const cases: Array<[string, (r: Record<string, unknown>) => void, string, RegExp?]> = [
  ['unknown top-level field', (r) => (r.colour = 'red'), 'colour', /unknown field/],
  ['unknown odd top-level field', (r) => (r['a b'] = 1), '["a b"]', /unknown field/],
  ['unknown body field', (r) => (r.body = { text: 'x', image: 'y' }), 'body.image', /unknown field/],
  ['unknown recipient field', (r) => (r.recipients = [{ msisdn: '+447400900123' }, { msisdn: '+447400900124', name: 'x' }]), 'recipients[1].name'],
  ['unknown addressBook field', (r) => (r.addressBook = { contacts: [{ id: 'a' }], owner: 'x' }), 'addressBook.owner'],
  ['unknown contact field', (r) => (r.addressBook = { contacts: [{ id: 'a', phone: 'x' }] }), 'addressBook.contacts[0].phone'],
  ['missing accountReference', (r) => delete r.accountReference, 'accountReference', /required/],
  ['missing channel', (r) => delete r.channel, 'channel', /required/],
  ['missing from', (r) => delete r.from, 'from', /required/],
  ['missing body', (r) => delete r.body, 'body', /required/],
  ['null value', (r) => (r.name = null), 'name', /null/],
  ['wrong type', (r) => (r.from = 42), 'from', /string/],
  ['empty string', (r) => (r.from = ''), 'from', /empty/],
  ['account not starting with a letter', (r) => (r.accountReference = '1abc'), 'accountReference'],
  ['lower-case channel', (r) => (r.channel = 'sms'), 'channel', /upper case/],
  ['unavailable channel', (r) => (r.channel = 'WhatsApp'), 'channel', /not available/],
  ['neither text nor templateId', (r) => (r.body = {}), 'body', /one of/],
  ['both text and templateId', (r) => (r.body = { text: 'a', templateId: 'b' }), 'body', /not both/],
  ['body text not a string', (r) => (r.body = { text: 5 }), 'body.text'],
  ['no recipients at all', (r) => delete r.recipients, 'recipients', /at least one/],
  ['empty recipients and empty contacts', (r) => ((r.recipients = []), (r.addressBook = { contacts: [] })), 'recipients', /at least one/],
  ['recipients not an array', (r) => (r.recipients = { msisdn: '+447400900123' }), 'recipients', /array/],
  ['recipient not an object', (r) => (r.recipients = ['+447400900123']), 'recipients[0]'],
  ['recipient without msisdn', (r) => (r.recipients = [{ variables: {} }]), 'recipients[0].msisdn', /required/],
  ['msisdn without plus', (r) => (r.recipients = [{ msisdn: '447400900123' }]), 'recipients[0].msisdn'],
  ['msisdn with spaces', (r) => (r.recipients = [{ msisdn: '+44 7400 900123' }]), 'recipients[0].msisdn'],
  ['msisdn too short', (r) => (r.recipients = [{ msisdn: '+123456' }]), 'recipients[0].msisdn'],
  ['msisdn too long', (r) => (r.recipients = [{ msisdn: '+1234567890123456' }]), 'recipients[0].msisdn'],
  ['msisdn with leading zero', (r) => (r.recipients = [{ msisdn: '+0447400900123' }]), 'recipients[0].msisdn'],
  ['msisdn as a number', (r) => (r.recipients = [{ msisdn: 447400900123 }]), 'recipients[0].msisdn', /string/],
  ['validity with Z', (r) => (r.validity = '2030-01-02T00:00:00.000Z'), 'validity'],
  ['validity without milliseconds', (r) => (r.validity = '2030-01-02T00:00:00+00:00'), 'validity'],
  ['validity with another offset', (r) => (r.validity = '2030-01-02T00:00:00.000+01:00'), 'validity'],
  ['validity that does not exist', (r) => (r.validity = '2030-02-30T00:00:00.000+00:00'), 'validity', /real date/],
  ['validity in the past', (r) => (r.validity = '2029-12-31T23:59:59.999+00:00'), 'validity', /past/],
  ['variables value an object', (r) => (r.recipients = [{ msisdn: '+447400900123', variables: { a: { b: 1 } } }]), 'recipients[0].variables.a'],
  ['variables value null', (r) => (r.recipients = [{ msisdn: '+447400900123', variables: { a: null } }]), 'recipients[0].variables.a', /null/],
  ['variables an array', (r) => (r.recipients = [{ msisdn: '+447400900123', variables: ['a'] }]), 'recipients[0].variables'],
  ['recipient metaData value an array', (r) => (r.recipients = [{ msisdn: '+447400900123', metaData: { t: [1] } }]), 'recipients[0].metaData.t'],
  ['top-level metaData not an object', (r) => (r.metaData = 'x'), 'metaData'],
  ['addressBook without contacts', (r) => (r.addressBook = {}), 'addressBook.contacts', /required/],
  ['contact id empty', (r) => (r.addressBook = { contacts: [{ id: '' }] }), 'addressBook.contacts[0].id', /empty/],
  ['contact without id', (r) => (r.addressBook = { contacts: [{}] }), 'addressBook.contacts[0].id', /required/],
];

for (const [name, mutate, field, message] of cases) {
  test(`422 rule: ${name} names ${field}`, () => {
    const request = valid();
    mutate(request);
    const { errors } = validateMessageRequest(request, NOW);
    const hit = errors.find((e) => e.field === field);
    assert.ok(hit, `expected an error on ${field}, got ${JSON.stringify(errors)}`);
    if (message !== undefined) assert.match(hit.message, message);
  });
}

test('a body that is not an object is reported at the root', () => {
  assert.deepEqual(fieldsOf([valid()]), ['$']);
  assert.deepEqual(fieldsOf('x'), ['$']);
});

test('the recipient cap counts recipients and contacts together', () => {
  const r = valid();
  r.recipients = Array.from({ length: MAX_RECIPIENTS }, (_, i) => ({ msisdn: `+4477009${String(i).padStart(5, '0')}` }));
  assert.deepEqual(fieldsOf(r), []);
  r.addressBook = { contacts: [{ id: 'one-too-many' }] };
  const { errors } = validateMessageRequest(r, NOW);
  assert.equal(errors.length, 1);
  assert.equal(errors[0]?.field, 'recipients');
  assert.match(errors[0]?.message ?? '', /10000/);
});

test('errors are capped but counted', () => {
  const r = valid();
  r.recipients = Array.from({ length: 250 }, () => ({ msisdn: 'bad' }));
  const result = validateMessageRequest(r, NOW);
  assert.equal(result.errors.length, MAX_REPORTED_ERRORS);
  assert.equal(result.errorCount, 250);
  assert.equal(result.errors[99]?.field, 'recipients[99].msisdn');
});

test('RCS rule: last digit even is capable, odd falls back; SMS never falls back', () => {
  assert.equal(isRcsCapable('+447400900124'), true);
  assert.equal(isRcsCapable('+447400900120'), true);
  assert.equal(isRcsCapable('+447400900123'), false);
  assert.deepEqual(deliveryFor('RCS', '+447400900123'), { channel: 'SMS', fallback: true });
  assert.deepEqual(deliveryFor('RCS', '+447400900128'), { channel: 'RCS', fallback: false });
  assert.deepEqual(deliveryFor('SMS', '+447400900128'), { channel: 'SMS', fallback: false });
});

test('the 202 body is valid JSON whatever the contact ids hold', () => {
  const { body, summary } = buildAcceptedBody(
    { accountReference: 'A', channel: 'RCS', from: 'x', body: { text: 'y' }, recipients: [{ msisdn: '+447400900123' }], addressBook: { contacts: [{ id: 'q"\\\n2' }] } },
    'abc',
    '2030-01-01T00:00:00.000Z',
  );
  const parsed = JSON.parse(body) as { contacts: Array<{ contactId: string; id: string; channel: string }> };
  assert.equal(parsed.contacts[0]?.contactId, 'q"\\\n2');
  assert.equal(parsed.contacts[0]?.id, 'sbx_m_abc_1');
  assert.equal(parsed.contacts[0]?.channel, 'RCS');
  assert.deepEqual(summary, { recipients: 1, contacts: 1, fallbacks: 1 });
});
