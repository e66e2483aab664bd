import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { METHODS as API_METHODS } from '../../../../src/commands/api/options.js';
import { bashWords, CHANNELS, DELIMITERS, ENCODINGS, METHODS } from '../../../../src/commands/completion/complete.js';
import { parseEncoding } from '../../../../src/message/text-file.js';
import { parseChannel } from '../../../../src/message/channel.js';
import { parseDelimiter } from '../../../../src/csv/reader.js';

describe('completion values are what the commands accept', () => {
  test('channels, encodings, delimiters, methods', () => {
    for (const c of CHANNELS) assert.ok(parseChannel(c).ok, c);
    for (const e of ENCODINGS) assert.equal(parseEncoding(e), e);
    for (const d of DELIMITERS) assert.notEqual(parseDelimiter(d), undefined, d);
    assert.deepEqual(METHODS, [...API_METHODS]);
  });

  test('bash words split at = are glued back', () => {
    assert.deepEqual(bashWords(['send', '--channel', '=', 'R']), { words: ['send', '--channel=R'], valueOnly: true });
    assert.deepEqual(bashWords(['send', '--channel', '=']), { words: ['send', '--channel='], valueOnly: true });
    assert.deepEqual(bashWords(['send', '--channel', '=', 'RCS', '--t']), { words: ['send', '--channel=RCS', '--t'], valueOnly: false });
  });
});
