import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeChar, gsmLookalike, segmentText } from '../../src/message/segments.js';

describe('segmentText', () => {
  test('a GSM-7 text of 161 septets: two parts, ending at 153 and 161', () => {
    const s = segmentText('a'.repeat(161));
    assert.equal(s.encoding, 'GSM-7');
    assert.equal(s.units, 161);
    assert.equal(s.perPart, 153);
    assert.deepEqual(s.parts.map((p) => [p.start, p.end, p.units]), [[1, 153], [154, 161]].map(([a, b]) => [a, b, b! - a! + 1]));
    assert.deepEqual(s.forcing, []);
    assert.equal(s.gsmAlternative, null);
  });

  test('an extension character counts 2 septets in its part and is never split', () => {
    const s = segmentText(`${'a'.repeat(152)}€${'b'.repeat(10)}`);
    assert.deepEqual(s.parts.map((p) => [p.end, p.units]), [[152, 152], [163, 12]]);
  });

  test('UCS-2: code points are counted as characters, surrogate pairs as two units', () => {
    const s = segmentText(`${'ł'.repeat(66)}😀${'ł'.repeat(10)}`);
    assert.equal(s.encoding, 'UCS-2');
    assert.equal(s.units, 78);
    assert.equal(s.characters, 77);
    assert.deepEqual(s.parts.map((p) => [p.start, p.end, p.units]), [[1, 66, 66], [67, 77, 12]]);
  });

  test('each forcing character with its code point, count and look-alike; the GSM-7 alternative', () => {
    const s = segmentText('It’s ready – it’s here\u200b');
    assert.deepEqual(s.forcing, [
      { char: '’', codePoint: 'U+2019', count: 2, lookalike: "'" },
      { char: '–', codePoint: 'U+2013', count: 1, lookalike: '-' },
      { char: '\u200b', codePoint: 'U+200B', count: 1, lookalike: '' },
    ]);
    assert.deepEqual(s.gsmAlternative, { text: "It's ready - it's here", parts: 1 });
  });

  test('invisible characters are named by code alone: a zero-width joiner, a no-break space, a control', () => {
    assert.deepEqual(['\u200d', '\u00a0', '\u001b', '\u00e7'].map(describeChar), ['(U+200D)', '(U+00A0)', '(U+001B)', 'ç (U+00E7)']);
  });

  test('no alternative when a forcing character has no look-alike', () => {
    const s = segmentText('Hi 😀 ’');
    assert.equal(s.gsmAlternative, null);
    assert.equal(s.forcing.find((f) => f.char === '😀')?.lookalike, null);
  });

  test('look-alikes are GSM-7 themselves', () => {
    for (const ch of ['’', '“', '—', '…', '\u00a0', 'ç', 'á']) {
      const l = gsmLookalike(ch);
      assert.ok(l !== null && segmentText(`x${l}`).encoding === 'GSM-7', ch);
    }
  });
});
