import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getPath, readStatus, summarise, timeMs } from '../../../src/events/fields.js';
import { parseForm } from '../../../src/events/saved-event.js';

describe('what an event says', () => {
  test("the sandbox's receipt, fallback and reply", () => {
    const receipt = summarise({ type: 'message.status', id: 'sbx_e_1', createdAt: '2030-01-01T09:00:00.000Z', messageId: 'sbx_m_a_0', msisdn: '+447400900123', status: 'failed', final: true, part: { index: 2, count: 3 }, error: { code: 'unknown-subscriber', permanent: true } });
    assert.deepEqual(receipt, { kind: 'delivery', status: 'failed', state: 'failed', number: '+447400900123', messageId: 'sbx_m_a_0', eventId: 'sbx_e_1', time: '2030-01-01T09:00:00.000Z', part: { index: 2, count: 3 }, permanent: true, errorCode: 'unknown-subscriber' });
    assert.equal(summarise({ type: 'message.fallback', id: 'e', messageId: 'm', msisdn: '+447400900123' }).kind, 'fallback');
    const reply = summarise({ type: 'message.inbound', id: 'e2', from: '+447400900124', to: 'Acme', text: 'STOP', inReplyTo: 'm' });
    assert.equal(reply.kind, 'inbound');
    assert.equal(reply.number, '+447400900124');
    assert.equal(reply.text, 'STOP');
    assert.equal(reply.status, undefined);
  });

  test('form bodies of the common providers: a status callback, and an inbound message whose status says "received"', () => {
    const status = summarise(parseForm('MessageSid=SM1&MessageStatus=undelivered&To=%2B14155550100&ErrorCode=30003'));
    assert.equal(status.kind, 'delivery');
    assert.equal(status.state, 'failed');
    assert.equal(status.messageId, 'SM1');
    assert.equal(status.number, '+14155550100');
    assert.equal(status.errorCode, '30003');
    const inbound = summarise(parseForm('MessageSid=SM2&SmsStatus=received&From=%2B14155550101&To=%2B14155550199&Body=Stop'));
    assert.equal(inbound.kind, 'inbound');
    assert.equal(inbound.number, '+14155550101');
    assert.equal(inbound.text, 'Stop');
  });

  test('envelopes, names in any case and separators, and paths the user names', () => {
    const s = summarise({ data: { payload: { message_id: 'abc', delivery_status: 'DELIVRD', destination: '447400900123' } } });
    assert.equal(s.messageId, 'abc');
    assert.equal(s.state, 'delivered');
    assert.equal(s.number, '447400900123');
    const custom = summarise({ rec: { ref: 'r1', st: 'EXPIRED' } }, { messageId: 'rec.ref', status: 'rec.st' });
    assert.equal(custom.kind, 'delivery');
    assert.equal(custom.messageId, 'r1');
    assert.equal(custom.state, 'expired');
    assert.equal(getPath({ items: [{ id: 'x' }] }, 'items.0.id'), 'x');
    assert.equal(getPath({ Data: { ID: 1 } }, 'data.id'), 1);
  });

  test("a bare id equal to the message id is the message's, not the event's", () => {
    const s = summarise({ id: 'm1', messageId: 'm1', status: 'sent' });
    assert.equal(s.eventId, undefined);
    assert.equal(s.messageId, 'm1');
  });

  test('status words: final ones by meaning, the rest pending', () => {
    for (const w of ['delivered', 'DELIVRD', 'message.delivered', 'read']) assert.equal(readStatus(w), 'delivered', w);
    for (const w of ['failed', 'UNDELIV', 'rejected', 'sms_failed']) assert.equal(readStatus(w), 'failed', w);
    for (const w of ['expired', 'EXPIRED']) assert.equal(readStatus(w), 'expired', w);
    for (const w of ['sent', 'queued', 'ACCEPTD', 'buffered', 'whatever']) assert.equal(readStatus(w), 'pending', w);
  });

  test('times: ISO, epoch seconds and milliseconds', () => {
    assert.equal(timeMs('2030-01-01T00:00:00Z'), Date.UTC(2030, 0, 1));
    assert.equal(timeMs('1893456000'), Date.UTC(2030, 0, 1));
    assert.equal(timeMs('1893456000000'), Date.UTC(2030, 0, 1));
    assert.equal(timeMs('soon'), undefined);
  });
});
