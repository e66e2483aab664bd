// Message ids per recipient, read from an accepted batch's answer in the shapes the API might use.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { extractMessageIds } from '../../../src/http/message-ids.js';

describe('message ids', () => {
  test('message ids from several response shapes', () => {
    const nums = ['+1', '+2'];
    assert.deepEqual(extractMessageIds({ messages: [{ id: 'a', msisdn: '+2' }, { id: 'b', msisdn: '+1' }] }, nums), ['b', 'a']);
    assert.deepEqual(extractMessageIds([{ messageId: 'x' }, { messageId: 'y' }], nums), ['x', 'y']);
    assert.deepEqual(extractMessageIds({ id: 'only' }, ['+1']), ['only']);
    assert.deepEqual(extractMessageIds({ id: 'only' }, nums), [undefined, undefined]);
    assert.deepEqual(extractMessageIds('OK', nums), [undefined, undefined]);
  });
});
