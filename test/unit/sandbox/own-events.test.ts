import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { planEvents, type EventPlanOptions, type InboundEvent, type StatusEvent } from '../../../src/sandbox/own-events.js';
import { createRandom } from '../../../src/sandbox/random.js';
import { DEFAULT_EVENT_PLAN } from '../../../src/sandbox/server.js';
import type { ValidMessageRequest } from '../../../src/sandbox/validate.js';

const request: ValidMessageRequest = {
  accountReference: 'EX1',
  channel: 'RCS',
  from: 'Acme',
  body: { text: 'x'.repeat(200) },
  recipients: [{ msisdn: '+447400900123' }, { msisdn: '+447400900124' }],
  addressBook: { contacts: [{ id: 'c-10' }] },
};
const T = Date.UTC(2030, 0, 1);

describe("the sandbox's events", () => {
  test('one final receipt per recipient with the message id it answered; RCS fallback as its own event, first', () => {
    const plan = planEvents(request, 'abc', T, DEFAULT_EVENT_PLAN, createRandom(1));
    const kinds = plan.map((p) => [p.event.type, 'messageId' in p.event ? p.event.messageId : '']);
    assert.deepEqual(kinds, [
      ['message.fallback', 'sbx_m_abc_0'],
      ['message.status', 'sbx_m_abc_0'],
      ['message.status', 'sbx_m_abc_1'],
      ['message.status', 'sbx_m_abc_2'],
    ]);
    const fallback = plan[0];
    const receipt = plan[1];
    assert.ok(fallback !== undefined && receipt !== undefined && fallback.afterMs < receipt.afterMs);
    const status = receipt.event as StatusEvent;
    assert.equal(status.status, 'delivered');
    assert.equal(status.final, true);
    assert.equal(status.channel, 'SMS');
    assert.equal(status.batchId, 'sbx_b_abc');
    assert.equal((plan[3]?.event as StatusEvent).contactId, 'c-10');
    for (const p of plan) assert.ok(p.afterMs >= 0 && p.afterMs <= 1_500, String(p.afterMs));
    assert.equal(new Set(plan.map((p) => p.event.id)).size, plan.length);
  });

  test('rates, sent receipts, part receipts and replies; the same seed gives the same outcomes', () => {
    const options: EventPlanOptions = { ...DEFAULT_EVENT_PLAN, failedRate: 0.5, expiredRate: 0.5, sentEvents: true, partReceipts: true, replyRate: 1, replyTexts: ['STOP'] };
    const sms = { ...request, channel: 'SMS' as const };
    const plan = planEvents(sms, 'abc', T, options, createRandom(7));
    const statuses = plan.filter((p) => p.event.type === 'message.status').map((p) => p.event as StatusEvent);
    assert.ok(statuses.some((s) => s.status === 'sent' && !s.final));
    const finals = statuses.filter((s) => s.final);
    assert.ok(finals.every((s) => s.status === 'failed' || s.status === 'expired'));
    // 200 GSM characters are 2 parts: a receipt for each.
    assert.deepEqual(finals.filter((s) => s.messageId === 'sbx_m_abc_0').map((s) => s.part), [{ index: 1, count: 2 }, { index: 2, count: 2 }]);
    for (const f of finals.filter((s) => s.status === 'failed')) assert.ok(f.error !== undefined && typeof f.error.permanent === 'boolean');
    const replies = plan.filter((p) => p.event.type === 'message.inbound').map((p) => p.event as InboundEvent);
    assert.deepEqual(replies.map((r) => [r.from, r.to, r.text, r.inReplyTo]), [['+447400900123', 'Acme', 'STOP', 'sbx_m_abc_0'], ['+447400900124', 'Acme', 'STOP', 'sbx_m_abc_1']]);
    const again = planEvents(sms, 'abc', T, options, createRandom(7));
    assert.deepEqual(again.map((p) => [p.afterMs, p.event.type, 'status' in p.event ? p.event.status : '']), plan.map((p) => [p.afterMs, p.event.type, 'status' in p.event ? p.event.status : '']));
  });
});
