// The line `msgr listen` and `listen replay` print for an event: a reply's text on one line,
// with nothing in it hidden (docs/contract.md: "Streams").
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventLine } from '../../../src/events/terminal.js';
import type { EventRecord } from '../../../src/events/saved-event.js';

const record = { v: 1, id: 'ev_00000000_1', receivedAt: '2026-12-07T14:00:00.000Z', key: 'id:j1', method: 'POST', path: '/' } as unknown as EventRecord;
const reply = (text: string): string => eventLine(record, { kind: 'inbound', number: '+447911123402', text });

describe('an event line shows a reply as it was written', () => {
  test('line breaks and tabs fold into one space; a BOM or another invisible character that JavaScript counts as white space is shown, never turned into a space', () => {
    assert.match(reply('STOP\n\tplease'), /"STOP please"/);
    assert.match(reply('ST\ufeffOP'), /"ST<U\+FEFF>OP"/);
    assert.match(reply('STOP\ufeff'), /"STOP<U\+FEFF>"/);
    assert.match(reply('\u2028STOP'), /"<U\+2028>STOP"/);
  });
});
