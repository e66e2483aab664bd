// --text-file: the message text decoded from the bytes of a file.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { UsageError } from '../../../src/errors.js';
import { segmentText } from '../../../src/message/segments.js';
import { decodeText, phoneText } from '../../../src/message/text-file.js';

describe('the message text decoder', () => {
  const o = { flag: '--text-file', encodingFlag: '--text-encoding' };
  test('BOMs, UTF-16, Windows-1252, the final line end', () => {
    assert.equal(decodeText(Buffer.from('\uFEFFHi\n'), 't', o), 'Hi');
    // Written on Windows: CR LF line ends become LF, as a phone shows them.
    assert.equal(decodeText(Buffer.from('Hi Ann,\r\nsee you at 5.\r\n'), 't', o), 'Hi Ann,\nsee you at 5.');
    assert.equal(decodeText(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Zoë\r\n', 'utf16le')]), 't', o), 'Zoë');
    assert.equal(decodeText(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('Zoë', 'utf16le').swap16()]), 't', o), 'Zoë');
    assert.equal(decodeText(Buffer.from([0x80, 0x93, 0x41, 0x94, 0xe9]), 't', { ...o, encoding: 'latin1' }), '€“A”é');
    // Every line break at the end goes, and blank lines there: none is sent, or counted.
    assert.equal(decodeText(Buffer.from('two\nlines\n\n'), 't', o), 'two\nlines');
    assert.equal(decodeText(Buffer.from('Hi\r\n\r\n \t\r\n'), 't', o), 'Hi');
    assert.equal(decodeText(Buffer.from('Hi\n\nthere   \n'), 't', o), 'Hi\n\nthere   ');
    assert.equal(decodeText(Buffer.from('\n\n'), 't', o), '');
    // Decomposed letters (macOS writes them) are composed: the same text, with a GSM-7 form.
    assert.equal(decodeText(Buffer.from('Jose\u0301 Mu\u0308ller\n'), 't', o), 'Jos\u00e9 M\u00fcller');
  });

  test('phoneText: line ends as a phone shows them, letters composed; other text as it is', () => {
    assert.equal(phoneText('Jose\u0301\r\nA\rB'), 'Jos\u00e9\nA\nB');
    assert.equal(segmentText(phoneText('Hi Jose\u0301')).encoding, 'GSM-7');
    assert.equal(segmentText('Hi Jose\u0301').encoding, 'UCS-2');
    // Already composed, and scripts with no composed form, are unchanged.
    for (const text of ['Zoë', '\u{1F469}\u200d\u{1F4BB} ok', '\u0645\u0631\u062d\u0628\u0627', 'plain']) assert.equal(phoneText(text), text);
  });
  test('invalid UTF-8 and NULs are refused with the line and the flag to use', () => {
    assert.throws(() => decodeText(Buffer.concat([Buffer.from('ok\nstill ok\nbad '), Buffer.from([0xe9])]), 'notice.txt', o), (err: unknown) => {
      assert.ok(err instanceof UsageError);
      assert.equal(err.message, '--text-file: notice.txt is not valid UTF-8 text (line 3); nothing was sent');
      assert.match(err.hint ?? '', /--text-encoding latin1/);
      return true;
    });
    assert.throws(() => decodeText(Buffer.from('Hi', 'utf16le'), 't', o), /NUL characters/);
  });
});
