// --sample-to: the numbers a sample goes to.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { UsageError } from '../../../../src/errors.js';
import { createNumberChecker } from '../../../../src/bulk/input/number-check.js';
import { sampleNumbers } from '../../../../src/bulk/send-pass/samples.js';

describe('sampleNumbers', () => {
  test('normalised, a national number or a word refused (the number named once), none without the flag', () => {
    const gb = createNumberChecker('GB');
    assert.deepEqual(sampleNumbers(['07400 900123', '+447400900456'], gb), ['+447400900123', '+447400900456']);
    assert.equal(sampleNumbers(undefined, gb), undefined);
    assert.throws(
      () => sampleNumbers(['07400 900123'], createNumberChecker(undefined)),
      (e: unknown) => e instanceof UsageError && e.message === '--sample-to: "07400 900123" is a national number: give it as +<country code>..., or set --default-country' && /--default-country/.test(e.hint ?? ''),
    );
    // The number once, as `send --to` says it.
    assert.throws(() => sampleNumbers(['abc'], gb), (e: unknown) => e instanceof UsageError && e.message === '--sample-to: "abc" has characters that are not digits');
  });
});
