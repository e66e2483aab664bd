import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DeliveryBook, UNKNOWN_AFTER_MS } from '../../../src/events/delivery.js';
import { summarise } from '../../../src/events/fields.js';

const T0 = Date.UTC(2030, 0, 1, 9);
const at = (s: number): string => new Date(T0 + s * 1000).toISOString();
function receipt(book: DeliveryBook, messageId: string, status: string, second: number, extra: Record<string, unknown> = {}): void {
  book.add(summarise({ type: 'message.status', messageId, status, createdAt: at(second), ...extra }), at(second + 1));
}
const now = new Date(T0 + 3_600_000);

describe('delivery state per message', () => {
  test('a final state wins over a non-final one that comes later, whatever its time', () => {
    const book = new DeliveryBook();
    receipt(book, 'm1', 'delivered', 10);
    receipt(book, 'm1', 'sent', 20);
    receipt(book, 'm1', 'sent', 5);
    const s = book.state('m1', { now });
    assert.equal(s.status, 'delivered');
    assert.equal(s.final, true);
    assert.equal(s.at, at(10));
    assert.equal(s.receipts, 3);
  });

  test('between two finals the later by the event time wins; without finals, the latest pending', () => {
    const book = new DeliveryBook();
    receipt(book, 'm2', 'expired', 30);
    receipt(book, 'm2', 'delivered', 20);
    assert.equal(book.state('m2', { now }).status, 'expired');
    receipt(book, 'm3', 'queued', 1);
    receipt(book, 'm3', 'sent', 2);
    const s = book.state('m3', { now });
    assert.equal(s.status, 'pending');
    assert.equal(s.final, false);
    assert.equal(s.at, at(2));
  });

  test("a long message's parts fold into one: delivered when every part is, failed when one failed", () => {
    const book = new DeliveryBook();
    receipt(book, 'long', 'delivered', 1, { part: { index: 1, count: 3 } });
    receipt(book, 'long', 'delivered', 2, { part: { index: 2, count: 3 } });
    assert.deepEqual(book.state('long', { now }), { messageId: 'long', status: 'pending', final: false, at: at(2), receipts: 2, parts: { count: 3, delivered: 2 } });
    receipt(book, 'long', 'delivered', 3, { part: { index: 3, count: 3 } });
    receipt(book, 'long', 'delivered', 4, { part: { index: 3, count: 3 } });
    const done = book.state('long', { now });
    assert.equal(done.status, 'delivered');
    assert.equal(done.at, at(4));
    assert.deepEqual(done.parts, { count: 3, delivered: 3 });
    receipt(book, 'long2', 'delivered', 1, { part: { index: 1, count: 2 } });
    receipt(book, 'long2', 'failed', 2, { part: { index: 2, count: 2 }, error: { code: 'x' } });
    assert.equal(book.state('long2', { now }).status, 'failed');
  });

  test('no final receipt a documented time after sending reads as unknown; a message never seen is pending, then unknown', () => {
    const book = new DeliveryBook();
    receipt(book, 'm4', 'sent', 0);
    const sentAt = new Date(T0);
    assert.equal(book.state('m4', { now, sentAt }).status, 'pending');
    const late = new Date(T0 + UNKNOWN_AFTER_MS + 1);
    assert.equal(book.state('m4', { now: late, sentAt }).status, 'unknown');
    // Without sentAt the clock starts at the first receipt.
    assert.equal(book.state('m4', { now: late }).status, 'unknown');
    assert.equal(book.state('never', { now: late, sentAt }).status, 'unknown');
    assert.equal(book.state('never', { now, sentAt }).status, 'pending');
    assert.equal(book.state('never', { now: late }).status, 'pending');
    receipt(book, 'm5', 'delivered', 0);
    assert.equal(book.state('m5', { now: late, sentAt }).status, 'delivered');
    assert.equal(book.state('m4', { now: late, sentAt, unknownAfterMs: 2 * UNKNOWN_AFTER_MS }).status, 'pending');
  });

  test('only the ids asked for are kept; events other than receipts are passed over', () => {
    const book = new DeliveryBook(new Set(['keep']));
    receipt(book, 'keep', 'delivered', 1);
    receipt(book, 'drop', 'delivered', 1);
    book.add(summarise({ type: 'message.inbound', from: '+447400900123', text: 'hi' }), at(1));
    assert.deepEqual([...book.ids()], ['keep']);
  });
});
