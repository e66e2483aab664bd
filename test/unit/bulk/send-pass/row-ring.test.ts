// The rows the grouping holds open, kept as bytes (bulk/send-pass/row-ring.ts): every string reads
// back as it was set, whether it went into the slot's bytes or, not being ASCII or too long, beside
// them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RowRing } from '../../../../src/bulk/send-pass/row-ring.js';

test('a recipient JSON, a number, the empty string, and strings that are not ASCII or do not fit read back as set', () => {
  const ring = new RowRing(4, 20);
  const cases = [
    '{"msisdn":"+4479"}',
    '+4915112345678',
    '',
    'Zoë',
    // U+0101: one byte in Latin-1 would be 0x01, an ASCII byte
    'ā',
    '😀 emoji',
    'x'.repeat(16),
    'x'.repeat(17),
    'é'.repeat(8),
    '{"msisdn":"+447911123456","name":"Ann"}',
  ];
  for (const s of cases) {
    ring.set(1, s);
    assert.equal(ring.get(1), s);
  }
});

test('a slot set again holds the new string, whichever kind the old one was, and leaves the others alone', () => {
  const ring = new RowRing(3, 12);
  ring.set(0, 'a very long string indeed');
  ring.set(1, '+33612345678');
  ring.set(2, 'kept');
  ring.set(0, 'short');
  ring.set(1, 'Ünïcode');
  assert.deepEqual([ring.get(0), ring.get(1), ring.get(2)], ['short', 'Ünïcode', 'kept']);
  ring.set(1, 'plain');
  assert.deepEqual([ring.get(0), ring.get(1), ring.get(2)], ['short', 'plain', 'kept']);
});
