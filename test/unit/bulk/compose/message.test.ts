// The request a bulk run sends, without its recipients: the frame each batch's recipients go into.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { requestFrame } from '../../../../src/bulk/compose/base-request.js';

describe('the request frame', () => {
  test('the request frame keeps the spec order: recipients after body, before metaData', () => {
    const f = requestFrame({ accountReference: 'A', channel: 'SMS', from: 'X', body: { text: 'hi' }, metaData: { c: '1' } });
    const json = JSON.parse(`${f.prefix}{"msisdn":"+447400900001"}${f.suffix}`) as Record<string, unknown>;
    assert.deepEqual(Object.keys(json), ['accountReference', 'channel', 'from', 'body', 'recipients', 'metaData']);
  });
});
